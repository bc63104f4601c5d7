"""Label shapes per item kind: validation, canonical comparison, and blinded display order.

Labels are stored in canonical terms. For pairs that is "first"/"second" (the item's two
trajectories in stored order), never the A/B letters an annotator saw; the display order is
recorded next to the label so the A/B view can always be reconstructed.
"""

from __future__ import annotations

import hashlib
from typing import Any

from jsonschema import Draft202012Validator

from .models import Item, ItemKind, Project

PAIR_SIDES = ("first", "second")

_TAGS = {"type": "array", "items": {"type": "string"}, "uniqueItems": True}
LABEL_SCHEMAS: dict[str, dict[str, Any]] = {
    ItemKind.PAIR: {
        "type": "object",
        "required": ["preferred"],
        "additionalProperties": False,
        "properties": {
            "preferred": {"enum": ["first", "second", "tie"]},
            "tags": {
                "type": "object",
                "additionalProperties": False,
                "properties": {"first": _TAGS, "second": _TAGS},
            },
            "confidence": {"type": "integer", "minimum": 1, "maximum": 5},
        },
    },
    ItemKind.STEP: {
        "type": "object",
        "required": ["chosen"],
        "properties": {
            "chosen": {"type": "string", "minLength": 1},
            "checklist": {
                "type": "array",
                "items": {"enum": ["yes", "in_progress", "no"]},
                "maxItems": 5,
            },
        },
    },
    ItemKind.TRACE: {
        "type": "object",
        "required": ["verdict"],
        "properties": {
            "verdict": {"enum": ["correct", "corrected", "unsolvable"]},
            "corrected_messages": {"type": "array"},
            "errors": _TAGS,
        },
    },
    ItemKind.PCA: {
        "type": "object",
        "required": ["perception", "cognition", "action"],
        "additionalProperties": False,
        "properties": {k: {"enum": [0, 1]} for k in ("perception", "cognition", "action")},
    },
    ItemKind.RECORDING: {
        "type": "object",
        "required": ["actions"],
        "properties": {
            "actions": {"type": "array"},
            "answer": {"type": "string"},
            "judge_passed": {"type": "boolean"},
        },
    },
}
_VALIDATORS = {kind: Draft202012Validator(schema) for kind, schema in LABEL_SCHEMAS.items()}


class LabelError(ValueError):
    """A label that does not fit its item; `errors` maps field → reason."""

    def __init__(self, errors: dict[str, str]):
        self.errors = errors
        super().__init__("; ".join(f"{field}: {reason}" for field, reason in errors.items()))


def validate_label(*, project: Project, item: Item, label: Any) -> dict:
    validator = _VALIDATORS[item.kind]
    errors = {
        (".".join(str(p) for p in err.absolute_path) or "label"): err.message
        for err in validator.iter_errors(label)
    }
    if errors:
        raise LabelError(errors)
    if item.kind == ItemKind.PAIR:
        if label["preferred"] == "tie" and not project.allow_tie:
            raise LabelError({"preferred": "This project does not allow ties."})
        allowed = set(project.critical_tags(item.family))
        for side, tags in (label.get("tags") or {}).items():
            unknown = sorted(set(tags) - allowed)
            if unknown:
                raise LabelError({f"tags.{side}": f"Unknown tag(s) for this project: {', '.join(unknown)}"})
    if item.kind == ItemKind.STEP:
        ids = {c.get("id") for c in item.payload.get("candidates", [])}
        if label["chosen"] not in ids:
            raise LabelError({"chosen": f"{label['chosen']!r} is not a candidate of this step."})
    return label


def comparable(kind: str, label: dict) -> Any:
    """The part of a label that agreement is judged on."""
    if kind == ItemKind.PAIR:
        return label.get("preferred")
    if kind == ItemKind.STEP:
        return label.get("chosen")
    if kind == ItemKind.TRACE:
        return label.get("verdict")
    if kind == ItemKind.PCA:
        return (label.get("perception"), label.get("cognition"), label.get("action"))
    return label.get("judge_passed")


def critical_tag_sets(kind: str, label: dict) -> dict[str, frozenset[str]]:
    if kind != ItemKind.PAIR:
        return {}
    tags = label.get("tags") or {}
    return {side: frozenset(tags.get(side) or ()) for side in PAIR_SIDES}


def display_order(*, item_id: int, annotator_id: int) -> list[str]:
    """Deterministic per (item, annotator), balanced over annotators: ["first", "second"] means
    A shows the first trajectory."""
    digest = hashlib.sha256(f"arbiter-order:{item_id}:{annotator_id}".encode()).digest()
    return ["first", "second"] if digest[0] % 2 == 0 else ["second", "first"]


def to_canonical_side(order: list[str], letter: str) -> str:
    """'A'/'B' as seen → 'first'/'second'."""
    return order[0] if letter == "A" else order[1]


def to_letter(order: list[str], side: str) -> str:
    return "A" if order[0] == side else "B"
