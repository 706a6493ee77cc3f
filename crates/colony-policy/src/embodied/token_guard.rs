//! The embodied calls' token guard (WILDFIRE-ORCH `core/token_guard.py`): when the
//! model refuses a prompt as longer than its context ([`colony_llm::ModelError::ContextOverflow`],
//! raised before anything is sent), the middle of the longest message is cut out, its head and
//! tail kept with a marker between them, until the prompt fits the context less the reply's
//! room, at most [`MAX_PASSES`] times; the call is then made once more.
//!
//! Decisions: sizes are colony's estimate (4 characters per token, the client's own check), so
//! the cut prompt passes that check; the reply's room is the embodied calls' completion cap
//! ([`super::caller::EMBODIED_SAMPLING`], where the official guard reserves 4,096), at most a
//! quarter of the context (small local models have contexts of a few thousand tokens); a prompt
//! that still does not fit fails as before. A cut prompt is recorded on its call
//! (`truncated` in `calls.jsonl`) and counted as a fallback of the episode: never silent.

use serde::{Deserialize, Serialize};

use colony_llm::approx_tokens;

/// Cuts at most this many times (the official guard's passes).
pub const MAX_PASSES: usize = 12;

/// What replaces the cut middle of a message.
pub const MARKER: &str = "\n[… the middle of this text was cut to fit the model's context …]\n";

/// How a prompt was cut to fit: its estimated size before and after, in tokens.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Truncated {
    /// The prompt's estimated tokens as built.
    pub from_tokens: u64,
    /// The estimated tokens after the cuts.
    pub to_tokens: u64,
}

/// Estimated prompt tokens of a (system, user) pair, framing included (as
/// [`colony_llm::approx_prompt_tokens`] counts it).
fn estimate(system: &str, user: &str) -> u64 {
    let framed = |t: &str| approx_tokens(t) + 4;
    if system.is_empty() {
        framed(user)
    } else {
        framed(system) + framed(user)
    }
}

/// `text` with its middle cut so it is about `drop` characters shorter (the marker counted),
/// head and tail of equal length kept; `None` when nothing would be left around the marker.
fn cut_middle(text: &str, drop: usize) -> Option<String> {
    let chars: Vec<char> = text.chars().collect();
    let keep = chars
        .len()
        .checked_sub(drop + MARKER.chars().count())
        .filter(|&k| k >= 2)?;
    let head = keep / 2;
    let tail = keep - head;
    let mut out: String = chars[..head].iter().collect();
    out.push_str(MARKER);
    out.extend(&chars[chars.len() - tail..]);
    Some(out)
}

/// `(system, user)` cut to fit `budget` estimated tokens (see the module docs): the cut pair
/// and how much it was cut, or `None` when it cannot fit in [`MAX_PASSES`] cuts.
pub fn fit(system: &str, user: &str, budget: u64) -> Option<(String, String, Truncated)> {
    let from_tokens = estimate(system, user);
    let (mut system, mut user) = (system.to_string(), user.to_string());
    for _ in 0..MAX_PASSES {
        let now = estimate(&system, &user);
        if now <= budget {
            let to_tokens = now;
            return Some((
                system,
                user,
                Truncated {
                    from_tokens,
                    to_tokens,
                },
            ));
        }
        // Four characters a token, and a little more so one pass usually suffices.
        let drop = usize::try_from((now - budget) * 4 + 16).ok()?;
        let (longest, other) = if system.chars().count() > user.chars().count() {
            (&mut system, &mut user)
        } else {
            (&mut user, &mut system)
        };
        if let Some(cut) = cut_middle(longest, drop) {
            *longest = cut;
            continue;
        }
        // The longest message cannot lose that much: keep only its ends, then cut the other.
        match ends_only(longest) {
            Some(ends) => *longest = ends,
            None => *other = cut_middle(other, drop).or_else(|| ends_only(other))?,
        }
    }
    None
}

/// `text` cut to its first and last characters around the marker, when that is shorter.
fn ends_only(text: &str) -> Option<String> {
    let n = text.chars().count();
    let minimum = MARKER.chars().count() + 2;
    (n > minimum)
        .then(|| cut_middle(text, n - minimum))
        .flatten()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_longest_message_loses_its_middle_until_the_prompt_fits() {
        let system = "s".repeat(400);
        let user = format!("HEAD {} TAIL", "x".repeat(40_000));
        let (s, u, t) = fit(&system, &user, 2_000).unwrap();
        assert_eq!(s, system, "the shorter message is kept");
        assert!(u.starts_with("HEAD ") && u.ends_with(" TAIL") && u.contains(MARKER));
        assert!(estimate(&s, &u) <= 2_000);
        assert_eq!(t.from_tokens, estimate(&system, &user));
        assert_eq!(t.to_tokens, estimate(&s, &u));
        // A prompt that fits is returned as it is, with nothing cut.
        let (s2, u2, t2) = fit("a", "b", 100).unwrap();
        assert_eq!(
            (s2.as_str(), u2.as_str(), t2.from_tokens),
            ("a", "b", t2.to_tokens)
        );
        // Multi-byte text is cut on character boundaries.
        let (_, u3, _) = fit("", &"é".repeat(10_000), 500).unwrap();
        assert!(u3.contains(MARKER) && estimate("", &u3) <= 500);
    }

    #[test]
    fn when_the_longest_cannot_absorb_the_cut_the_other_is_cut_too() {
        let system = "s".repeat(3_000);
        let user = "u".repeat(2_800);
        let (s, u, _) = fit(&system, &user, 300).unwrap();
        assert!(estimate(&s, &u) <= 300, "{} {}", s.len(), u.len());
        assert!(s.contains(MARKER) && u.contains(MARKER));
    }

    #[test]
    fn a_budget_too_small_for_anything_is_refused() {
        assert_eq!(fit("system", "user", 3), None);
        assert_eq!(fit(&"s".repeat(100), &"u".repeat(100), 10), None);
    }
}
