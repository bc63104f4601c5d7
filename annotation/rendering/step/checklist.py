"""The step page's checklist: the version in force, its history, the marks UI for the project's
scope, and the edit form.

Visibility of edits (decided for issue 5): a checklist edit applies to the item, so everyone who
labels the item afterwards marks the latest version. Annotators see that it was edited, when and
why, but never by whom (blinding): another annotator's edit reads "edited by another annotator".
Reviewers and managers see the author's name. A label keeps the version it marked; an annotator
whose saved label marks an older version is offered the latest one (marks start over, because
items changed)."""

from __future__ import annotations

from dataclasses import dataclass, field

from django.http import QueryDict

from annotation.models import MAX_CHECKLIST_ITEMS
from annotation.services.checklists import Version

from .form import MARKS, StepForm

SCOPE_WORDING = {
    "chosen": (
        "Checklist after the best candidate",
        "Judge the page as it would be right after the action you pick as best: is each subgoal "
        "done (Yes), under way (In progress) or not reached (No)?",
    ),
    "per_candidate": (
        "Checklist after each candidate",
        "For every candidate, judge the page as it would be right after that action: is each "
        "subgoal done (Yes), under way (In progress) or not reached (No)?",
    ),
    "trajectory": (
        "Checklist for the trajectory so far",
        "Judge the trajectory up to the current observation, before any candidate is taken: is "
        "each subgoal done (Yes), under way (In progress) or not reached (No)?",
    ),
}


@dataclass
class ChecklistEditForm:
    """The edit form: MAX_CHECKLIST_ITEMS rows (blank rows are dropped: blank a row to remove
    it, fill one to add), a reason, and the version it edits."""

    rows: list[dict]
    reason: str = ""
    parent_version: int = 1
    message: str = ""
    errors: dict[str, str] = field(default_factory=dict)

    @property
    def item_error(self) -> str:
        return self.errors.get("items", "")

    @property
    def reason_error(self) -> str:
        return self.errors.get("reason", "")

    @property
    def items(self) -> list[dict]:
        return [{"title": r["title"], "goal": r["goal"]} for r in self.rows]


def edit_form_for(version: Version) -> ChecklistEditForm:
    rows = [
        {"n": n, "title": c.get("title", ""), "goal": c.get("goal", "")}
        for n, c in enumerate(version.items, 1)
    ]
    return ChecklistEditForm(rows=_pad(rows), parent_version=version.number)


def _pad(rows: list[dict]) -> list[dict]:
    rows = rows[:MAX_CHECKLIST_ITEMS]
    return rows + [{"n": n, "title": "", "goal": ""} for n in range(len(rows) + 1, MAX_CHECKLIST_ITEMS + 1)]


def parse_edit_form(data: QueryDict) -> ChecklistEditForm:
    """Rows `title_<n>` / `goal_<n>`; any number of them is read, so the service can refuse a
    sixth item with a clear message rather than drop it."""
    numbers = sorted(
        {
            int(k.split("_", 1)[1])
            for k in data
            if k.startswith(("title_", "goal_")) and k.split("_", 1)[1].isdigit()
        }
    )
    rows = [
        {"n": n, "title": data.get(f"title_{n}", "").strip(), "goal": data.get(f"goal_{n}", "").strip()}
        for n in numbers
    ]
    try:
        parent = int(data.get("parent_version", ""))
    except ValueError:
        parent = 0
    form = ChecklistEditForm(rows=rows, reason=data.get("reason", "").strip(), parent_version=parent)
    return form


def shown_rows(form: ChecklistEditForm) -> list[dict]:
    """The rows to show again after an error: the filled ones first, padded to the maximum."""
    filled = [r for r in form.rows if r["title"] or r["goal"]]
    if len(filled) > MAX_CHECKLIST_ITEMS:
        return [{"n": n, **{k: r[k] for k in ("title", "goal")}} for n, r in enumerate(filled, 1)]
    return _pad([{"n": n, "title": r["title"], "goal": r["goal"]} for n, r in enumerate(filled, 1)])


def who(version: Version, *, viewer_id: int, staff: bool) -> str:
    """Blinded for annotators: 'you' or 'another annotator'; the name for staff."""
    if version.author_id is None:
        return "imported"
    if staff:
        return version.author_name
    return "you" if version.author_id == viewer_id else "another annotator"


def checklist_panel(
    *,
    versions: list[Version],
    form: StepForm,
    scope: str,
    candidates: list[dict],
    viewer_id: int,
    staff: bool,
    edit_form: ChecklistEditForm | None,
) -> dict:
    """Everything the template needs for the checklist card and the marks in the form."""
    latest = versions[-1]
    by_number = {v.number: v for v in versions}
    marking = by_number.get(form.checklist_version, latest)
    legend, help_text = SCOPE_WORDING.get(scope, SCOPE_WORDING["chosen"])
    items = marking.items
    rows = [
        {
            "index": i,
            "title": c.get("title", ""),
            "goal": c.get("goal", ""),
            "mark": form.checklist[i] if i < len(form.checklist) else "",
        }
        for i, c in enumerate(items)
    ]
    grid = [
        {**c, "cells": [{"index": i, "mark": form.mark(c["id"], i)} for i in range(len(items))]}
        for c in candidates
    ]
    history = [
        {
            "number": v.number,
            "parent": v.parent,
            "who": who(v, viewer_id=viewer_id, staff=staff),
            "when": v.created_at,
            "reason": v.reason,
            "items": v.items,
            "latest": v is latest,
        }
        for v in reversed(versions)
    ]
    edited_by_other = latest.author_id is not None and latest.author_id != viewer_id
    return {
        "scope": scope,
        "legend": legend,
        "help": help_text,
        "latest": latest,
        "marking": marking,
        "outdated": marking.number != latest.number,
        "other_note": (
            f"Edited by {who(latest, viewer_id=viewer_id, staff=staff)}: {latest.reason}"
            if edited_by_other
            else ""
        ),
        "rows": rows,
        "grid": grid,
        "history": history,
        "marks": MARKS,
        "edit": edit_form or edit_form_for(latest),
        "max_items": MAX_CHECKLIST_ITEMS,
    }
