"""Synthetic trajectory-preference pairs for the demo and the benchmarks.

Realistic in shape (protocols.md, section A): seven buckets in the published proportions,
several tool environments with JSON-Schema tools, multi-turn contexts, natural rollouts and
minimal edits, and the awkward content real data has. All prose is invented here.
"""

from .core import BUCKET_COUNTS, BUCKETS, generate_pairs, long_pair, tool_env_records, write_jsonl
from .engine import pair_turns

__all__ = [
    "BUCKETS",
    "BUCKET_COUNTS",
    "generate_pairs",
    "long_pair",
    "pair_turns",
    "tool_env_records",
    "write_jsonl",
]
