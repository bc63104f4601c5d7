"""Whole groups go to splits, deterministically from the seed.

Plain: each group's position in [0, 1) is sha256(seed, group key); the splits own consecutive
intervals of that line in the order given (train [0, 0.8), dev [0.8, 0.9), test [0.9, 1)).
A group keeps its split when other data is added later, as long as it is not merged with
another group.

Stratified: per stratum (a group's stratum is the one most of its items have), groups are
taken largest first, equal sizes in hash order, and each goes to the split furthest below its
target (ratio × items of the stratum), so every stratum's split sizes come as close to the
ratios as whole groups allow.
"""

from __future__ import annotations

import hashlib
import math
from collections import Counter, defaultdict
from collections.abc import Sequence

from .policy import Split


def hash_unit(seed: int, key: str) -> float:
    """The group's reproducible position in [0, 1)."""
    digest = hashlib.sha256(f"{seed}\x1f{key}".encode()).digest()
    return int.from_bytes(digest[:8], "big") / 2**64


def split_by_hash(position: float, bounds: Sequence[float]) -> int:
    for index, bound in enumerate(bounds):
        if position < bound:
            return index
    return len(bounds) - 1  # float rounding at the top end


def cumulative(splits: Sequence[Split]) -> list[float]:
    return [math.fsum(s.ratio for s in splits[: i + 1]) for i in range(len(splits))]


def majority(strata: Counter) -> str:
    """The most common stratum; ties go to the alphabetically first, so it is reproducible."""
    return min(strata.items(), key=lambda kv: (-kv[1], kv[0]))[0]


def assign_groups(
    *,
    keys: Sequence[str],
    sizes: Sequence[int],
    splits: Sequence[Split],
    seed: int,
    strata: Sequence[str] | None = None,
) -> list[int]:
    """The split index of every group. `strata` (one per group) turns on stratification."""
    positions = [hash_unit(seed, key) for key in keys]
    if strata is None:
        bounds = cumulative(splits)
        return [split_by_hash(p, bounds) for p in positions]
    by_stratum: dict[str, list[int]] = defaultdict(list)
    for group, stratum in enumerate(strata):
        by_stratum[stratum].append(group)
    out = [0] * len(keys)
    for stratum in sorted(by_stratum):
        groups = sorted(by_stratum[stratum], key=lambda g: (-sizes[g], positions[g], keys[g]))
        total = sum(sizes[g] for g in groups)
        targets = [s.ratio * total for s in splits]
        assigned = [0] * len(splits)
        for group in groups:
            index = max(range(len(splits)), key=lambda i: (targets[i] - assigned[i], -i))
            out[group] = index
            assigned[index] += sizes[group]
    return out
