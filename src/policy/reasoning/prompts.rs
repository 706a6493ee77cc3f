//! The policies' prompt templates (`prompts/cot/`, `prompts/debate/`, `prompts/selforg/`),
//! compiled into the binary and rendered with minijinja, so wording lives in one file per
//! prompt and a run's prompts never depend on the working directory.

use minijinja::Environment;
use serde::Serialize;

use super::PolicyError;

/// `prompts/cot/cot.jinja`: question, the step-by-step sentence, the answer-format suffix.
pub const COT: &str = include_str!("../../../prompts/cot/cot.jinja");
/// `prompts/debate/update.jinja`: the other agents' solutions and the request to update.
pub const DEBATE_UPDATE: &str = include_str!("../../../prompts/debate/update.jinja");
/// `prompts/selforg/collaborate.jinja`: an agent's collaboration-round prompt (spec §1.10).
pub const SELFORG_COLLABORATE: &str = include_str!("../../../prompts/selforg/collaborate.jinja");

/// Renders `template` with `context`; the text of values is inserted verbatim (no escaping,
/// and template syntax inside values is not interpreted).
pub fn render(template: &str, context: impl Serialize) -> Result<String, PolicyError> {
    Environment::new()
        .render_str(template, context)
        .map_err(|e| PolicyError::Config(format!("prompt template: {e}")))
}

#[cfg(test)]
mod tests {
    use super::*;
    use minijinja::context;

    #[test]
    fn values_are_inserted_verbatim() {
        let text = render(
            COT,
            context! { question => "What is {{ x }} & <y>?", suffix => "!" },
        )
        .unwrap();
        assert_eq!(text, "What is {{ x }} & <y>?\n\nLet's think step by step.!");
    }

    #[test]
    fn a_broken_template_is_a_config_error() {
        let err = render("{% if %}", context! {}).unwrap_err().to_string();
        assert!(err.contains("prompt template"), "{err}");
    }
}
