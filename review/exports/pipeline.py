"""One export, start to finish, in constant memory:

1. one streaming read of the items (a single snapshot): each item's group keys go into the
   union-find and its lines into a spool file per JSONL format;
2. groups get their splits (splitting.assign_groups);
3. the spools are copied into the split files (and Parquet copies), hashing as they go;
4. counts per split and stratum for the manifest.

Memory grows with the number of items only by a few integers each (group, stratum, split,
tool environment) and by the group keys in the union-find (a task hash, the media paths).
"""

from __future__ import annotations

from array import array
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from django.db import transaction

from annotation.models import ToolEnv
from review.models import Export

from .formats import interchange_line, parquet_columns, writer
from .grouping import Groups, item_keys
from .policy import INTERCHANGE, JSONL_FORMATS, PARQUET, PREFERENCE, policy_splits
from .records import Envs, pair_sides, preference_line, tool_env_line
from .rows import Row, item_rows
from .selectors import export_items
from .splitting import assign_groups, majority
from .writers import JsonlFile, ParquetFile, Spool, encode

CHUNK_SIZE = 2000
PROGRESS_EVERY = 1000
NO_ENV = -1

Progress = Callable[[int, int], None]


@dataclass
class Result:
    files: list[dict[str, Any]]
    counts: dict[str, Any]
    grouping: dict[str, Any]
    tool_envs: list[str] = field(default_factory=list)


def file_name(split: str, fmt: str, ext: str = "jsonl") -> str:
    return f"{split}.{fmt}.{ext}"


def planned_files(export: Export) -> list[str]:
    """Every file name an export writes (manifest included)."""
    names = []
    for fmt in JSONL_FORMATS:
        if fmt in export.formats:
            for split in policy_splits(export.split_policy):
                names.append(file_name(split.name, fmt))
                if PARQUET in export.formats:
                    names.append(file_name(split.name, fmt, "parquet"))
    return [*names, "manifest.json"]


def run_export(*, export: Export, directory: Path, on_progress: Progress | None = None) -> Result:
    project = export.project
    splits = policy_splits(export.split_policy)
    seed = int(export.split_policy.get("seed", 0))
    jsonl_formats = [f for f in JSONL_FORMATS if f in export.formats]
    progress = on_progress or (lambda done, total: None)
    directory.mkdir(parents=True, exist_ok=True)

    items = export_items(project=project, filters=export.filters)
    total = items.count()
    progress(0, total)
    envs = Envs(list(ToolEnv.objects.filter(project=project).values_list("id", "name", "tools")))
    spools = {fmt: Spool(directory / f".{fmt}.spool") for fmt in jsonl_formats}
    groups = Groups()
    strata: list[str] = []
    stratum_index: dict[str, int] = {}
    item_stratum = array("q")
    item_env = array("q")
    left_out: dict[str, Counter] = {fmt: Counter() for fmt in jsonl_formats}
    write_lines = _line_writers(project.kind, jsonl_formats, envs)
    try:
        # One snapshot; inside a transaction PostgreSQL streams the rows through a named cursor.
        with transaction.atomic():
            for row in item_rows(items, CHUNK_SIZE, kind=project.kind):
                index = groups.add(item_keys(row))
                if row.stratum not in stratum_index:
                    stratum_index[row.stratum] = len(strata)
                    strata.append(row.stratum)
                item_stratum.append(stratum_index[row.stratum])
                item_env.append(row.tool_env_id if row.tool_env_id is not None else NO_ENV)
                for fmt, (lines, reason) in write_lines(row):
                    for line in lines:
                        spools[fmt].add(index, line)
                    if reason is not None:
                        left_out[fmt][reason] += 1
                if (index + 1) % PROGRESS_EVERY == 0:
                    progress(index + 1, total)
        n_items = len(groups)
        progress(n_items, total)

        item_group, group_keys = groups.finish()
        sizes = [0] * len(group_keys)
        for group in item_group:
            sizes[group] += 1
        group_strata = None
        if export.split_policy.get("stratify"):
            per_group: list[Counter] = [Counter() for _ in group_keys]
            for index, group in enumerate(item_group):
                per_group[group][strata[item_stratum[index]]] += 1
            group_strata = [majority(c) for c in per_group]
        group_split = assign_groups(
            keys=group_keys, sizes=sizes, splits=splits, seed=seed, strata=group_strata
        )
        item_split = array("q", (group_split[g] for g in item_group))

        split_envs: list[set[int]] = [set() for _ in splits]
        for index, env_id in enumerate(item_env):
            if env_id != NO_ENV:
                split_envs[item_split[index]].add(env_id)

        files: list[dict[str, Any]] = []
        for fmt in jsonl_formats:
            files += _write_format(
                fmt=fmt,
                spool=spools[fmt],
                directory=directory,
                splits=[s.name for s in splits],
                item_split=item_split,
                header_envs=split_envs if fmt == INTERCHANGE else None,
                envs=envs,
                parquet_columns=parquet_columns(project.kind, fmt) if PARQUET in export.formats else None,
            )
    finally:
        for spool in spools.values():
            spool.remove()

    counts = _counts(
        splits=[s.name for s in splits],
        strata=strata,
        item_stratum=item_stratum,
        item_split=item_split,
        item_group=item_group,
        n_groups=len(group_keys),
        files=files,
        left_out=left_out,
    )
    grouping = {
        "groups": len(group_keys),
        "largest_group": max(sizes, default=0),
        "items_in_shared_groups": sum(size for size in sizes if size > 1),
    }
    used_envs = sorted({envs.name[e] for e in item_env if e != NO_ENV})
    return Result(files=files, counts=counts, grouping=grouping, tool_envs=used_envs)


def _line_writers(kind: str, formats: list[str], envs: Envs) -> Callable[[Row], list[tuple[str, tuple]]]:
    """row → [(format, (lines, reason left out))] for the chosen formats."""
    if kind == "pair":
        # A pair's settled label is read once for both of its files.
        def pair_lines(row: Row) -> list[tuple[str, tuple]]:
            sides = pair_sides(row)
            out = []
            if PREFERENCE in formats:
                line = preference_line(row, envs, sides)
                if line is None:
                    out.append((PREFERENCE, ([], "tie" if sides.preferred == "tie" else "unlabeled")))
                else:
                    out.append((PREFERENCE, ([line], None)))
            if INTERCHANGE in formats:
                out.append((INTERCHANGE, ([interchange_line(row, envs, sides)], None)))
            return out

        return pair_lines
    writers = [(fmt, writer(kind, fmt)) for fmt in formats]
    return lambda row: [(fmt, write(row, envs)) for fmt, write in writers]


def _write_format(
    *,
    fmt: str,
    spool: Spool,
    directory: Path,
    splits: list[str],
    item_split: array,
    header_envs: list[set[int]] | None,
    envs: Envs,
    parquet_columns: tuple[str, ...] | None,
) -> list[dict[str, Any]]:
    outs = [JsonlFile(directory / file_name(name, fmt), split=name, fmt=fmt) for name in splits]
    parquets: list[ParquetFile] = []
    if parquet_columns is not None:
        meta = {"arbiter.format": fmt, "arbiter.nested": "JSON text"}
        parquets = [
            ParquetFile(
                directory / file_name(name, fmt, "parquet"),
                split=name,
                fmt=f"{fmt}-parquet",
                columns=parquet_columns,
                meta=meta,
            )
            for name in splits
        ]
    try:
        if header_envs is not None:
            # Each file imports on its own: it starts with the tool environments its records name.
            for out, env_ids in zip(outs, header_envs, strict=True):
                for env_id in sorted(env_ids, key=lambda e: envs.name[e]):
                    line = encode(tool_env_line(envs.name[env_id], envs.tools[env_id])) + b"\n"
                    out.write_line(line, record=False)
        for index, line in spool.lines():
            split = item_split[index]
            outs[split].write_line(line)
            if parquets:
                parquets[split].add(line)
    finally:
        entries = [out.close() for out in outs]
        entries += [parquet.close() for parquet in parquets]
    return entries


def _counts(
    *,
    splits: list[str],
    strata: list[str],
    item_stratum: array,
    item_split: array,
    item_group: array,
    n_groups: int,
    files: list[dict[str, Any]],
    left_out: dict[str, Counter],
) -> dict[str, Any]:
    per_split = {name: {"items": 0, "groups": 0, "strata": Counter()} for name in splits}
    per_stratum: dict[str, Counter] = {s: Counter() for s in sorted(strata)}
    seen_groups: set[int] = set()
    for index, split in enumerate(item_split):
        name = splits[split]
        stratum = strata[item_stratum[index]]
        per_split[name]["items"] += 1
        per_split[name]["strata"][stratum] += 1
        per_stratum[stratum][name] += 1
        group = item_group[index]
        if group not in seen_groups:
            seen_groups.add(group)
            per_split[name]["groups"] += 1
    total = len(item_split)
    out_split = {}
    for name in splits:
        entry = per_split[name]
        out_split[name] = {
            "items": entry["items"],
            "groups": entry["groups"],
            "share": round(entry["items"] / total, 6) if total else 0.0,
            "strata": dict(sorted(entry["strata"].items())),
            "rows": {f["format"]: f["rows"] for f in files if f["split"] == name},
        }
    return {
        "items": total,
        "groups": n_groups,
        "per_split": out_split,
        "per_stratum": {s: {name: c[name] for name in splits} for s, c in per_stratum.items()},
        # Items that wrote no record into a file, per format and reason (ties, discarded traces...).
        "left_out": {fmt: dict(sorted(c.items())) for fmt, c in left_out.items() if c},
        "preference_left_out": {
            "ties": left_out.get(PREFERENCE, Counter())["tie"],
            "unlabeled": left_out.get(PREFERENCE, Counter())["unlabeled"],
        },
        # Rows (records) per format over all splits.
        "rows": {
            fmt: sum(f["rows"] for f in files if f["format"] == fmt)
            for fmt in dict.fromkeys(f["format"] for f in files)
        },
    }
