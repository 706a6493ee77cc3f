//! The order of the results table's columns and rows (docs/design/grading.md §5.3): the SelfOrg
//! paper's Table 1 order, so a colony table reads like the paper's.
//!
//! * **Datasets** (columns): MATH, GSM8K, AQUA-RAT, GSM-Hard, MMLU, MMLU-Pro, then GPQA (which
//!   the paper's large-model table puts between MMLU-Pro and AIME), then AIME; any other
//!   dataset after them, by name.
//! * **Methods** (rows): the prompting baselines (Single, CoT, then self-consistency and
//!   debate, which the paper's table does not have), the paper's multi-agent baselines in its
//!   order (DyLAN, MacNet, G-Designer, AgentVerse, AutoGen), then SelfOrg and SwarmSys; a
//!   variant (`selforg:gamma=0.9`, `selforg_tail`, …) right after its method, by name; unknown
//!   methods last, by name.

/// Dataset names (as `colony eval` records them) in column order.
pub const DATASET_ORDER: [&str; 8] = [
    "math",
    "gsm8k",
    "aqua-rat",
    "gsm-hard",
    "mmlu",
    "mmlu-pro",
    "gpqa",
    "aime-2024",
];

/// Method names (policy names, variants by prefix) in row order: colony's reasoning policies
/// in the order they are registered, which is the papers' table order (baselines, then SelfOrg
/// and SwarmSys). Decision: derived from the built-in table instead of a list of its own, so it
/// can neither name a policy that does not exist nor miss a new built-in; a plugin's policies
/// sort after them, by name.
pub fn method_order() -> impl Iterator<Item = &'static str> {
    colony_policy::registry::BUILTIN_REASONING
        .iter()
        .map(|entry| entry.0)
}

/// Sort key of a dataset column: its place in [`DATASET_ORDER`] (unknown ones after), then
/// its name.
pub fn dataset_key(name: &str) -> (usize, String) {
    let place = DATASET_ORDER.iter().position(|d| *d == name);
    (place.unwrap_or(DATASET_ORDER.len()), name.to_string())
}

/// Sort key of a method row: the place in [`method_order`] of the longest known name that is
/// the method or a prefix of it followed by `_` or `:` (a variant's label such as
/// `selforg:gamma=0.9`; unknown ones after), then its name.
pub fn method_key(name: &str) -> (usize, String) {
    let place = method_order()
        .enumerate()
        .filter(|(_, m)| {
            name == *m
                || name
                    .strip_prefix(*m)
                    .is_some_and(|rest| rest.starts_with('_') || rest.starts_with(':'))
        })
        .max_by_key(|(_, m)| m.len())
        .map(|(i, _)| i);
    (place.unwrap_or(usize::MAX), name.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paper_order_with_variants_and_unknowns_after() {
        let mut methods = vec![
            "zeta",
            "selforg",
            "swarmsys_exam",
            "agentverse",
            "cot",
            "selforg_tail",
            "macnet",
            "single",
            "dylan",
            "self_consistency",
            "debate",
            "swarmsys",
            "alpha",
        ];
        methods.sort_by_key(|m| method_key(m));
        assert_eq!(
            methods,
            [
                "single",
                "cot",
                "self_consistency",
                "debate",
                "dylan",
                "macnet",
                "agentverse",
                "selforg",
                "selforg_tail",
                "swarmsys",
                "swarmsys_exam",
                "alpha",
                "zeta"
            ]
        );
        let mut sets = vec!["aime-2024", "custom", "gsm8k", "gpqa", "math", "gsm-hard"];
        sets.sort_by_key(|d| dataset_key(d));
        assert_eq!(
            sets,
            ["math", "gsm8k", "gsm-hard", "gpqa", "aime-2024", "custom"]
        );
    }
}
