//! The policies' prompt templates (`prompts/cot/`, `prompts/debate/`, `prompts/selforg/`),
//! compiled into the binary and rendered with minijinja, so wording lives in one file per
//! prompt and a run's prompts never depend on the working directory.

use std::sync::{OnceLock, PoisonError, RwLock};

use minijinja::{AutoEscape, Environment};
use serde::Serialize;

use super::PolicyError;

/// `prompts/cot/cot.jinja`: question, the step-by-step sentence, the answer-format suffix.
pub const COT: &str = include_str!("../../../../prompts/cot/cot.jinja");
/// `prompts/debate/update.jinja`: the other agents' solutions and the request to update.
pub const DEBATE_UPDATE: &str = include_str!("../../../../prompts/debate/update.jinja");
/// `prompts/selforg/collaborate.jinja`: an agent's collaboration-round prompt
/// (docs/design/selforg.md §1.10).
pub const SELFORG_COLLABORATE: &str = include_str!("../../../../prompts/selforg/collaborate.jinja");

/// Renders `template` with `context`; the text of values is inserted verbatim (no escaping,
/// and template syntax inside values is not interpreted).
///
/// Templates are compiled once per process and kept: every template is a `'static` constant
/// compiled into the binary, so the cache is bounded by their number, and an embodied
/// framework renders the same template thousands of times per episode (parsing it each time
/// was a tenth of the orchestration CPU per call).
pub fn render(template: &'static str, context: impl Serialize) -> Result<String, PolicyError> {
    let error = PolicyError::Template;
    let cache = compiled();
    {
        let env = cache.read().unwrap_or_else(PoisonError::into_inner);
        if let Ok(t) = env.get_template(template) {
            return t.render(context).map_err(error);
        }
    }
    let mut env = cache.write().unwrap_or_else(PoisonError::into_inner);
    // The source is its own name: unique per template and already 'static.
    env.add_template(template, template).map_err(error)?;
    let t = env.get_template(template).map_err(error)?;
    t.render(context).map_err(error)
}

/// The process-wide environment holding every template rendered so far.
fn compiled() -> &'static RwLock<Environment<'static>> {
    static COMPILED: OnceLock<RwLock<Environment<'static>>> = OnceLock::new();
    COMPILED.get_or_init(|| {
        let mut env = Environment::new();
        // Names are template sources, so no extension may switch escaping on.
        env.set_auto_escape_callback(|_| AutoEscape::None);
        RwLock::new(env)
    })
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
        // A template that failed to compile is not cached as if it worked.
        let again = render("{% if %}", context! {}).unwrap_err().to_string();
        assert_eq!(err, again);
    }

    #[test]
    fn a_cached_template_renders_each_context() {
        let a = render(COT, context! { question => "one", suffix => "" }).unwrap();
        let b = render(COT, context! { question => "two", suffix => "" }).unwrap();
        assert!(a.starts_with("one") && b.starts_with("two"), "{a} {b}");
        let html = render("<b>{{ x }}</b>", context! { x => "<&>" }).unwrap();
        assert_eq!(html, "<b><&></b>");
    }
}
