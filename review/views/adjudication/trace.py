"""Trace items (Agent-X): each annotator's verdict, discard reason, per-step checks (a step ×
check grid, disagreements marked) and corrected trace (a step-by-step diff against the
original). The reviewer accepts one annotator's correction — the settled label then points to
that corrected trajectory — or settles the trace as correct, or as not worth correcting."""

from __future__ import annotations

from django.http import QueryDict

from annotation.labels import TRACE_CHECKS, TRACE_DISCARD_REASONS
from annotation.models import Item, Trajectory
from annotation.rendering.trace import correction_diff, trace_view
from annotation.traces import trace_steps
from review import selectors

from .board import Board, Column, Composer, agreed_value, differs

CHECK_NAMES = {
    "tool_choice": "Tool choice",
    "argument_format": "Argument format",
    "step_order": "Step order",
    "output_alignment": "Output/answer alignment",
    "evidence": "Evidence",
}
REASON_NAMES = {
    "unsolvable": "unsolvable",
    "ambiguous_query": "ambiguous query",
    "tool_hinting": "tool-hinting query",
    "other": "other",
}
MAX_NOTE = 1000


def _original(board: Board) -> list[dict]:
    """The steps of the item's trace: the checks are given once per step of it."""
    item = board.item
    return trace_steps(item.trajectory_first.messages if item.trajectory_first is not None else [])


def _checks(label: dict) -> list[dict]:
    checks = label.get("checks")
    return [c if isinstance(c, dict) else {} for c in checks] if isinstance(checks, list) else []


def _mark(label: dict, i: int, check: str) -> str:
    checks = _checks(label)
    return str(checks[i].get(check) or "") if i < len(checks) else ""


def _correction(item: Item, column: Column, corrected: dict[int, Trajectory]) -> dict:
    label = column.label
    trajectory = corrected.get(label.get("corrected_trajectory") or 0)
    if label.get("verdict") != "corrected" or trajectory is None:
        return {"n": column.n, "name": column.name, "trajectory": None}
    return {
        "n": column.n,
        "name": column.name,
        "annotation": column.annotation.pk,
        "value": f"correction:{column.annotation.pk}",
        "trajectory": trajectory,
        "diff": correction_diff(item=item, trajectory=trajectory),
        "edit_reasons": [str(r) for r in label.get("edit_reasons") or ()],
    }


def trace_board_context(board: Board) -> dict:
    item, draft = board.item, board.draft
    original = _original(board)
    ids = [c.label.get("corrected_trajectory") for c in board.columns]
    corrected = selectors.corrected_trajectories(item=item, ids=[i for i in ids if isinstance(i, int)])
    corrections = [_correction(item, c, corrected) for c in board.columns]
    grid = []
    for i, step in enumerate(original):
        cells = []
        for check in TRACE_CHECKS:
            marks = [_mark(c.label, i, check) for c in board.columns]
            cells.append(
                {
                    "check": check,
                    "marks": [{"n": c.n, "mark": m} for c, m in zip(board.columns, marks, strict=True)],
                    "differs": differs(marks),
                    "value": _mark(draft, i, check),
                }
            )
        notes = [
            {"n": c.n, "note": str(_checks(c.label)[i].get("note") or "")}
            for c in board.columns
            if i < len(_checks(c.label))
        ]
        grid.append(
            {
                "index": i,
                "step": step,
                "cells": cells,
                "notes": [n for n in notes if n["note"]],
                "note": str(_checks(draft)[i].get("note") or "") if i < len(_checks(draft)) else "",
            }
        )
    verdicts = board.values(lambda label: label.get("verdict"))
    outcome = draft.get("verdict", "")
    if outcome == "corrected":
        taken = next(
            (
                c
                for c in corrections
                if c["trajectory"] is not None and c["trajectory"].pk == draft.get("corrected_trajectory")
            ),
            None,
        )
        outcome = taken["value"] if taken else ""
    for c in corrections:
        c["checked"] = c.get("value") == outcome
    return {
        "view": trace_view(item=item, links=board.links, staff=True),
        "staff": True,
        "trace_grid": grid,
        "check_names": [(c, CHECK_NAMES[c]) for c in TRACE_CHECKS],
        "corrections": corrections,
        "verdicts_differ": differs(verdicts),
        "discard_reasons": list(REASON_NAMES.items()),
        "outcome": outcome,
        "n_differing": int(differs(verdicts)) + sum(c["differs"] for row in grid for c in row["cells"]),
    }


def parse_trace(data: QueryDict, board: Board) -> tuple[dict, dict[str, str]]:
    errors: dict[str, str] = {}
    draft: dict = {}
    outcome = data.get("outcome", "")
    if outcome in ("correct", "discard"):
        draft["verdict"] = outcome
    elif outcome.startswith("correction:"):
        column = next((c for c in board.columns if str(c.annotation.pk) == outcome.split(":", 1)[1]), None)
        label = column.label if column is not None else {}
        if label.get("verdict") != "corrected" or not label.get("corrected_trajectory"):
            errors["outcome"] = "That annotator did not correct the trace: choose another outcome."
        else:
            draft["verdict"] = "corrected"
            for key in ("corrected_trajectory", "edit_reasons", "final_answer"):
                if key in label:
                    draft[key] = label[key]
    else:
        errors["outcome"] = "Choose an outcome: correct as is, one annotator's correction, or discard."
    if draft.get("verdict") == "discard":
        reason = data.get("discard_reason", "")
        if reason not in TRACE_DISCARD_REASONS:
            errors["discard_reason"] = (
                "Say why the trace is discarded: " + ", ".join(REASON_NAMES.values()) + "."
            )
        else:
            draft["discard_reason"] = reason
        note = data.get("discard_note", "").strip()
        if len(note) > MAX_NOTE:
            errors["discard_note"] = f"Keep the note under {MAX_NOTE} characters."
        elif note:
            draft["discard_note"] = note
    checks = []
    for i in range(len(_original(board))):
        entry = {
            c: data.get(f"check_{i}_{c}")
            for c in TRACE_CHECKS
            if data.get(f"check_{i}_{c}") in ("pass", "fail")
        }
        note = data.get(f"check_{i}_note", "").strip()
        if len(note) > MAX_NOTE:
            errors["checks"] = f"Step {i + 1}: keep the note under {MAX_NOTE} characters."
        elif note:
            entry["note"] = note
        checks.append(entry)
    if any(checks):
        draft["checks"] = checks
    return draft, errors


def agreed_trace(board: Board) -> dict:
    """The checks every annotator marked alike (the verdict split, or there would be a majority)."""
    checks = []
    for i in range(len(_original(board))):
        entry = {}
        for check in TRACE_CHECKS:
            mark = agreed_value(board.values(lambda label, i=i, check=check: _mark(label, i, check)), "")
            if mark:
                entry[check] = mark
        checks.append(entry)
    return {"checks": checks} if any(checks) else {}


TRACE = Composer(
    template="review/adjudicate_trace.html",
    context=trace_board_context,
    parse=parse_trace,
    agreed=agreed_trace,
)
