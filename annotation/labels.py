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
PCA_DIMENSIONS = ("perception", "cognition", "action")
# Agent-X verification (protocols.md C): the five checks per step, the trace verdicts, and why a
# trace is discarded.
TRACE_CHECKS = ("tool_choice", "argument_format", "step_order", "output_alignment", "evidence")
TRACE_VERDICTS = ("correct", "corrected", "discard")
TRACE_DISCARD_REASONS = ("unsolvable", "ambiguous_query", "tool_hinting", "other")
QUERY_REJECT_REASONS = ("tool_hinting", "trivially_answerable", "ambiguous")

_TAGS = {"type": "array", "items": {"type": "string"}, "uniqueItems": True}
_STEP_MARKS = {"type": "array", "items": {"enum": ["yes", "in_progress", "no"]}, "maxItems": 5}
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
        "additionalProperties": False,
        # Candidate ids, never display positions. `checklist`: one mark per checklist item, for
        # the state after the chosen candidate's action (the state the annotator judged).
        "properties": {
            "chosen": {"type": "string", "minLength": 1},
            "equivalent": _TAGS,
            "invalid": _TAGS,
            "checklist": _STEP_MARKS,
            # The checklist version the marks refer to (1 = imported; edits count up).
            "checklist_version": {"type": "integer", "minimum": 1},
            # Project scope "per_candidate": {candidate id: marks for the state after it}.
            "checklist_by_candidate": {"type": "object", "additionalProperties": _STEP_MARKS},
        },
    },
    ItemKind.TRACE: {
        "type": "object",
        "required": ["verdict"],
        "additionalProperties": False,
        "properties": {
            # correct: the trace stands as is; corrected: `corrected_trajectory` is the annotator's
            # new version (parent = the original); discard: not worth correcting, with a reason.
            "verdict": {"enum": list(TRACE_VERDICTS)},
            "discard_reason": {"enum": list(TRACE_DISCARD_REASONS)},
            "discard_note": {"type": "string", "maxLength": 1000},
            # One entry per step of the original trace: the five checks of protocols.md C.
            "checks": {
                "type": "array",
                "items": {
                    "type": "object",
                    "additionalProperties": False,
                    "properties": {
                        **{check: {"enum": ["pass", "fail"]} for check in TRACE_CHECKS},
                        "note": {"type": "string", "maxLength": 1000},
                    },
                },
            },
            "corrected_trajectory": {"type": "integer", "minimum": 1},
            "final_answer": {
                "type": "object",
                "additionalProperties": False,
                "properties": {"value": {}, "justification": {"type": "string"}},
            },
            "edit_reasons": {"type": "array", "items": {"type": "string", "minLength": 1}},
            # Evidence for a step: a URL, or a file uploaded into the project's media.
            "evidence": {
                "type": "array",
                "items": {
                    "type": "object",
                    "required": ["step"],
                    "additionalProperties": False,
                    "properties": {
                        "step": {"type": "integer", "minimum": 0},
                        "url": {"type": "string", "format": "uri"},
                        "media": {"type": "string"},
                    },
                },
            },
        },
        "allOf": [
            {
                "if": {"properties": {"verdict": {"const": "discard"}}},
                "then": {"required": ["discard_reason"]},
            },
            {
                "if": {"properties": {"verdict": {"const": "corrected"}}},
                "then": {"required": ["corrected_trajectory", "edit_reasons"]},
            },
        ],
    },
    ItemKind.QUERY: {
        "type": "object",
        "required": ["decision"],
        "additionalProperties": False,
        "properties": {
            # pick: candidate `chosen` as written; edit: candidate `chosen` rewritten as `query`;
            # reject: none of the candidates is usable, for `reject_reason`.
            "decision": {"enum": ["pick", "edit", "reject"]},
            "chosen": {"type": "integer", "minimum": 0},
            "query": {"type": "string", "minLength": 1, "maxLength": 4000},
            "reject_reason": {"enum": list(QUERY_REJECT_REASONS)},
            "note": {"type": "string", "maxLength": 1000},
        },
        "allOf": [
            {
                "if": {"properties": {"decision": {"enum": ["pick", "edit"]}}},
                "then": {"required": ["chosen", "query"]},
            },
            {
                "if": {"properties": {"decision": {"const": "reject"}}},
                "then": {"required": ["reject_reason"]},
            },
        ],
    },
    ItemKind.PCA: {
        "type": "object",
        "required": ["perception", "cognition", "action"],
        "additionalProperties": False,
        "properties": {
            **{k: {"enum": [0, 1]} for k in PCA_DIMENSIONS},
            # One-line notes: why each dimension got its score (optional, not compared).
            "evidence": {
                "type": "object",
                "additionalProperties": False,
                "properties": {k: {"type": "string", "maxLength": 500} for k in PCA_DIMENSIONS},
            },
        },
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
    if item.kind == ItemKind.QUERY and "chosen" in label:
        n = len(item.payload.get("candidates") or ())
        if label["chosen"] >= n:
            raise LabelError(
                {"chosen": f"This item has {n} candidate queries; there is no number {label['chosen'] + 1}."}
            )
    if item.kind == ItemKind.TRACE:
        from .traces import trace_label_errors  # traces imports the importers; keep this lazy

        trace_errors = trace_label_errors(item=item, label=label)
        if trace_errors:
            raise LabelError(trace_errors)
    if item.kind == ItemKind.STEP:
        ids = {c.get("id") for c in item.payload.get("candidates", [])}
        if label["chosen"] not in ids:
            raise LabelError({"chosen": f"{label['chosen']!r} is not a candidate of this step."})
        for key in ("equivalent", "invalid"):
            unknown = sorted(set(label.get(key) or ()) - ids)
            if unknown:
                raise LabelError({key: f"Not candidates of this step: {', '.join(unknown)}"})
        if label["chosen"] in (label.get("invalid") or ()):
            raise LabelError({"invalid": "The best candidate cannot also be invalid."})
        if set(label.get("equivalent") or ()) & set(label.get("invalid") or ()):
            raise LabelError({"invalid": "A candidate cannot be both equivalent and invalid."})
        _validate_step_marks(item, label, ids)
    return label


def _validate_step_marks(item: Item, label: dict, ids: set) -> None:
    """Marks refer to the items of `checklist_version` (1 = imported); marks per candidate
    (project scope "per_candidate") name every candidate, each with a full list."""
    from .services.checklists import checklist_items

    version = label.get("checklist_version", 1)
    items = checklist_items(item=item, version=version)
    if items is None:
        raise LabelError({"checklist_version": f"This item has no checklist version {version}."})
    marks = label.get("checklist")
    if marks is not None and len(marks) != len(items):
        raise LabelError({"checklist": f"Mark each of the {len(items)} items of checklist v{version} once."})
    by_candidate = label.get("checklist_by_candidate")
    if by_candidate is None:
        # The step page requires it under the "per_candidate" scope; labels composed elsewhere
        # (adjudication, API clients) may judge the best candidate only.
        return
    missing, unknown = sorted(ids - set(by_candidate)), sorted(set(by_candidate) - ids)
    if unknown:
        raise LabelError({"checklist_by_candidate": f"Not candidates of this step: {', '.join(unknown)}"})
    if missing:
        raise LabelError(
            {"checklist_by_candidate": f"Mark the checklist after candidate(s) {', '.join(missing)}."}
        )
    short = sorted(cid for cid, row in by_candidate.items() if len(row) != len(items))
    if short:
        raise LabelError(
            {
                "checklist_by_candidate": f"Mark each of the {len(items)} items of checklist v{version} "
                f"once after candidate(s) {', '.join(short)}."
            }
        )


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
    if kind == ItemKind.QUERY:
        # Agreement is on which candidate is usable (or none); wording edits are not compared.
        return "reject" if label.get("decision") == "reject" else label.get("chosen")
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


# --- pair labels as the annotator saw them (A/B) and back -----------------------------------
# The API accepts either shape and the page posts A/B, so a client that only ever shows A/B
# never has to know which stored trajectory was on which side.

LETTERS = ("A", "B")
DEFAULT_ORDER = ["first", "second"]


def _order(order: list[str] | None) -> list[str]:
    # Labels written outside the queue (fixtures, admin) may carry no order: A is then `first`.
    return list(order) if order and len(order) == 2 else DEFAULT_ORDER


def label_from_seen(order: list[str] | None, seen: dict) -> dict:
    """{"preferred": "A"|"B"|"tie", "tags": {"A": [...]}, ...} → the canonical label."""
    order = _order(order)
    preferred = seen["preferred"]
    label: dict = {"preferred": preferred if preferred == "tie" else to_canonical_side(order, preferred)}
    if "tags" in seen:
        label["tags"] = {
            to_canonical_side(order, letter): list(tags) for letter, tags in seen["tags"].items()
        }
    if "confidence" in seen:
        label["confidence"] = seen["confidence"]
    return label


def label_to_seen(order: list[str] | None, label: dict) -> dict:
    """The canonical label → what the annotator saw (A/B)."""
    order = _order(order)
    preferred = label.get("preferred")
    seen: dict = {"preferred": to_letter(order, preferred) if preferred in PAIR_SIDES else preferred}
    if "tags" in label:
        seen["tags"] = {
            to_letter(order, side): list(tags) for side, tags in (label.get("tags") or {}).items()
        }
    if "confidence" in label:
        seen["confidence"] = label["confidence"]
    return seen


def errors_to_seen(order: list[str] | None, errors: dict[str, str]) -> dict[str, str]:
    """Field errors of a canonical label, renamed to the A/B fields the client sent."""
    order = _order(order)
    renamed = {}
    for field, reason in errors.items():
        parts = field.split(".")
        if len(parts) > 1 and parts[0] == "tags" and parts[1] in PAIR_SIDES:
            parts[1] = to_letter(order, parts[1])
        renamed[".".join(parts)] = reason
    return renamed
