//! A policy spec with its label: what one row of a results table, one results file and one
//! resume key stand for.
//!
//! Decision: every spec of a `--policy` list (and of a suite's `policies`) is
//! its own row, labelled by the spec as written (`self_consistency:k=3`) or by its `label=`
//! option (`selforg:gamma=0.9,label=selforg_g09`). Labels, not the policy's base name, key the
//! results files (`<label>.jsonl`), shards and resume, so two variants of one policy can never
//! share a file and silently skip each other's items. The label is whitespace-normalized (each
//! part trimmed) and must be usable as a file name; `--rounds` is added to the spec, never to
//! the label, so the recorded options (see [`PolicySpec::options`]) tell two runs of one label
//! apart.

use std::collections::BTreeMap;

use colony_env_api::clip;
use serde::{Deserialize, Serialize};
use thiserror::Error;

/// The longest label accepted (it becomes a file name).
pub const MAX_LABEL_LEN: usize = 120;

/// One policy of a list: its label and the spec the policy is built from (`label=` removed).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PolicySpec {
    /// Row name, results-file stem and resume key.
    pub label: String,
    /// The spec given to the policy registry (`name` or `name:key=value,…`, no `label=`).
    pub spec: String,
}

/// Errors of a policy list.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
#[non_exhaustive]
pub enum SpecError {
    /// Two specs of one list have the same label.
    #[error(
        "policies `{first}` and `{second}` are both labelled `{label}`: give one of them \
         another `label=` option"
    )]
    DuplicateLabel {
        /// The label.
        label: String,
        /// The first spec with it.
        first: String,
        /// The second spec with it.
        second: String,
    },
    /// A label that cannot name a results file.
    #[error("policy `{spec}`: label `{label}` {reason}")]
    BadLabel {
        /// The spec (clipped).
        spec: String,
        /// The label (clipped).
        label: String,
        /// What is wrong with it.
        reason: &'static str,
    },
}

impl PolicySpec {
    /// Parses one spec: takes out a `label=` option and labels the rest by itself otherwise.
    pub fn parse(text: &str) -> Result<Self, SpecError> {
        let (name, rest) = match text.split_once(':') {
            Some((n, r)) => (n.trim(), r),
            None => (text.trim(), ""),
        };
        let mut label = None;
        let mut options: Vec<String> = Vec::new();
        for part in rest.split(',').map(str::trim).filter(|p| !p.is_empty()) {
            match part.split_once('=') {
                Some((k, v)) if k.trim() == "label" => label = Some(v.trim().to_string()),
                Some((k, v)) => options.push(format!("{}={}", k.trim(), v.trim())),
                // Malformed parts go to the registry, whose error names them.
                None => options.push(part.to_string()),
            }
        }
        let spec = if options.is_empty() {
            name.to_string()
        } else {
            format!("{name}:{}", options.join(","))
        };
        let label = label.unwrap_or_else(|| spec.clone());
        check_label(&spec, &label)?;
        Ok(Self { label, spec })
    }

    /// Parses a policy list (see [`super::split_policy_list`]), adds `rounds=T` to the specs
    /// of policies with rounds that do not set it (`--rounds`, a suite's `rounds`), and
    /// refuses two specs with one label.
    pub fn list(list: &str, rounds: Option<u32>) -> Result<Vec<Self>, SpecError> {
        let mut out: Vec<Self> = Vec::new();
        for text in super::split_policy_list(list) {
            let mut p = Self::parse(&text)?;
            p.spec = with_rounds(&p.spec, rounds);
            if let Some(first) = out.iter().find(|q| q.label == p.label) {
                return Err(SpecError::DuplicateLabel {
                    label: p.label,
                    first: first.spec.clone(),
                    second: p.spec,
                });
            }
            out.push(p);
        }
        Ok(out)
    }

    /// The policy name of the spec (`selforg` of `selforg:gamma=0.9`).
    pub fn name(&self) -> &str {
        self.spec.split_once(':').map_or(&self.spec, |(n, _)| n)
    }

    /// The options as a map, the form two runs of a label are compared in (order and spacing
    /// of the options do not matter).
    pub fn options(&self) -> BTreeMap<String, String> {
        self.spec
            .split_once(':')
            .map(|(_, rest)| {
                rest.split(',')
                    .filter_map(|p| p.split_once('='))
                    .map(|(k, v)| (k.trim().to_string(), v.trim().to_string()))
                    .collect()
            })
            .unwrap_or_default()
    }
}

/// `spec` with `rounds=T` for debate and SelfOrg specs that do not set their own.
fn with_rounds(spec: &str, rounds: Option<u32>) -> String {
    match rounds {
        Some(t)
            if (spec.starts_with("debate") || spec.starts_with("selforg"))
                && !spec.contains("rounds=") =>
        {
            if spec.contains(':') {
                format!("{spec},rounds={t}")
            } else {
                format!("{spec}:rounds={t}")
            }
        }
        _ => spec.to_string(),
    }
}

/// `name` as one component of a path under an output directory: unchanged when it is a valid
/// label (see [`check_label`]), else with every `/`, `\\` and control character replaced by
/// `_`, a leading `.` or an empty name prefixed with `_`, and cut to [`MAX_LABEL_LEN`] bytes.
/// Every name read from a run's files (labels, configurations, policies) goes through it
/// before it becomes a path, so no file can steer a write or read outside the directory.
///
/// Decision: it is the one sanitizer of path components: episode, unit, suite and report
/// names all go through it, so a label names the same directory in `compare`, `eval` and a
/// suite, and two different valid labels never share one (an ASCII-only mapping would merge
/// `a b` and `a_b`). A suite directory written before this change under a label with other
/// characters (`llama3:8b` was `llama3_8b`) is not renamed: a rerun writes the new name.
pub fn file_component(name: &str) -> String {
    if check_label(name, name).is_ok() {
        return name.to_string();
    }
    let mut out = String::new();
    if name.is_empty() || name.starts_with('.') {
        out.push('_');
    }
    for c in name.chars() {
        if out.len() + c.len_utf8() > MAX_LABEL_LEN {
            break;
        }
        out.push(if c == '/' || c == '\\' || c.is_control() {
            '_'
        } else {
            c
        });
    }
    out
}

/// A label must name a file in the output directory: not empty, not hidden, no path
/// separator or control character, bounded.
fn check_label(spec: &str, label: &str) -> Result<(), SpecError> {
    let reason = if label.is_empty() {
        Some("is empty")
    } else if label.len() > MAX_LABEL_LEN {
        Some("is longer than 120 bytes")
    } else if label.starts_with('.') {
        Some("must not start with `.`")
    } else if label
        .chars()
        .any(|c| c == '/' || c == '\\' || c.is_control())
    {
        Some("must not contain `/`, `\\` or control characters")
    } else {
        None
    };
    match reason {
        None => Ok(()),
        Some(reason) => Err(SpecError::BadLabel {
            spec: clip(spec),
            label: clip(label),
            reason,
        }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn labels(list: &str, rounds: Option<u32>) -> Vec<(String, String)> {
        PolicySpec::list(list, rounds)
            .unwrap()
            .into_iter()
            .map(|p| (p.label, p.spec))
            .collect()
    }

    fn pair(a: &str, b: &str) -> (String, String) {
        (a.to_string(), b.to_string())
    }

    #[test]
    fn variants_get_their_own_labels() {
        assert_eq!(
            labels("self_consistency:k=3;self_consistency:k=5", None),
            [
                pair("self_consistency:k=3", "self_consistency:k=3"),
                pair("self_consistency:k=5", "self_consistency:k=5")
            ]
        );
        assert_eq!(
            labels("selforg;selforg:gamma=0.9, label = g09", None),
            [pair("selforg", "selforg"), pair("g09", "selforg:gamma=0.9")]
        );
        assert_eq!(
            labels("debate , selforg:k=2", Some(3)),
            [
                pair("debate", "debate:rounds=3"),
                pair("selforg:k=2", "selforg:k=2,rounds=3")
            ]
        );
        assert_eq!(labels("sc: k = 3 ", None), [pair("sc:k=3", "sc:k=3")]);
    }

    #[test]
    fn duplicate_and_bad_labels_are_refused() {
        let e = PolicySpec::list("debate;debate", None).unwrap_err();
        assert!(matches!(e, SpecError::DuplicateLabel { .. }), "{e}");
        let e = PolicySpec::list("single:label=x;cot:label=x", None)
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("`single`") && e.contains("`cot`") && e.contains("`x`"),
            "{e}"
        );
        for bad in [
            "single:label=../x",
            "single:label=.hidden",
            "single:label=a\\b",
        ] {
            assert!(
                matches!(PolicySpec::parse(bad), Err(SpecError::BadLabel { .. })),
                "{bad}"
            );
        }
        let long = format!("single:label={}", "x".repeat(200));
        assert!(PolicySpec::parse(&long).is_err());
    }

    #[test]
    fn options_ignore_order_and_spacing() {
        let a = PolicySpec::parse("selforg:gamma=0.9,k=2").unwrap();
        let b = PolicySpec::parse("selforg: k=2 , gamma=0.9").unwrap();
        assert_eq!(a.options(), b.options());
        assert_eq!(a.name(), "selforg");
        assert_ne!(
            a.options(),
            PolicySpec::parse("selforg:k=2").unwrap().options()
        );
    }

    #[test]
    fn one_sanitizer_keeps_valid_labels_and_never_merges_them() {
        // Valid labels name themselves, so `a b` and `a_b` stay two directories.
        for label in [
            "a b",
            "a_b",
            "llama3:8b",
            "camon:structured=true",
            "Ünïcode",
        ] {
            assert_eq!(file_component(label), label);
        }
        assert_ne!(file_component("a b"), file_component("a_b"));
        // What could leave the directory or hide in it is replaced.
        assert_eq!(file_component("openai/gpt-4o"), "openai_gpt-4o");
        assert_eq!(file_component("../up"), "_.._up");
        assert_eq!(file_component(""), "_");
        assert_eq!(file_component("a\nb"), "a_b");
        assert!(file_component(&"é".repeat(100)).len() <= MAX_LABEL_LEN);
    }
}
