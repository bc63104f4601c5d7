"""Pair labels as the annotator saw them (A/B) and back to canonical terms (first/second).

The API accepts either shape on submit and returns both, so a client that only ever shows
A/B never has to know which stored trajectory was on which side.
"""

from __future__ import annotations

from annotation.labels import PAIR_SIDES, to_canonical_side, to_letter

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
