"""Shared fixtures: the repository root (for sample datasets and suites)."""

from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def root() -> Path:
    return ROOT


@pytest.fixture
def gsm8k_sample() -> Path:
    return ROOT / "environments" / "qa" / "samples" / "gsm8k.jsonl"


# Fields two runs of the same work may differ in: wall-clock time and what is derived from it.
VOLATILE = {"wall_s", "calls_per_s", "call_latency_ms"}


@pytest.fixture
def timeless():
    """Drops the wall-clock fields from nested summaries, to compare two runs of the same work."""

    def strip(value):
        if isinstance(value, dict):
            return {k: strip(v) for k, v in value.items() if k not in VOLATILE}
        if isinstance(value, list):
            return [strip(v) for v in value]
        return value

    return strip
