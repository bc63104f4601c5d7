"""What an export request may say, checked before anything is queued: the splits and their
ratios, the seed, the filters and the formats. Every problem is reported per field with a
message a manager can act on; nothing is written while any remains."""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from datetime import date
from typing import Any

from annotation.models import ItemState, Project

# Output formats. Which JSONL formats fit depends on the project's kind (KIND_FORMATS); Parquet
# copies any of them.
PREFERENCE, INTERCHANGE, PARQUET = "preference", "interchange", "parquet"
SFT, CHECKLISTS, QUERIES = "sft", "checklists", "queries"
# One canonical order: the order of the files and of `export.formats`.
FORMATS = (PREFERENCE, SFT, CHECKLISTS, QUERIES, INTERCHANGE, PARQUET)
JSONL_FORMATS = FORMATS[:-1]
KIND_FORMATS: dict[str, tuple[str, ...]] = {
    "pair": (PREFERENCE, INTERCHANGE, PARQUET),
    "trace": (SFT, PREFERENCE, INTERCHANGE, PARQUET),
    "step": (PREFERENCE, CHECKLISTS, INTERCHANGE, PARQUET),
    "query": (QUERIES, INTERCHANGE, PARQUET),
    "pca": (INTERCHANGE, PARQUET),
    "recording": (INTERCHANGE, PARQUET),
}
DEFAULT_FORMATS: dict[str, tuple[str, ...]] = {
    "pair": (PREFERENCE, INTERCHANGE),
    "trace": (SFT, PREFERENCE, INTERCHANGE),
    "step": (PREFERENCE, CHECKLISTS, INTERCHANGE),
    "query": (QUERIES, INTERCHANGE),
}
FORMAT_LABELS = {
    PREFERENCE: "Preference JSONL (prompt / chosen / rejected chat messages, tools)",
    SFT: "Chat SFT JSONL (messages with tool calls, OpenAI fine-tuning shape)",
    CHECKLISTS: "Checklists JSONL (the settled checklist of every step and its marks)",
    QUERIES: "Refined queries JSONL (candidates, decision, final query or reject reason)",
    INTERCHANGE: "Interchange JSONL (the platform's record shape, re-importable)",
    PARQUET: "Parquet copies of the JSONL files",
}
# What a format holds for one kind, where the general label says too little.
KIND_FORMAT_LABELS: dict[tuple[str, str], str] = {
    ("trace", PREFERENCE): "Preference JSONL (corrected trace chosen, original rejected; "
    "corrected traces only)",
    ("trace", SFT): "Chat SFT JSONL (the corrected trace, or the original where it was correct; "
    "discarded traces left out)",
    ("trace", INTERCHANGE): "Interchange JSONL (corrected traces as trace records, re-importable)",
    ("step", PREFERENCE): "Preference JSONL (chosen action vs each other candidate that is not "
    "equivalent; invalid ones marked)",
}


def kind_formats(kind: str) -> tuple[str, ...]:
    return KIND_FORMATS.get(kind, (INTERCHANGE, PARQUET))


def format_label(kind: str, fmt: str) -> str:
    return KIND_FORMAT_LABELS.get((kind, fmt), FORMAT_LABELS[fmt])


def format_choices(kind: str) -> list[tuple[str, str]]:
    return [(f, format_label(kind, f)) for f in kind_formats(kind)]


# Only verified items are exported; the filter field stays so the policy can widen later.
EXPORTABLE_STATES = (ItemState.VERIFIED,)
# Trajectory provenance types (formats/README.md, `source.type`).
SOURCE_TYPES = ("natural", "rule_perturbation", "llm_minimal_edit", "human")
DEFAULT_SPLITS = "train=0.8,dev=0.1,test=0.1"
SPLIT_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_-]{0,39}$")
MAX_SPLITS = 10
MAX_SEED = 2**63 - 1
RATIO_TOLERANCE = 1e-9


class ExportRequestError(ValueError):
    """A request that cannot be exported; `errors` maps field → reason."""

    def __init__(self, errors: dict[str, str]):
        self.errors = errors
        super().__init__("; ".join(f"{field}: {reason}" for field, reason in errors.items()))


@dataclass(frozen=True)
class Split:
    name: str
    ratio: float


def parse_splits(value: Any) -> list[Split]:
    """Splits from "train=0.8,dev=0.1,test=0.1", a list of {"name", "ratio"} (or [name, ratio]),
    or a mapping. Order is kept: it is the order of the cumulative ratio intervals. Raises
    ExportRequestError({"splits": reason})."""

    def fail(reason: str) -> ExportRequestError:
        return ExportRequestError({"splits": reason})

    pairs: list[tuple[str, Any]] = []
    if isinstance(value, str):
        for part in (p.strip() for p in value.split(",")):
            if not part:
                continue
            name, sep, ratio = part.partition("=")
            if not sep:
                raise fail(f"{part!r} has no ratio; write name=ratio, e.g. {DEFAULT_SPLITS}")
            pairs.append((name.strip(), ratio.strip()))
    elif isinstance(value, dict):
        pairs = list(value.items())
    elif isinstance(value, list):
        for entry in value:
            if isinstance(entry, dict) and {"name", "ratio"} <= entry.keys():
                pairs.append((entry["name"], entry["ratio"]))
            elif isinstance(entry, list | tuple) and len(entry) == 2:
                pairs.append((entry[0], entry[1]))
            else:
                raise fail(f"{entry!r} is not a split; give {{'name': ..., 'ratio': ...}}")
    else:
        raise fail(f"give the splits as text like {DEFAULT_SPLITS}")
    if not pairs:
        raise fail(f"name at least one split, e.g. {DEFAULT_SPLITS}")
    if len(pairs) > MAX_SPLITS:
        raise fail(f"at most {MAX_SPLITS} splits")
    splits: list[Split] = []
    for name, raw in pairs:
        if not isinstance(name, str) or not SPLIT_NAME.match(name):
            raise fail(
                f"{name!r} is not a usable split name: letters, digits, '-' and '_' only "
                "(it becomes part of the file names)"
            )
        if any(s.name == name for s in splits):
            raise fail(f"the split {name!r} is named twice")
        try:
            ratio = float(raw)
        except (TypeError, ValueError):
            raise fail(f"the ratio of {name!r} ({raw!r}) is not a number") from None
        if not math.isfinite(ratio) or ratio <= 0 or ratio > 1:
            raise fail(f"the ratio of {name!r} must be greater than 0 and at most 1, not {raw}")
        splits.append(Split(name, ratio))
    total = math.fsum(s.ratio for s in splits)
    if abs(total - 1) > RATIO_TOLERANCE:
        listed = " + ".join(f"{s.ratio:g}" for s in splits)
        raise fail(f"the ratios must sum to 1, but {listed} = {total:.10g}")
    return splits


def splits_text(splits: list[Split]) -> str:
    return ",".join(f"{s.name}={s.ratio:g}" for s in splits)


def normalize_split_policy(policy: dict[str, Any]) -> dict[str, Any]:
    """The stored split policy: {"splits": [{"name", "ratio"}], "seed": int, "stratify": bool}.
    A list, because a JSON object in the database does not keep its key order."""
    errors: dict[str, str] = {}
    splits: list[Split] = []
    try:
        splits = parse_splits(policy.get("splits", DEFAULT_SPLITS))
    except ExportRequestError as exc:
        errors.update(exc.errors)
    seed = policy.get("seed", 0)
    if isinstance(seed, str) and re.fullmatch(r"\s*-?\d+\s*", seed):
        seed = int(seed)
    if isinstance(seed, bool) or not isinstance(seed, int) or not 0 <= seed <= MAX_SEED:
        errors["seed"] = f"the seed must be a whole number from 0 to {MAX_SEED}, not {seed!r}"
    stratify = policy.get("stratify", False)
    if not isinstance(stratify, bool):
        errors["stratify"] = "stratify is true or false"
    if errors:
        raise ExportRequestError(errors)
    return {
        "splits": [{"name": s.name, "ratio": s.ratio} for s in splits],
        "seed": seed,
        "stratify": stratify,
    }


def policy_splits(policy: dict[str, Any]) -> list[Split]:
    return [Split(s["name"], float(s["ratio"])) for s in policy["splits"]]


def _date(value: Any, field: str, errors: dict[str, str]) -> str | None:
    if value in (None, ""):
        return None
    if isinstance(value, date):
        return value.isoformat()
    try:
        return date.fromisoformat(str(value)).isoformat()
    except ValueError:
        errors[field] = f"{value!r} is not a date; write YYYY-MM-DD"
        return None


def normalize_filters(project: Project, filters: dict[str, Any], strata: list[str]) -> dict[str, Any]:
    """Stored filters: {"strata": [...], "states": ["verified"], "settled_from": "YYYY-MM-DD",
    "settled_to": "YYYY-MM-DD", "source": "natural"}; empty means no restriction. `strata` are
    the project's strata, to name unknown ones."""
    errors: dict[str, str] = {}
    unknown_keys = sorted(set(filters) - {"strata", "states", "settled_from", "settled_to", "source"})
    if unknown_keys:
        errors["filters"] = f"unknown filter(s): {', '.join(unknown_keys)}"
    chosen_strata = [s for s in (filters.get("strata") or []) if s != ""]
    if not all(isinstance(s, str) for s in chosen_strata):
        errors["strata"] = "strata are names (text)"
    else:
        unknown = sorted(set(chosen_strata) - set(strata))
        if unknown:
            known = ", ".join(strata) or "none"
            errors["strata"] = f"not a stratum of this project: {', '.join(unknown)} (its strata: {known})"
    states = list(filters.get("states") or EXPORTABLE_STATES)
    wrong = [s for s in states if s not in EXPORTABLE_STATES]
    if wrong:
        errors["states"] = f"only verified items can be exported, not {', '.join(map(str, wrong))}"
    settled_from = _date(filters.get("settled_from"), "settled_from", errors)
    settled_to = _date(filters.get("settled_to"), "settled_to", errors)
    if settled_from and settled_to and settled_from > settled_to:
        errors["settled_to"] = f"the range ends ({settled_to}) before it starts ({settled_from})"
    source = filters.get("source") or ""
    if source and source not in SOURCE_TYPES:
        errors["source"] = f"{source!r} is not a source type; use one of {', '.join(SOURCE_TYPES)}"
    if errors:
        raise ExportRequestError(errors)
    out: dict[str, Any] = {"states": sorted(set(states))}
    if chosen_strata:
        out["strata"] = sorted(set(chosen_strata))
    if settled_from:
        out["settled_from"] = settled_from
    if settled_to:
        out["settled_to"] = settled_to
    if source:
        out["source"] = source
    return out


def default_formats(project: Project) -> list[str]:
    return list(DEFAULT_FORMATS.get(project.kind, (INTERCHANGE,)))


def _kinds_of(fmt: str) -> str:
    kinds = [kind for kind, formats in KIND_FORMATS.items() if fmt in formats]
    # The pair projects first: they had these formats first, and messages name them so.
    first, rest = kinds[0], kinds[1:]
    return f"{first} projects" + (f" (and {', '.join(rest)})" if rest else "")


def normalize_formats(project: Project, formats: list[str] | None) -> list[str]:
    chosen = list(formats) if formats else default_formats(project)
    unknown = [f for f in chosen if f not in FORMATS]
    if unknown:
        raise ExportRequestError(
            {"formats": f"unknown format(s) {', '.join(map(str, unknown))}; use {', '.join(FORMATS)}"}
        )
    allowed = kind_formats(project.kind)
    unfit = [f for f in FORMATS if f in chosen and f not in allowed]
    if unfit:
        reasons = "; ".join(f"the {f} format is for {_kinds_of(f)}" for f in unfit)
        raise ExportRequestError(
            {"formats": f"{reasons}; this one holds {project.kind} items (its formats: {', '.join(allowed)})"}
        )
    if chosen == [PARQUET]:
        raise ExportRequestError({"formats": "Parquet copies need a JSONL format to copy; add one"})
    return [f for f in FORMATS if f in chosen]  # one canonical order
