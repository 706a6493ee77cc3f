//! Multiple-choice answers (docs/design/grading.md §4.7, AQUA-RAT, MMLU, MMLU-Pro, GPQA): the
//! candidate parser with hedge detection, option-text matching and the weak fallbacks of §4.4 step
//! 4.

use super::boxed::last_boxed;
use super::candidates::Parsed;
use super::latex::unwrap_commands;
use super::numeric::{after_last_eq, clean, close, cut_sentence, first_token, whole_number};

/// Parses one candidate segment (§4.7 steps 1–5) into an allowed letter, a hedge, or nothing.
pub fn parse_candidate(segment: &str, letters: &[char], options: &[String]) -> Parsed<char> {
    // 1. Box content, \text{}, surrounding decoration.
    let seg = last_boxed(segment).unwrap_or_else(|| segment.to_string());
    let seg = unwrap_commands(&seg, &["text"]);
    let seg =
        seg.trim_matches(|c: char| c.is_whitespace() || matches!(c, '*' | '$' | '\'' | '"' | '`'));
    // 2.–3. A letter at the start, then the hedge check.
    if let Some((letter, end)) = leading_letter(seg) {
        if letters.contains(&letter) {
            if hedge_follows(seg.get(end..).unwrap_or(""), letter, letters) {
                return Parsed::Hedge;
            }
            return Parsed::Answer(letter);
        }
    }
    // 4. Parenthesised letters anywhere in the segment.
    let mut found: Vec<char> = Vec::new();
    for (_, l) in paren_letters(seg) {
        if letters.contains(&l) && !found.contains(&l) {
            found.push(l);
        }
    }
    match found.as_slice() {
        [one] => return Parsed::Answer(*one),
        [_, _, ..] => return Parsed::Hedge,
        [] => {}
    }
    // 5. Option text, then option value.
    match option_match(seg, letters, options) {
        Some(l) => Parsed::Answer(l),
        None => Parsed::Invalid,
    }
}

/// The weak fallbacks of §4.4 step 4 for choice items, over the whole pre-processed text.
pub fn fallback(text: &str, letters: &[char], lenient: bool) -> Option<char> {
    if let Some((_, l)) = paren_letters(text)
        .filter(|(_, l)| letters.contains(l))
        .last()
    {
        return Some(l);
    }
    if let Some(l) = whole_letter(text.trim()).filter(|l| letters.contains(l)) {
        return Some(l);
    }
    if let Some(l) = last_option_word(text, letters) {
        return Some(l);
    }
    if lenient {
        return last_standalone_capital(text, letters);
    }
    None
}

/// §4.7 step 2: optionally "option"/"choice" and spaces, then `(X)`, `[X]` (either case) or a
/// capital `X` followed by the end, whitespace or one of `. , : ; ) ]`. Returns the letter
/// (upper-cased) and the byte offset after the match (after a bare letter's `)` or `]`).
fn leading_letter(seg: &str) -> Option<(char, usize)> {
    let mut start = 0;
    for word in ["option", "choice"] {
        let matches = seg
            .as_bytes()
            .get(..word.len())
            .is_some_and(|s| s.eq_ignore_ascii_case(word.as_bytes()));
        if matches
            && !seg
                .as_bytes()
                .get(word.len())
                .is_some_and(u8::is_ascii_alphabetic)
        {
            start = word.len();
            start += seg
                .get(start..)
                .map_or(0, |r| r.len() - r.trim_start().len());
            break;
        }
    }
    let rest = seg.get(start..)?;
    let mut chars = rest.chars();
    let first = chars.next()?;
    if first == '(' || first == '[' {
        let close = if first == '(' { ')' } else { ']' };
        let l = chars.next()?;
        if l.is_ascii_alphabetic() && chars.next() == Some(close) {
            return Some((l.to_ascii_uppercase(), start + 3));
        }
        return None;
    }
    if !first.is_ascii_uppercase() {
        return None;
    }
    match chars.next() {
        None => Some((first, start + 1)),
        Some(c) if c.is_whitespace() || matches!(c, '.' | ',' | ':' | ';') => {
            Some((first, start + 1))
        }
        Some(')' | ']') => Some((first, start + 2)),
        Some(_) => None,
    }
}

/// §4.7 step 3: after the matched letter, spaces, then `,`, `/`, `and`, `or`, `, and` or
/// `, or`, then another allowed, different letter: `(Y)` (either case) or a bare capital `Y`
/// not followed by a letter.
fn hedge_follows(after: &str, letter: char, letters: &[char]) -> bool {
    let mut r = after.trim_start();
    let mut connector = false;
    if let Some(x) = r.strip_prefix([',', '/']) {
        connector = true;
        r = x.trim_start();
    }
    for word in ["and", "or"] {
        let is_word = r
            .as_bytes()
            .get(..word.len())
            .is_some_and(|s| s.eq_ignore_ascii_case(word.as_bytes()))
            && !r
                .as_bytes()
                .get(word.len())
                .is_some_and(u8::is_ascii_alphabetic);
        if is_word {
            connector = true;
            r = r.get(word.len()..).unwrap_or("").trim_start();
            break;
        }
    }
    if !connector {
        return false;
    }
    let mut chars = r.chars();
    let other = match chars.next() {
        Some('(') => {
            let l = chars.next();
            match (l, chars.next()) {
                (Some(l), Some(')')) if l.is_ascii_alphabetic() => Some(l.to_ascii_uppercase()),
                _ => None,
            }
        }
        Some(l) if l.is_ascii_uppercase() => {
            (!chars.next().is_some_and(|c| c.is_alphabetic())).then_some(l)
        }
        _ => None,
    };
    other.is_some_and(|o| o != letter && letters.contains(&o))
}

/// Every `(X)` with an ASCII letter `X` (upper-cased), with its byte offset.
fn paren_letters(s: &str) -> impl Iterator<Item = (usize, char)> + '_ {
    s.as_bytes()
        .windows(3)
        .enumerate()
        .filter_map(|(i, w)| match w {
            [b'(', l, b')'] if l.is_ascii_alphabetic() => {
                Some((i, char::from(l.to_ascii_uppercase())))
            }
            _ => None,
        })
}

/// §4.7 step 5: the unique option whose text equals the segment (trailing period removed,
/// case-insensitive); else, if the segment starts with a number (after the §4.5 clean-up,
/// sentence cut and `=` rule), the unique option that is a plain number of equal value.
fn option_match(seg: &str, letters: &[char], options: &[String]) -> Option<char> {
    let strip = |s: &str| s.trim().trim_end_matches('.').trim().to_lowercase();
    let target = strip(seg);
    let pairs = letters.iter().zip(options);
    let by_text: Vec<char> = pairs
        .clone()
        .filter(|(_, o)| strip(o) == target)
        .map(|(l, _)| *l)
        .collect();
    if let [one] = by_text.as_slice() {
        return Some(*one);
    }
    let cleaned = clean(seg);
    let s = after_last_eq(cut_sentence(&cleaned)).trim_start();
    let value = first_token(s).filter(|t| t.start == 0)?.number.value;
    let by_value: Vec<char> = pairs
        .filter(|(_, o)| whole_number(o).is_some_and(|n| close(value, n.value)))
        .map(|(l, _)| *l)
        .collect();
    match by_value.as_slice() {
        [one] => Some(*one),
        _ => None,
    }
}

/// The whole (trimmed) text as one capital letter, optionally parenthesised and followed by
/// `.` or `:`.
fn whole_letter(t: &str) -> Option<char> {
    let t = t.strip_suffix(['.', ':']).unwrap_or(t);
    let t = t
        .strip_prefix('(')
        .and_then(|x| x.strip_suffix(')'))
        .unwrap_or(t);
    let mut chars = t.chars();
    match (chars.next(), chars.next()) {
        (Some(c), None) if c.is_ascii_uppercase() => Some(c),
        _ => None,
    }
}

/// The last "option X" / "choice X" (either case for the word, whole word, capital allowed
/// `X` not followed by a letter).
fn last_option_word(text: &str, letters: &[char]) -> Option<char> {
    let b = text.as_bytes();
    let mut best = None;
    for (i, c) in text.char_indices() {
        if !matches!(c, 'o' | 'O' | 'c' | 'C') {
            continue;
        }
        for word in ["option", "choice"] {
            let end = i + word.len();
            let hit = b
                .get(i..end)
                .is_some_and(|s| s.eq_ignore_ascii_case(word.as_bytes()))
                && !text
                    .get(..i)
                    .and_then(|p| p.chars().next_back())
                    .is_some_and(char::is_alphanumeric);
            if !hit {
                continue;
            }
            let mut k = end;
            while b.get(k) == Some(&b' ') {
                k += 1;
            }
            if k == end {
                continue;
            }
            if let Some(&l) = b.get(k) {
                let l = char::from(l);
                let followed = text
                    .get(k + 1..)
                    .and_then(|r| r.chars().next())
                    .is_some_and(char::is_alphabetic);
                if l.is_ascii_uppercase() && letters.contains(&l) && !followed {
                    best = Some(l);
                }
            }
        }
    }
    best
}

/// `lenient_choice`: the last allowed capital letter with no letter or digit on either side.
fn last_standalone_capital(text: &str, letters: &[char]) -> Option<char> {
    let chars: Vec<char> = text.chars().collect();
    let alnum = |k: Option<&char>| k.is_some_and(|c| c.is_alphanumeric());
    (0..chars.len()).rev().find_map(|i| {
        let c = *chars.get(i)?;
        let standalone =
            !alnum(i.checked_sub(1).and_then(|p| chars.get(p))) && !alnum(chars.get(i + 1));
        (letters.contains(&c) && standalone).then_some(c)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    const ABCD: [char; 4] = ['A', 'B', 'C', 'D'];

    fn p(seg: &str) -> Parsed<char> {
        parse_candidate(seg, &ABCD, &[])
    }

    #[test]
    fn leading_letters_and_hedges() {
        assert_eq!(p("(B)."), Parsed::Answer('B'));
        assert_eq!(p("[c] maybe"), Parsed::Answer('C'));
        assert_eq!(p("C) 3"), Parsed::Answer('C'));
        assert_eq!(p("Option D: because"), Parsed::Answer('D'));
        assert_eq!(p("`B`"), Parsed::Answer('B'));
        assert_eq!(p("(A) or (C)."), Parsed::Hedge);
        assert_eq!(p("A, or C"), Parsed::Hedge);
        assert_eq!(p("(A)/(b)"), Parsed::Hedge);
        assert_eq!(p("A/B"), Parsed::Invalid);
        assert_eq!(p("B and Dogs"), Parsed::Answer('B'));
        assert_eq!(p("B or (b)"), Parsed::Answer('B'));
        assert_eq!(
            p("a trick question; the best option is (D)."),
            Parsed::Answer('D')
        );
        assert_eq!(p("either (A) or (C)"), Parsed::Hedge);
        assert_eq!(p("(E)."), Parsed::Invalid);
        assert_eq!(p("Because"), Parsed::Invalid);
        assert_eq!(p("é"), Parsed::Invalid);
    }

    #[test]
    fn option_text_and_value() {
        let opts: Vec<String> = ["21", "21.5", "22", "22.5", "23"].map(String::from).into();
        let l = ['A', 'B', 'C', 'D', 'E'];
        assert_eq!(parse_candidate("22.5", &l, &opts), Parsed::Answer('D'));
        assert_eq!(
            parse_candidate("$22.50 in total.", &l, &opts),
            Parsed::Answer('D')
        );
        assert_eq!(parse_candidate("not 21 but 22", &l, &opts), Parsed::Invalid);
        let words: Vec<String> = ["Paris", "Rome"].map(String::from).into();
        assert_eq!(
            parse_candidate("rome.", &['A', 'B'], &words),
            Parsed::Answer('B')
        );
    }

    #[test]
    fn fallbacks() {
        assert_eq!(
            fallback("Between (A) and (C), I choose (c).", &ABCD, false),
            Some('C')
        );
        assert_eq!(fallback(" (B): ", &ABCD, false), Some('B'));
        assert_eq!(fallback("I pick option C here", &ABCD, false), Some('C'));
        assert_eq!(fallback("A careful analysis.", &ABCD, false), None);
        assert_eq!(fallback("A careful analysis.", &ABCD, true), Some('A'));
        assert_eq!(fallback("Überall D", &ABCD, true), Some('D'));
        assert_eq!(fallback("", &ABCD, true), None);
    }
}
