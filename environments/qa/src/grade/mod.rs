//! The rule-based judge (docs/design/grading.md §4.3–4.7): named, composable extraction filters and
//! the equivalence rules per answer type.
//!
//! Filters, in order: [`preprocess`] (§4.4.1), strong [`candidates`] (boxed and answer
//! phrases, §4.4.2–3), the per-type parsers (numeric §4.5, math §4.6, choice §4.7) and the weak
//! fallbacks (§4.4.4). [`extract`], [`equivalent`] and [`grade`] compose them.

mod boxed;
mod candidates;
mod choice;
mod code;
mod judge;
mod latex;
mod math_equiv;
mod math_expr;
mod math_norm;
mod numeric;
mod preprocess;
mod rational;

pub use boxed::{
    boxed_candidates, brace_pairs, has_unterminated_box, last_boxed, matching_brace, pair_close,
    Boxed,
};
pub use candidates::{candidates, Candidate, Source};
pub use code::extract_completion;
pub use judge::{equivalent, extract, grade, Extraction, JudgeOptions, Verdict};
pub use math_norm::norm as normalize_math;
pub use preprocess::preprocess;
