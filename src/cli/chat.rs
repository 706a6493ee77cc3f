//! `colony chat`: send one prompt to a model and print the reply.

use std::io::Read;
use std::path::Path;

use crate::llm::{ChatRequest, Message, UsageLedger};
use anyhow::Context;
use clap::Args;
use serde_json::json;

use super::model_args::ModelArgs;

/// Arguments of `colony chat`.
#[derive(Args, Debug)]
pub struct ChatArgs {
    #[command(flatten)]
    #[allow(missing_docs)]
    // documented by the flattened/subcommand type's own docs (clap help)
    pub model: ModelArgs,
    /// Print one JSON object with `text`, `usage`, `model`, `finish_reason`, `latency_ms`, `retries`.
    #[arg(long)]
    pub json: bool,
    /// System prompt.
    #[arg(long)]
    pub system: Option<String>,
    /// Sampling seed (sent to the server; seeds the simulated model's draw).
    #[arg(long)]
    pub seed: Option<u64>,
    /// The prompt; `-` reads it from standard input.
    pub prompt: String,
}

/// Runs `colony chat`.
pub async fn run(
    args: ChatArgs,
    config: Option<&Path>,
    registry: &crate::registry::Registry,
) -> anyhow::Result<()> {
    let prompt = if args.prompt == "-" {
        let mut s = String::new();
        std::io::stdin()
            .read_to_string(&mut s)
            .context("reading the prompt from stdin")?;
        s
    } else {
        args.prompt.clone()
    };
    // The flags over the model's models.toml keys; no built-in default (the server's applies).
    let sampling = args.model.spec(config)?.sampling;
    let model = args.model.build(config, &registry.responders())?;
    let mut messages = Vec::new();
    if let Some(system) = &args.system {
        messages.push(Message::system(system.clone()));
    }
    messages.push(Message::user(prompt));
    let mut request = ChatRequest::new(messages).with_sampling(sampling);
    request.sampling.seed = args.seed;
    tracing::info!(model = model.id(), "sending prompt");
    let response = model.chat(&request).await?;
    let ledger = UsageLedger::new();
    ledger.record("chat", &response);
    tracing::debug!(usage = ?ledger.report().run, "call finished");
    if args.json {
        let out = json!({
            "text": response.text,
            "usage": {
                "prompt_tokens": response.usage.prompt_tokens,
                "completion_tokens": response.usage.completion_tokens,
                "total_tokens": response.usage.total(),
            },
            "model": response.model,
            "finish_reason": response.finish_reason.as_api(),
            "latency_ms": response.latency.as_secs_f64() * 1000.0,
            "retries": response.retries,
            "cached": response.cached,
        });
        println!("{out}");
    } else {
        println!("{}", response.text);
    }
    Ok(())
}
