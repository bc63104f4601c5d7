"""The step label form: parsing a POST into a label, and the form a saved label gives back.

Checklist marks come in one of two shapes, by the project's checklist scope:
- "chosen" / "trajectory": `check_<i>` per checklist item (label["checklist"]);
- "per_candidate": `mark_<n>_<i>` per (candidate at display position n, item i), stored as
  label["checklist_by_candidate"] = {candidate id: marks}; label["checklist"] repeats the best
  candidate's row, so what is read for the chosen scope holds for every scope.
Marks always refer to the items of `checklist_version`."""

from __future__ import annotations

import uuid
from dataclasses import dataclass, field

from django.http import QueryDict

from ..label_form import SubmissionFields, read_submission

MARKS = (("yes", "Yes"), ("in_progress", "In progress"), ("no", "No"))
MARK_VALUES = frozenset(value for value, _ in MARKS)


@dataclass
class StepForm(SubmissionFields):
    chosen: str = ""
    equivalent: list[str] = field(default_factory=list)
    invalid: list[str] = field(default_factory=list)
    checklist: list[str] = field(default_factory=list)
    by_candidate: dict[str, list[str]] | None = None
    checklist_version: int = 1
    rationale: str = ""

    def label(self) -> dict:
        label = {
            "chosen": self.chosen,
            "equivalent": self.equivalent,
            "invalid": self.invalid,
            "checklist": self.checklist,
            "checklist_version": self.checklist_version,
        }
        if self.by_candidate is not None:
            label["checklist_by_candidate"] = self.by_candidate
        return label

    def mark(self, candidate: str, index: int) -> str:
        row = (self.by_candidate or {}).get(candidate) or []
        return row[index] if index < len(row) else ""


def posted_checklist_version(data: QueryDict) -> int | None:
    try:
        version = int(data.get("checklist_version", "1") or "1")
    except ValueError:
        return None
    return version if version >= 1 else None


def parse_step_form(
    data: QueryDict,
    *,
    n_checklist: int,
    editing: bool,
    scope: str = "chosen",
    order: list[str] | None = None,
    checklist_version: int = 1,
) -> StepForm:
    form = StepForm(
        chosen=data.get("chosen", "").strip(),
        equivalent=list(dict.fromkeys(data.getlist("equivalent"))),
        invalid=list(dict.fromkeys(data.getlist("invalid"))),
        checklist_version=checklist_version,
        rationale=data.get("rationale", "").strip(),
        flagged=data.get("flagged") in ("on", "1", "true"),
        client_id=data.get("client_id", "").strip(),
    )
    if not form.chosen:
        form.errors["chosen"] = "Pick the best candidate."
    if scope == "per_candidate":
        form.by_candidate = {
            cid: [data.get(f"mark_{n}_{i}", "") for i in range(n_checklist)]
            for n, cid in enumerate(order or (), start=1)
        }
        form.checklist = list(form.by_candidate.get(form.chosen) or [])
        unmarked = [
            str(n)
            for n, cid in enumerate(order or (), start=1)
            if any(mark not in MARK_VALUES for mark in form.by_candidate[cid])
        ]
        if unmarked:
            form.errors["checklist"] = (
                "Mark every checklist item Yes, In progress or No after each candidate; "
                f"not done for candidate {', '.join(unmarked)}."
            )
    else:
        form.checklist = [data.get(f"check_{i}", "") for i in range(n_checklist)]
        if any(mark not in MARK_VALUES for mark in form.checklist):
            form.errors["checklist"] = "Mark every checklist item Yes, In progress or No."
    read_submission(form, data, editing=editing)
    return form


def initial_step_form(annotation, *, checklist_version: int = 1) -> StepForm:
    """A fresh form marking `checklist_version` (the latest), or the saved label as it was."""
    if annotation is None:
        return StepForm(client_id=str(uuid.uuid4()), checklist_version=checklist_version)
    label = annotation.label
    by_candidate = label.get("checklist_by_candidate")
    return StepForm(
        chosen=label.get("chosen", ""),
        equivalent=list(label.get("equivalent") or ()),
        invalid=list(label.get("invalid") or ()),
        checklist=list(label.get("checklist") or ()),
        by_candidate={str(k): list(v) for k, v in by_candidate.items()}
        if isinstance(by_candidate, dict)
        else None,
        checklist_version=int(label.get("checklist_version") or 1),
        rationale=annotation.rationale,
        flagged=annotation.flagged,
        version=annotation.version,
    )


def step_service_errors(errors: dict) -> dict[str, str]:
    renamed = {"checklist_by_candidate": "checklist", "checklist_version": "checklist"}
    return {
        renamed.get(k, k if k in ("chosen", "equivalent", "invalid", "checklist") else "label"): str(v)
        for k, v in errors.items()
    }
