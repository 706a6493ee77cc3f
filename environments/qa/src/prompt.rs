//! Zero-shot prompts per dataset (docs/design/grading.md §4.2), from the templates in the crate's
//! `prompts/` folder (`environments/qa/prompts/`).
//!
//! The templates are compiled into the crate so a prompt never depends on the working
//! directory; [`template_hash`] lets run manifests record which wording produced a result.

use minijinja::Environment;
use sha2::{Digest, Sha256};

use crate::{AnswerType, Item};

/// `prompts/math.jinja` (in this crate): final answer in `\boxed{}` (`SUFFIX_MATH`).
pub const MATH_TEMPLATE: &str = include_str!("../prompts/math.jinja");
/// `prompts/choice.jinja` (in this crate): "The answer is (X)" (`SUFFIX_CHOICE`).
pub const CHOICE_TEMPLATE: &str = include_str!("../prompts/choice.jinja");

/// `prompts/code.jinja` (in this crate): the function's signature and docstring as the
/// official HumanEval harness gives them, inside a fence, asking for the whole function in one
/// fenced block (what [`crate::grade::extract_completion`] reads).
pub const CODE_TEMPLATE: &str = include_str!("../prompts/code.jinja");

/// `prompts/code_task.jinja` (in this crate): an MBPP-style task (a description and the
/// tests the program must pass, as the MBPP paper prompts it: the item's question holds
/// both), asking for the whole program in one fenced block.
pub const CODE_TASK_TEMPLATE: &str = include_str!("../prompts/code_task.jinja");

/// The template an answer type is asked with: a code item with an entry point completes a
/// function (HumanEval), one without is a task its tests check (MBPP).
pub fn template_for(answer_type: &AnswerType) -> &'static str {
    match answer_type {
        AnswerType::Choice { .. } => CHOICE_TEMPLATE,
        AnswerType::Code { entry_point, .. } if entry_point.is_empty() => CODE_TASK_TEMPLATE,
        AnswerType::Code { .. } => CODE_TEMPLATE,
        _ => MATH_TEMPLATE,
    }
}

/// Hex SHA-256 of a template's text.
pub fn template_hash(template: &str) -> String {
    Sha256::digest(template.as_bytes())
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

impl Item {
    /// The zero-shot prompt of this item: its question and the answer-format instruction.
    pub fn prompt(&self) -> String {
        let template = template_for(&self.answer_type);
        let env = Environment::new();
        // The templates are fixed and only use `question`: rendering cannot fail; if it ever
        // did, the plain layout below is the same text.
        env.render_str(template, minijinja::context! { question => &self.question })
            .unwrap_or_else(|_| fallback(template, &self.question))
    }
}

fn fallback(template: &str, question: &str) -> String {
    template
        .replace("{{ question }}", question)
        .trim_end_matches('\n')
        .to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn item(answer_type: AnswerType) -> Item {
        Item {
            id: "0".into(),
            question: "What is {{ 1 + 1 }}? Use 50% {braces}.".into(),
            choices: vec![],
            gold: "2".into(),
            answer_type,
            meta: Default::default(),
        }
    }

    #[test]
    fn prompts_end_with_the_spec_suffixes() {
        let p = item(AnswerType::Numeric).prompt();
        assert_eq!(
            p,
            "What is {{ 1 + 1 }}? Use 50% {braces}.\n\nReason step by step, then give the final answer inside \\boxed{}."
        );
        let c = item(AnswerType::Choice {
            options: vec!["1".into(), "2".into()],
        })
        .prompt();
        assert!(c.ends_with("finish with a line of the form \"The answer is (X)\", where X is the letter of the correct option."));
        assert_eq!(fallback(MATH_TEMPLATE, "Q"), item_text("Q"));
        assert_eq!(template_hash(MATH_TEMPLATE).len(), 64);
    }

    fn item_text(q: &str) -> String {
        format!("{q}\n\nReason step by step, then give the final answer inside \\boxed{{}}.")
    }
}
