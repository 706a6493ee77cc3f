"""Reads colony's Inspect exports with the real inspect_ai package and prints what it read.

Usage: inspect_export.py FILE... ; prints one JSON line per file: the sample count, the ids,
the accuracy metric, the completed samples, the token totals, the errored ids and the scores.
"""
import json
import sys

from inspect_ai.log import list_eval_logs, read_eval_log, read_eval_log_sample_summaries

for path in sys.argv[1:]:
    log = read_eval_log(path)
    usage = next(iter(log.stats.model_usage.values()))
    metrics = log.results.scores[0].metrics
    metric = (metrics.get("accuracy") or metrics.get("mean")).value
    print(json.dumps({
        "path": path,
        "task": log.eval.task,
        "model": log.eval.model,
        "samples": len(log.samples),
        "ids": sorted(str(s.id) for s in log.samples),
        "accuracy": metric,
        "completed": log.results.completed_samples,
        "total": log.results.total_samples,
        "input_tokens": usage.input_tokens,
        "output_tokens": usage.output_tokens,
        "sample_tokens": sum(
            u.input_tokens + u.output_tokens for s in log.samples for u in s.model_usage.values()
        ),
        "errored": sorted(str(s.id) for s in log.samples if s.error is not None),
        "correct": sorted(
            str(s.id) for s in log.samples if s.scores and s.scores.get("colony") and s.scores["colony"].value == "C"
        ),
        "scores": [s.scores["score"].value for s in log.samples if s.scores and "score" in s.scores],
        "messages": sum(len(s.messages) for s in log.samples),
        "inputs_hold_questions": all(len(str(s.input)) > 20 for s in log.samples),
        "metadata_steps": [m.metadata.get("step") for s in log.samples for m in s.messages][:4],
        # What `inspect view` reads first: the header alone and the sample summaries.
        "header_status": read_eval_log(path, header_only=True).status,
        "summaries": len(read_eval_log_sample_summaries(path)) if path.endswith(".eval") else None,
    }))
