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
