"""Writes a GSM8K sample in the layouts the `datasets` library and the Hub use.

Usage: hf_datasets.py SAMPLE.jsonl OUT_DIR. The first 8 rows are the train split, the rest the
test split: OUT_DIR/disk (DatasetDict.save_to_disk: train/ and test/ Arrow directories),
OUT_DIR/hub/data/{train,test}-00000-of-00001.parquet (the Hub's parquet layout) and
OUT_DIR/lines/{train,test}.jsonl (Dataset.to_json).
"""
import json
import os
import sys

from datasets import Dataset, DatasetDict

sample, out = sys.argv[1], sys.argv[2]
rows = [json.loads(line) for line in open(sample, encoding="utf-8") if line.strip()]
splits = {"train": Dataset.from_list(rows[:8]), "test": Dataset.from_list(rows[8:])}
DatasetDict(splits).save_to_disk(os.path.join(out, "disk"))
os.makedirs(os.path.join(out, "hub", "data"), exist_ok=True)
os.makedirs(os.path.join(out, "lines"), exist_ok=True)
for name, ds in splits.items():
    ds.to_parquet(os.path.join(out, "hub", "data", f"{name}-00000-of-00001.parquet"))
    ds.to_json(os.path.join(out, "lines", f"{name}.jsonl"), lines=True)
print(len(rows))
