"""Step items (Web-Shepherd): each annotator's best / equivalent / invalid candidates and
checklist marks side by side; the reviewer composes the settled label from them.

Candidates are in stored order with the reference marked: reviewers are staff, and the step
page's staff view shows the same."""

from __future__ import annotations

from django.http import QueryDict

from annotation.rendering.step import MARKS, candidate_order, step_view
from annotation.services.checklists import checklist_items

from .board import Board, Composer, agreed_value, differs

MARK_TEXT = dict(MARKS)


def _marks(label: dict, cid: str) -> list[str]:
    marks = []
    if label.get("chosen") == cid:
        marks.append("best")
    if cid in (label.get("equivalent") or ()):
        marks.append("equivalent")
    if cid in (label.get("invalid") or ()):
        marks.append("invalid")
    return marks


def _checklist(label: dict) -> list:
    marks = label.get("checklist")
    return marks if isinstance(marks, list) else []


def _after(label: dict, cid: str) -> str:
    """Under the per-candidate scope: the annotator's checklist marks after this candidate."""
    by_candidate = label.get("checklist_by_candidate")
    marks = by_candidate.get(cid) if isinstance(by_candidate, dict) else None
    return " / ".join(MARK_TEXT.get(m, str(m)) for m in marks) if isinstance(marks, list) else ""


def _version(label: dict) -> int:
    version = label.get("checklist_version", 1)
    return version if isinstance(version, int) and version >= 1 else 1


def _mark_at(label: dict, i: int, version: int) -> str | None:
    """The annotator's mark on checklist item i, or None when they marked another version."""
    if _version(label) != version:
        return None
    marks = _checklist(label)
    return marks[i] if i < len(marks) else ""


def checklist_version(board: Board) -> int:
    """The checklist the settled marks refer to: the draft's, else the newest any annotator
    marked (an edit is made because the older one fell short)."""
    if "checklist_version" in board.draft:
        return _version(board.draft)
    return max((_version(c.label) for c in board.columns), default=1)


def step_board_context(board: Board) -> dict:
    item = board.item
    view = step_view(
        item=item, order=candidate_order(item=item, annotator_id=None), links=board.links, staff=True
    )
    draft = board.draft
    candidates = []
    for c in view.candidates:
        marks = [_marks(col.label, c["id"]) for col in board.columns]
        candidates.append(
            {
                **c,
                "reference": c["id"] == view.gold,
                "cells": [
                    {"n": col.n, "marks": m, "after": _after(col.label, c["id"])}
                    for col, m in zip(board.columns, marks, strict=True)
                ],
                "differs": differs(marks),
                "chosen": draft.get("chosen") == c["id"],
                "equivalent": c["id"] in (draft.get("equivalent") or ()),
                "invalid": c["id"] in (draft.get("invalid") or ()),
            }
        )
    draft_marks = _checklist(draft)
    by_candidate = draft.get("checklist_by_candidate")
    if not draft_marks and isinstance(by_candidate, dict):
        # Per-candidate marks: the settled label keeps those after the best candidate.
        draft_marks = list(by_candidate.get(draft.get("chosen")) or ())
    version = checklist_version(board)
    checklist = []
    for i, check in enumerate(checklist_items(item=item, version=version) or ()):
        marks = [_mark_at(col.label, i, version) for col in board.columns]
        checklist.append(
            {
                "index": i,
                "title": str(check.get("title") or ""),
                "goal": str(check.get("goal") or check.get("description") or ""),
                "cells": [
                    {
                        "n": col.n,
                        "mark": m,
                        "text": MARK_TEXT.get(m, "—") if m is not None else "other version",
                    }
                    for col, m in zip(board.columns, marks, strict=True)
                ],
                "differs": differs([m for m in marks if m is not None]),
                "mark": draft_marks[i] if i < len(draft_marks) else "",
            }
        )
    return {
        "view": view,
        "step_candidates": candidates,
        "step_checklist": checklist,
        "marks": MARKS,
        "checklist_version": version,
        "other_versions": sorted({_version(c.label) for c in board.columns} - {version}),
        "n_differing": sum(r["differs"] for r in candidates) + sum(r["differs"] for r in checklist),
    }


def parse_step(data: QueryDict, board: Board) -> tuple[dict, dict[str, str]]:
    payload = board.item.payload if isinstance(board.item.payload, dict) else {}
    ids = [str(c.get("id")) for c in payload.get("candidates") or () if isinstance(c, dict)]
    raw_version = data.get("checklist_version", "1")
    version = int(raw_version) if raw_version.isdigit() and int(raw_version) >= 1 else 1
    items = checklist_items(item=board.item, version=version)
    n_checklist = len(items or ())
    chosen = data.get("chosen", "").strip()
    draft = {
        "chosen": chosen,
        "equivalent": [cid for cid in ids if cid in data.getlist("equivalent") and cid != chosen],
        "invalid": [cid for cid in ids if cid in data.getlist("invalid")],
        "checklist": [data.get(f"check_{i}", "") for i in range(n_checklist)],
    }
    if version != 1:
        draft["checklist_version"] = version
    errors: dict[str, str] = {}
    if items is None:
        errors["checklist_version"] = f"This item has no checklist version {version}; reload the page."
    if chosen not in ids:
        errors["chosen"] = "Pick the best candidate."
    unknown = sorted((set(data.getlist("equivalent")) | set(data.getlist("invalid"))) - set(ids))
    if unknown:
        errors["equivalent"] = f"Not candidates of this step: {', '.join(unknown)}."
    if chosen and chosen in draft["invalid"]:
        errors["invalid"] = "The best candidate cannot also be invalid."
    elif set(draft["equivalent"]) & set(draft["invalid"]):
        errors["invalid"] = "A candidate cannot be both equivalent and invalid."
    if any(mark not in MARK_TEXT for mark in draft["checklist"]):
        errors["checklist"] = "Mark every checklist item Yes, In progress or No."
    return draft, errors


def agreed_step(board: Board) -> dict:
    draft: dict = {}
    version = checklist_version(board)
    n = len(checklist_items(item=board.item, version=version) or ())
    if version != 1:
        draft["checklist_version"] = version
    marks = [
        agreed_value(board.values(lambda label, i=i: _mark_at(label, i, version)), "") or "" for i in range(n)
    ]
    for key in ("equivalent", "invalid"):
        common = agreed_value(board.values(lambda label, key=key: sorted(label.get(key) or ())), [])
        if common:
            draft[key] = common
    if any(marks):
        draft["checklist"] = marks
    return draft


STEP = Composer(
    template="review/adjudicate_step.html", context=step_board_context, parse=parse_step, agreed=agreed_step
)
