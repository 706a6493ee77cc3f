//! `colony export inspect` of a `colony compare` run: one Inspect AI log per (configuration,
//! policy), one sample per episode (the format and files as in [`super::inspect`]).
//!
//! * **eval:** task `colony/<environment>` (with `/<configuration>` in a grid), task id the
//!   policy, the run's model (`none` for policies that call none), the environment settings as
//!   task arguments.
//! * **samples:** id the seed; `input` the episode's first prompt (`episode N` for a policy
//!   without model calls); `target` empty (an episode has no gold answer); `messages` every
//!   model call of the episode in step order, each prompt and reply tagged with its step, agent,
//!   purpose and the action parsed from it; `scores.score` the episode's score with its steps,
//!   termination and fallbacks; `model_usage` its tokens; `metadata` its metrics; an errored
//!   episode's error instead of a score.
//! * **results:** the `mean` score over the episodes without an error, the episode counts, the
//!   run's tokens.
//!
//! Decision: calls become messages, not Inspect `events`: every Inspect version reads
//! messages the same way, and the step and agent of each call are kept in their metadata.

use std::collections::BTreeMap;
use std::path::Path;

use serde_json::{json, Value};

use super::embodied::{compare::episode_dir, compare_config::EpisodeResult};
use super::inspect::{io, rfc3339, write_log, Exported, InspectError, InspectFormat};

/// Per (configuration, policy), the latest episode of every seed.
type Episodes = BTreeMap<(String, String), BTreeMap<u64, EpisodeResult>>;

/// The latest result of every (configuration, policy, seed) in `episodes.jsonl`.
fn latest_episodes(dir: &Path) -> Result<Episodes, InspectError> {
    let path = dir.join("episodes.jsonl");
    let text = std::fs::read_to_string(&path).map_err(io(&path))?;
    let mut per = Episodes::new();
    for (i, line) in text.split_inclusive('\n').enumerate() {
        if !line.ends_with('\n') || line.trim().is_empty() {
            continue;
        }
        let r: EpisodeResult = serde_json::from_str(line).map_err(|e| InspectError::Io {
            path: path.clone(),
            message: format!("line {}: {e}", i + 1),
        })?;
        per.entry((r.config.clone(), r.policy.clone()))
            .or_default()
            .insert(r.seed, r);
    }
    Ok(per)
}

/// The messages of one episode's call log, in step order.
fn episode_messages(dir: &Path) -> Result<Vec<Value>, InspectError> {
    let mut calls: Vec<(u64, Value)> = Vec::new();
    super::call_log::read_call_log(dir, |line| {
        let v: Value = serde_json::from_str(line).unwrap_or_default();
        calls.push((v["step"].as_u64().unwrap_or(0), v));
        true
    })
    .map_err(io(dir))?;
    calls.sort_by_key(|(step, _)| *step);
    let mut out = Vec::new();
    for (step, c) in calls {
        let meta = json!({"step": step, "agent": c["agent"], "purpose": c["purpose"], "action": c["action"]});
        let prompt = c["messages"]
            .as_array()
            .and_then(|m| m.iter().rev().find(|m| m["role"] == "user"))
            .and_then(|m| m["content"].as_str())
            .unwrap_or_default();
        let reply = match (c["reply"].as_str(), c["error"].as_str()) {
            (Some(r), _) => r.to_string(),
            (None, Some(e)) => format!("(the call failed: {e})"),
            (None, None) => String::new(),
        };
        out.push(json!({"role": "user", "content": prompt, "source": "input", "metadata": meta}));
        out.push(
            json!({"role": "assistant", "content": reply, "source": "generate", "metadata": meta}),
        );
    }
    Ok(out)
}

/// Exports the compare run `dir` (see the module docs).
pub fn export_episodes(
    dir: &Path,
    out: &Path,
    format: InspectFormat,
    policy: Option<&str>,
) -> Result<Exported, InspectError> {
    let settings_path = dir.join("compare.json");
    let settings: Value = std::fs::read_to_string(&settings_path)
        .map_err(io(&settings_path))
        .and_then(|t| {
            serde_json::from_str(&t).map_err(|e| InspectError::Io {
                path: settings_path.clone(),
                message: e.to_string(),
            })
        })?;
    let env = settings["env"]
        .as_str()
        .unwrap_or("environment")
        .to_string();
    let model = settings["model"].as_str().unwrap_or("none").to_string();
    let per = latest_episodes(dir)?;
    let chosen: Vec<_> = per
        .iter()
        .filter(|((_, p), _)| policy.is_none_or(|x| x == p))
        .collect();
    if chosen.is_empty() {
        let known: Vec<&str> = per.keys().map(|(_, p)| p.as_str()).collect();
        return Err(InspectError::Selection(format!(
            "{}: no episodes match (its policies: {})",
            dir.display(),
            if known.is_empty() {
                "none".to_string()
            } else {
                known.join(", ")
            }
        )));
    }
    let single = chosen.len() == 1 && out.extension().is_some();
    if !single {
        std::fs::create_dir_all(out).map_err(io(out))?;
    }
    let created = std::fs::metadata(dir.join("episodes.jsonl"))
        .and_then(|m| m.modified())
        .map_or_else(|_| rfc3339(std::time::UNIX_EPOCH), rfc3339);
    let mut files = Vec::new();
    for ((config, p), episodes) in chosen {
        let mut samples = Vec::new();
        for r in episodes.values() {
            let messages = episode_messages(&episode_dir(dir, config, p, r.seed))?;
            let input = messages
                .first()
                .and_then(|m| m["content"].as_str())
                .map_or_else(|| format!("episode {}", r.seed), str::to_string);
            let mut s = json!({
                "id": r.seed,
                "epoch": 1,
                "input": input,
                "target": "",
                "messages": messages,
                "output": {"model": model, "choices": [], "completion": ""},
                "model_usage": {model.clone(): {
                    "input_tokens": r.prompt_tokens, "output_tokens": r.completion_tokens,
                    "total_tokens": r.prompt_tokens + r.completion_tokens,
                }},
                "metadata": {"policy": p, "config": config, "seed": r.seed, "steps": r.steps,
                             "calls": r.calls, "metrics": r.metrics},
            });
            match &r.error {
                Some(e) => {
                    s["error"] = json!({"message": e, "traceback": "", "traceback_ansi": ""})
                }
                None => {
                    s["scores"] = json!({"score": {"value": r.score, "metadata": {
                        "steps": r.steps, "terminated": r.terminated, "truncated": r.truncated,
                        "fallbacks": r.fallbacks,
                    }}})
                }
            }
            samples.push(s);
        }
        let ok: Vec<&EpisodeResult> = episodes.values().filter(|r| r.error.is_none()).collect();
        let mean = if ok.is_empty() {
            0.0
        } else {
            ok.iter().map(|r| r.score).sum::<f64>() / ok.len() as f64
        };
        let (prompt, completion) = episodes.values().fold((0u64, 0u64), |(a, b), r| {
            (a + r.prompt_tokens, b + r.completion_tokens)
        });
        let task = if config.is_empty() {
            format!("colony/{env}")
        } else {
            format!("colony/{env}/{config}")
        };
        let header = json!({
            "version": 2,
            "status": "success",
            "eval": {
                "created": created, "task": task, "task_id": p,
                "task_args": {"set": settings["set"], "max_steps": settings["max_steps"]},
                "dataset": {"name": env, "samples": episodes.len()},
                "model": model, "config": {},
                "metadata": {"colony_run": dir.display().to_string()},
            },
            "plan": {"name": "plan", "steps": [{"solver": p, "params": {}}], "config": {}},
            "results": {
                "total_samples": episodes.len(),
                "completed_samples": ok.len(),
                "scores": [{"name": "score", "scorer": "colony", "params": {},
                            "metrics": {"mean": {"name": "mean", "value": mean, "params": {}}}}],
            },
            "stats": {
                "started_at": created, "completed_at": created,
                "model_usage": {model.clone(): {
                    "input_tokens": prompt, "output_tokens": completion,
                    "total_tokens": prompt + completion,
                }},
            },
        });
        let name = if config.is_empty() {
            format!(
                "{}.{}",
                colony_policy::file_component(p),
                format.extension()
            )
        } else {
            format!(
                "{}.{}.{}",
                colony_policy::file_component(p),
                colony_policy::file_component(config),
                format.extension()
            )
        };
        let path = if single {
            out.to_path_buf()
        } else {
            out.join(name)
        };
        write_log(&path, &header, &samples, format)?;
        files.push(path);
    }
    Ok(Exported { files })
}
