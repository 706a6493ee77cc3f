//! Which part of a response SelfOrg embeds: `selforg:embed=full|tail|answer`
//! (docs/design/selforg.md §1.6).
//!
//! The spec's default embeds the whole response and lets the encoder truncate it. With a
//! 256-token encoder (all-MiniLM-L6-v2) a long chain of thought is then represented by its
//! opening, not by its answer, and ψ separates right from wrong answers weakly. The two other
//! windows:
//!
//! * `tail`: the last `T` tokens' worth of text, `T` = the embedder's
//!   [`max_input_tokens`](colony_llm::embed::Embedder::max_input_tokens) when it reports one, else
//!   [`DEFAULT_TAIL_TOKENS`] (256, MiniLM's limit). Tokens are counted by the rule colony uses
//!   wherever it has no tokenizer ([`colony_llm::approx_tokens`]: four characters per token),
//!   so the tail is the last `4·T` characters, with a word cut in half at its start dropped.
//! * `answer`: the final answer sentence plus the last paragraph. The **answer sentence** is
//!   the sentence holding the last answer marker (`\boxed{`, `answer is`, `answer:`, `####`,
//!   case-insensitive), or the last sentence when there is none; sentences end at `.`, `!` or
//!   `?` followed by white space, or at a line break. The **last paragraph** is the text after
//!   the last blank line; when the response has no blank line but several lines, its last
//!   non-empty line (LLMs and the simulated model write one step per line). When the answer
//!   sentence lies inside the last paragraph the paragraph alone is embedded, otherwise the
//!   sentence, a blank line and the paragraph.
//!
//! Empty responses stay empty (and get the zero vector, §1.6) whatever the window.

use std::fmt;

/// Tokens of the tail window when the embedder does not report its input limit.
pub const DEFAULT_TAIL_TOKENS: usize = 256;

/// Characters per token of colony's approximate token count ([`colony_llm::approx_tokens`]).
pub const APPROX_CHARS_PER_TOKEN: usize = 4;

/// Answer markers, lowercase, searched case-insensitively; the last one found wins.
const MARKERS: [&str; 4] = ["\\boxed{", "answer is", "answer:", "####"];

/// The part of each response SelfOrg embeds.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum EmbedInput {
    /// The whole response; the encoder truncates (the spec's default, §1.6).
    #[default]
    Full,
    /// The last `max_input_tokens` (else 256) tokens' worth of characters.
    Tail,
    /// The final answer sentence plus the last paragraph.
    Answer,
}

impl EmbedInput {
    /// Parses `full`, `tail` or `answer` (case-insensitive).
    pub fn parse(text: &str) -> Option<Self> {
        match text.trim().to_ascii_lowercase().as_str() {
            "full" => Some(Self::Full),
            "tail" => Some(Self::Tail),
            "answer" => Some(Self::Answer),
            _ => None,
        }
    }

    /// The option value: `full`, `tail` or `answer`.
    pub fn name(self) -> &'static str {
        match self {
            Self::Full => "full",
            Self::Tail => "tail",
            Self::Answer => "answer",
        }
    }

    /// The text to embed for `response`, with an encoder that reads at most `max_tokens`
    /// tokens (`None`: unknown, the tail takes [`DEFAULT_TAIL_TOKENS`]).
    pub fn select(self, response: &str, max_tokens: Option<usize>) -> String {
        match self {
            Self::Full => response.to_string(),
            Self::Tail => tail(
                response,
                max_tokens.unwrap_or(DEFAULT_TAIL_TOKENS).max(1) * APPROX_CHARS_PER_TOKEN,
            ),
            Self::Answer => answer_window(response),
        }
    }
}

impl fmt::Display for EmbedInput {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// The last `max_chars` characters of `text`, without a word cut in half at the start.
pub fn tail(text: &str, max_chars: usize) -> String {
    let chars = text.chars().count();
    if chars <= max_chars {
        return text.to_string();
    }
    let start = text
        .char_indices()
        .nth(chars - max_chars)
        .map_or(text.len(), |(i, _)| i);
    let cut_mid_word = text[..start]
        .chars()
        .next_back()
        .is_some_and(|c| !c.is_whitespace());
    let mut rest = &text[start..];
    if cut_mid_word {
        // Drop the partial word unless the window is one single word.
        if let Some(space) = rest.find(char::is_whitespace) {
            rest = &rest[space..];
        }
    }
    rest.trim_start().to_string()
}

/// Byte offset where the sentence holding byte `at` starts.
fn sentence_start(text: &str, at: usize) -> usize {
    let before = &text[..at];
    let mut start = 0;
    let mut prev: Option<(usize, char)> = None;
    for (i, c) in before.char_indices() {
        if c == '\n' {
            start = i + 1;
        } else if c.is_whitespace() && matches!(prev, Some((_, '.' | '!' | '?'))) {
            start = i;
        }
        prev = Some((i, c));
    }
    start
}

/// Byte offset where the sentence holding byte `at` ends (exclusive).
fn sentence_end(text: &str, at: usize) -> usize {
    let mut chars = text[at..].char_indices().peekable();
    while let Some((i, c)) = chars.next() {
        if c == '\n' {
            return at + i;
        }
        if matches!(c, '.' | '!' | '?') && chars.peek().is_none_or(|(_, n)| n.is_whitespace()) {
            return at + i + c.len_utf8();
        }
    }
    text.len()
}

/// The final answer sentence of `text` (see the module docs), trimmed.
pub fn answer_sentence(text: &str) -> &str {
    let body = text.trim_end();
    let lower = body.to_ascii_lowercase();
    let at = MARKERS
        .iter()
        .filter_map(|m| lower.rfind(m))
        .max()
        .or_else(|| {
            // No marker: the last sentence, i.e. the one holding the last character.
            body.char_indices().next_back().map(|(i, _)| i)
        });
    match at {
        Some(at) => body[sentence_start(body, at)..sentence_end(body, at)].trim(),
        None => "",
    }
}

/// The last paragraph of `text` (see the module docs), trimmed.
pub fn last_paragraph(text: &str) -> &str {
    let body = text.trim();
    // Byte offset just past the last blank line, if any.
    let mut offset = 0;
    let mut after_blank = None;
    for line in body.split_inclusive('\n') {
        offset += line.len();
        if line.trim().is_empty() {
            after_blank = Some(offset);
        }
    }
    match after_blank {
        Some(start) => body[start..].trim(),
        None => body
            .lines()
            .rev()
            .find(|l| !l.trim().is_empty())
            .map_or("", str::trim),
    }
}

/// `answer`: the final answer sentence plus the last paragraph (the paragraph alone when it
/// holds the sentence).
pub fn answer_window(text: &str) -> String {
    let paragraph = last_paragraph(text);
    let sentence = answer_sentence(text);
    if sentence.is_empty() || paragraph.contains(sentence) {
        paragraph.to_string()
    } else {
        format!("{sentence}\n\n{paragraph}")
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
mod tests {
    use super::*;
    use colony_llm::approx_tokens;

    #[test]
    fn parses_and_names() {
        for e in [EmbedInput::Full, EmbedInput::Tail, EmbedInput::Answer] {
            assert_eq!(EmbedInput::parse(e.name()), Some(e));
        }
        assert_eq!(EmbedInput::parse(" TAIL "), Some(EmbedInput::Tail));
        assert_eq!(EmbedInput::parse("head"), None);
        assert_eq!(EmbedInput::default(), EmbedInput::Full);
    }

    #[test]
    fn full_is_the_response() {
        let t = "a\n\nb The answer is 3.";
        assert_eq!(EmbedInput::Full.select(t, Some(2)), t);
    }

    #[test]
    fn tail_keeps_the_last_tokens_worth_of_whole_words() {
        // Short text: unchanged.
        assert_eq!(
            EmbedInput::Tail.select("The answer is 7.", None),
            "The answer is 7."
        );
        // 400 words of 9 characters plus a space: 4,000 characters; 256 tokens = 1,024.
        let words: Vec<String> = (0..400).map(|i| format!("word{i:05}")).collect();
        let text = format!("{} The answer is 42.", words.join(" "));
        let t = EmbedInput::Tail.select(&text, None);
        assert!(t.ends_with("The answer is 42."));
        assert!(t.chars().count() <= 1024, "{}", t.len());
        assert!(approx_tokens(&t) <= DEFAULT_TAIL_TOKENS as u64);
        assert!(
            t.chars().count() > 1024 - 10,
            "only a partial word is dropped"
        );
        assert!(t.starts_with("word"), "{t}");
        assert_eq!(t.split(' ').next().unwrap().len(), 9, "whole first word");
        // The embedder's own limit wins over the default.
        let t = EmbedInput::Tail.select(&text, Some(8));
        assert_eq!(
            t, "word00399 The answer is 42.",
            "32 characters, partial word dropped"
        );
        // A cut right after a space keeps the following word.
        assert_eq!(tail("abc def", 3), "def");
        assert_eq!(tail("abc def", 4), "def");
        assert_eq!(tail("abcdefgh", 3), "fgh", "one word: kept as is");
        // Characters, not bytes.
        assert_eq!(tail("ééé ààà", 3), "ààà");
    }

    #[test]
    fn answer_sentence_is_the_one_with_the_last_marker() {
        let t = "First we add. The answer is 12. But wait, recheck!\nSo \\boxed{13} it is. Done.";
        assert_eq!(answer_sentence(t), "So \\boxed{13} it is.");
        // Decimal points do not end sentences.
        assert_eq!(
            answer_sentence("We get 3.5 apples. Final answer: 3.5 apples. Thanks."),
            "Final answer: 3.5 apples."
        );
        // No marker: the last sentence.
        assert_eq!(answer_sentence("One. Two three.  "), "Two three.");
        assert_eq!(answer_sentence("x\n#### 72"), "#### 72");
        assert_eq!(answer_sentence(""), "");
    }

    #[test]
    fn last_paragraph_after_blank_line_else_last_line() {
        assert_eq!(
            last_paragraph("Intro.\n\nStep 1.\nStep 2.\n\n  Final part.\nMore.\n"),
            "Final part.\nMore."
        );
        assert_eq!(last_paragraph("a\r\n\r\nb\r\nc"), "b\r\nc");
        assert_eq!(last_paragraph("Line one.\nLine two.\n\n"), "Line two.");
        assert_eq!(last_paragraph("Only one line."), "Only one line.");
        assert_eq!(last_paragraph("   "), "");
    }

    #[test]
    fn answer_window_combines_sentence_and_paragraph() {
        // The simulated model's reply: one step per line, the answer last.
        let sim = "Let me work through this step by step.\nI combine them.\nThis gives 42, so \
                   the result is \\boxed{42}.\nThe answer is 42.";
        assert_eq!(EmbedInput::Answer.select(sim, None), "The answer is 42.");
        // The answer sits before a closing paragraph: both, sentence first.
        let cot = "Long reasoning about apples.\n\nSo the answer is 9. Let me double-check: \
                   nine apples.\n\nI hope this helps!";
        assert_eq!(
            EmbedInput::Answer.select(cot, Some(4)),
            "So the answer is 9.\n\nI hope this helps!"
        );
        // Inside the last paragraph: the paragraph alone.
        let cot = "Reasoning.\n\nTherefore 2 + 2 = 4. The answer is 4.";
        assert_eq!(
            EmbedInput::Answer.select(cot, None),
            "Therefore 2 + 2 = 4. The answer is 4."
        );
        assert_eq!(EmbedInput::Answer.select("", None), "");
        assert_eq!(EmbedInput::Answer.select("  \n ", None), "");
    }
}
