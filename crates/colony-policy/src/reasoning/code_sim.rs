//! How colony's offline simulated model answers code items (docs/design/sandbox.md §4): the
//! answer it settled on (the reference solution with its accuracy, else a wrong one) in the
//! fenced block the code prompt asks for, so every reasoning policy runs on HumanEval offline
//! and its answers are graded by running them like a real model's.
//!
//! A wrong answer is one of the simulated model's ordinary wrong candidates (a small integer):
//! appended to the function's prompt it is a statement that leaves the function returning
//! `None`, so its tests fail as a wrong program's would.

use colony_llm::responder::{KeyedTurn, Responder};

/// The sentence the code prompt opens with (`colony_qa::CODE_TEMPLATE`).
pub const CODE_MARKER: &str = "Complete the following Python function.";

/// The sentence an MBPP-style task's prompt opens with (`colony_qa::CODE_TASK_TEMPLATE`).
pub const CODE_TASK_MARKER: &str = "Write a Python program for the following task.";

/// The responder of code prompts.
#[derive(Debug, Clone, Copy, Default)]
pub struct CodeResponder;

impl Responder for CodeResponder {
    fn name(&self) -> &str {
        "code"
    }

    fn keyed(&self, t: &KeyedTurn<'_>) -> Option<String> {
        if !is_code_turn(t.user) {
            return None;
        }
        let mut code = t.answer.to_string();
        if !code.ends_with('\n') {
            code.push('\n');
        }
        Some(format!(
            "Here is the completed function.\n```python\n{code}```\n"
        ))
    }
}

/// Whether a keyed turn asks about a code item: the code prompt itself, or a policy's own
/// prompt quoting the question (a debate round, a SelfOrg peer turn), which holds the
/// function's `def` line and its docstring.
///
/// Decision: the simulated model reads only the prompt, as a real model does; a question of
/// another dataset with both a `def ` line and a triple-quoted string would be answered with
/// code too, which no built-in dataset has.
fn is_code_turn(user: &str) -> bool {
    user.contains(CODE_MARKER)
        || user.contains(CODE_TASK_MARKER)
        || user.contains(colony_qa::CODE_TESTS_HEADER)
        || (user.lines().any(|l| l.trim_start().starts_with("def ")) && user.contains("\"\"\""))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_code_prompt_opens_with_the_marker() {
        assert!(colony_qa::CODE_TEMPLATE.starts_with(CODE_MARKER));
        assert!(colony_qa::CODE_TASK_TEMPLATE.starts_with(CODE_TASK_MARKER));
        assert!(is_code_turn(
            "Question:\ndef f(x):\n    \"\"\"Doc.\"\"\"\nPeers said …"
        ));
        assert!(!is_code_turn("What is 2 + 3? The answer is \\boxed{5}."));
    }
}
