//! Coordination policies, one file each: `reasoning/` (single, cot, self_consistency, debate,
//! selforg, …) and `embodied/` (independent, scripted built-ins; later camon, coela,
//! embodied, hmas2, …).

pub mod embodied;
pub mod env;
mod options;
pub mod reasoning;
pub mod registry;
pub mod selforg;
mod spec;
pub mod swarmsys;
mod templates;

pub use options::{choice, OptionError, PolicyOptions};
pub use spec::{file_component, PolicySpec, SpecError, MAX_LABEL_LEN};
pub use templates::TEMPLATES;

/// Splits a policy list as `--policy`/`--policies` spell it: `;` separates policies when
/// present; otherwise commas do, except that a `key=value` part continues the options of
/// the policy before it (`debate:agents=3,rounds=2,single` is two policies).
pub fn split_policy_list(list: &str) -> Vec<String> {
    let raw: Vec<String> = if list.contains(';') {
        list.split(';').map(|s| s.trim().to_string()).collect()
    } else {
        let mut out: Vec<String> = Vec::new();
        for part in list.split(',') {
            let part = part.trim();
            match out.last_mut() {
                Some(last) if last.contains(':') && part.contains('=') && !part.contains(':') => {
                    last.push(',');
                    last.push_str(part);
                }
                _ => out.push(part.to_string()),
            }
        }
        out
    };
    raw.into_iter().filter(|s| !s.is_empty()).collect()
}
