//! `colony models`: list configured models and check that each endpoint answers.

use std::path::Path;

use crate::llm::{redact_url, ModelKind, ModelOverrides, ModelsConfig, SIMULATED_NAME};
use clap::Args;
use serde_json::json;

/// Arguments of `colony models`.
#[derive(Args, Debug)]
pub struct ModelsArgs {
    /// Print one JSON object per model instead of a table.
    #[arg(long)]
    pub json: bool,
    /// Only list, do not contact endpoints.
    #[arg(long)]
    pub no_check: bool,
}

/// Runs `colony models`; fails when an endpoint does not answer.
pub async fn run(args: ModelsArgs, config: Option<&Path>) -> anyhow::Result<()> {
    let cfg = ModelsConfig::discover(config)?;
    match &cfg.path {
        Some(p) => eprintln!("models from {}", p.display()),
        None => {
            eprintln!("no models.toml found (use --models-config, $COLONY_MODELS or ./models.toml)")
        }
    }
    let mut names: Vec<String> = cfg.models.keys().cloned().collect();
    if !cfg.models.contains_key(SIMULATED_NAME) {
        names.push(SIMULATED_NAME.to_string());
    }
    let mut failures = 0;
    for name in names {
        let spec = cfg.resolve(Some(&name), &ModelOverrides::default())?;
        let default = cfg.default.as_deref() == Some(name.as_str())
            || (cfg.default.is_none() && name == SIMULATED_NAME);
        let mut checks = Vec::new();
        if spec.kind == ModelKind::Openai && !args.no_check {
            match spec.build_client() {
                Ok(client) => {
                    for (url, result) in client.check_endpoints().await {
                        let (ok, detail) = match result {
                            Ok(served) if served.iter().any(|m| m == spec.wire_model()) => {
                                (true, "ok".to_string())
                            }
                            Ok(served) => (
                                true,
                                format!(
                                    "ok, but it serves [{}], not {}",
                                    served.join(", "),
                                    spec.wire_model()
                                ),
                            ),
                            Err(e) => (false, e.to_string()),
                        };
                        failures += usize::from(!ok);
                        checks.push((url, ok, detail));
                    }
                }
                Err(e) => {
                    failures += 1;
                    let shown: Vec<String> =
                        spec.endpoints().iter().map(|u| redact_url(u)).collect();
                    checks.push((shown.join(","), false, e.to_string()));
                }
            }
        }
        let kind = match spec.kind {
            ModelKind::Openai => "openai",
            ModelKind::Simulated => "simulated",
        };
        if args.json {
            let endpoints: Vec<_> = if checks.is_empty() {
                spec.endpoints()
                    .into_iter()
                    .map(|u| json!({"base_url": redact_url(&u)}))
                    .collect()
            } else {
                checks
                    .iter()
                    .map(|(u, ok, d)| json!({"base_url": u, "ok": ok, "detail": d}))
                    .collect()
            };
            println!(
                "{}",
                json!({"name": name, "kind": kind, "model": spec.wire_model(), "default": default, "endpoints": endpoints})
            );
        } else {
            let mark = if default { " (default)" } else { "" };
            println!("{name}{mark}: {kind}, model {}", spec.wire_model());
            for (url, ok, detail) in &checks {
                println!("  {} {url}: {detail}", if *ok { "✓" } else { "✗" });
            }
        }
    }
    if failures > 0 {
        anyhow::bail!("{failures} endpoint(s) did not answer");
    }
    Ok(())
}
