"""Which function writes which file: per (item kind, format), the lines of one verified item.

A writer returns (lines, reason): the item's JSONL lines for that file (none, one, or — step
preferences — several) and, when it writes none, why (the manifest counts the reasons: ties,
discarded traces, ...). The interchange format and the pair files are built in records.
"""

from __future__ import annotations

from collections.abc import Callable

from .policy import CHECKLISTS, INTERCHANGE, PREFERENCE, QUERIES, SFT
from .queries import QUERY_COLUMNS, query_interchange, query_line
from .records import (
    INTERCHANGE_COLUMNS,
    PREFERENCE_COLUMNS,
    Envs,
    PairSides,
    dumps,
    pair_interchange_line,
    pair_sides,
    pca_interchange,
    preference_line,
    recording_interchange,
    step_interchange,
)
from .rows import Row
from .steps import CHECKLIST_COLUMNS, checklist_line, step_preference_lines
from .traces import SFT_COLUMNS, trace_interchange, trace_preference_line, trace_sft_line

Lines = tuple[list[str], str | None]
Writer = Callable[[Row, Envs], Lines]

INTERCHANGE_RECORDS: dict[str, Callable[[Row, Envs], dict]] = {
    "step": step_interchange,
    "trace": trace_interchange,
    "pca": pca_interchange,
    "recording": recording_interchange,
    "query": query_interchange,
}


def interchange_line(row: Row, envs: Envs, sides: PairSides | None = None) -> str:
    if row.kind == "pair":
        return pair_interchange_line(row, envs, sides or pair_sides(row))
    return dumps(INTERCHANGE_RECORDS[row.kind](row, envs))


def _interchange(row: Row, envs: Envs) -> Lines:
    return [interchange_line(row, envs)], None


def _pair_preference(row: Row, envs: Envs) -> Lines:
    sides = pair_sides(row)
    line = preference_line(row, envs, sides)
    if line is None:
        return [], "tie" if sides.preferred == "tie" else "unlabeled"
    return [line], None


WRITERS: dict[tuple[str, str], Writer] = {
    ("pair", PREFERENCE): _pair_preference,
    ("trace", SFT): trace_sft_line,
    ("trace", PREFERENCE): trace_preference_line,
    ("step", PREFERENCE): step_preference_lines,
    ("step", CHECKLISTS): checklist_line,
    ("query", QUERIES): query_line,
}


def writer(kind: str, fmt: str) -> Writer:
    if fmt == INTERCHANGE:
        return _interchange
    return WRITERS[(kind, fmt)]


def parquet_columns(kind: str, fmt: str) -> tuple[str, ...]:
    return {
        PREFERENCE: PREFERENCE_COLUMNS,
        SFT: SFT_COLUMNS,
        CHECKLISTS: CHECKLIST_COLUMNS,
        QUERIES: QUERY_COLUMNS,
    }.get(fmt) or INTERCHANGE_COLUMNS[kind]
