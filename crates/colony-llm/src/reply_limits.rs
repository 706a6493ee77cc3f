//! How the offline models (simulated, scripted) honour a request's stop sequences and
//! `max_tokens`, as a server would: one rule for both.

use super::{ChatRequest, FinishReason};

/// `text` cut at the first stop sequence and at `max_tokens` (about four characters per
/// token), with the finish reason a server would give.
pub(crate) fn apply_limits(mut text: String, r: &ChatRequest) -> (String, FinishReason) {
    if let Some(cut) = r
        .sampling
        .stop
        .iter()
        .filter(|s| !s.is_empty())
        .filter_map(|s| text.find(s))
        .min()
    {
        text.truncate(cut);
    }
    if let Some(max) = r.sampling.max_tokens {
        let max_chars = usize::try_from(u64::from(max) * 4).unwrap_or(usize::MAX);
        if let Some((idx, _)) = text.char_indices().nth(max_chars) {
            text.truncate(idx);
            return (text, FinishReason::Length);
        }
    }
    (text, FinishReason::Stop)
}
