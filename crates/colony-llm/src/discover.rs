//! Which model an endpoint serves, asked when `--base-url` comes without `--model`.
//!
//! Decision: a run pointed at a server without a model name asks the
//! server's `GET /models` (llama-server, vLLM and `serve-mock` all answer it) instead of sending
//! a made-up name that a real server rejects with 404. One model listed: it is used, under its
//! own id (so results name it). Several: an error listing them. None, or no answer: an error
//! saying to pass `--model`.

use super::{ModelError, ModelSpec};

/// Most model ids named in an error listing a server's models.
const MAX_LISTED: usize = 20;

/// The id of the one model `spec`'s first endpoint serves.
pub async fn discover_model(spec: &ModelSpec) -> Result<String, ModelError> {
    let client = spec.build_client()?;
    let Some((url, answer)) = client.check_endpoints().await.into_iter().next() else {
        return Err(ModelError::Config(
            "no endpoint to ask for its models; pass --base-url".into(),
        ));
    };
    let ids = answer.map_err(|e| {
        ModelError::Config(format!(
            "--base-url without --model: cannot ask {url}/models which model it serves ({e}); \
             pass --model NAME"
        ))
    })?;
    match ids.as_slice() {
        [one] => Ok(one.clone()),
        [] => Err(ModelError::Config(format!(
            "--base-url without --model: {url}/models lists no model; pass --model NAME"
        ))),
        many => {
            let shown: Vec<String> = many
                .iter()
                .take(MAX_LISTED)
                .map(|m| colony_env_api::clip(m))
                .collect();
            let more = many.len().saturating_sub(MAX_LISTED);
            let tail = if more > 0 {
                format!(" (and {more} more)")
            } else {
                String::new()
            };
            Err(ModelError::Config(format!(
                "--base-url without --model: {url} serves {} models: {}{tail}; pass --model NAME",
                many.len(),
                shown.join(", ")
            )))
        }
    }
}
