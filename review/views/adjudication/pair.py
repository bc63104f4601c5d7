"""Pairs: the reviewer's final label (canonical sides, never A/B) and the annotators' cards."""

from __future__ import annotations

from dataclasses import dataclass, field

from django.http import QueryDict

from annotation.labels import PAIR_SIDES
from annotation.models import Item
from annotation.rendering import pretty_json
from review import selectors
from review.lifecycle import consensus_label, label_groups

from ..history import label_summary


@dataclass
class FinalForm:
    """The final pair label as posted: canonical sides, never A/B."""

    preferred: str = ""
    tags: dict[str, list[str]] = field(default_factory=lambda: {side: [] for side in PAIR_SIDES})
    reason: str = ""
    errors: dict[str, str] = field(default_factory=dict)

    def label(self) -> dict:
        return {"preferred": self.preferred, "tags": self.tags}


def parse_final_form(data: QueryDict, *, allowed_tags: list[str], allow_tie: bool) -> FinalForm:
    form = FinalForm(preferred=data.get("preferred", "").strip(), reason=data.get("reason", "").strip())
    choices = [*PAIR_SIDES, "tie"] if allow_tie else list(PAIR_SIDES)
    if form.preferred not in choices:
        form.errors["preferred"] = "Choose the better candidate: first or second" + (
            " (or tie)." if allow_tie else "."
        )
        form.preferred = ""
    for side in PAIR_SIDES:
        chosen = [t.strip() for t in data.getlist(f"tags_{side}") if t.strip()]
        unknown = sorted(set(chosen) - set(allowed_tags))
        if unknown:
            allowed = ", ".join(allowed_tags) or "none"
            form.errors[f"tags_{side}"] = (
                f"Unknown critical tag for {side}: {', '.join(unknown)}. Allowed: {allowed}."
            )
        form.tags[side] = [t for t in allowed_tags if t in chosen]
    if not form.reason:
        form.errors["reason"] = "Say why: the reason is kept with the decision."
    return form


def tag_groups(form: FinalForm, allowed_tags: list[str]) -> list[dict]:
    return [
        {
            "side": side,
            "field": f"tags_{side}",
            "error": form.errors.get(f"tags_{side}", ""),
            "choices": [
                {"value": t, "label": t.replace("_", " "), "checked": t in form.tags[side]}
                for t in allowed_tags
            ],
        }
        for side in PAIR_SIDES
    ]


def cards(item: Item, aliases: dict[int, str] | None) -> list[dict]:
    out = []
    for n, a in enumerate(item.annotations.all(), start=1):
        label = a.label if isinstance(a.label, dict) else {}
        order = a.display_order if a.display_order and len(a.display_order) == 2 else list(PAIR_SIDES)
        out.append(
            {
                "n": n,
                "annotation": a,
                "name": selectors.display_name(a.annotator, aliases),
                "preferred": label.get("preferred", ""),
                "tags": [(side, (label.get("tags") or {}).get(side) or []) for side in PAIR_SIDES],
                "confidence": label.get("confidence"),
                "saw": f"A = {order[0]}, B = {order[1]}",
                "label_text": label_summary(item.kind, label),
                "label_json": pretty_json(label),
            }
        )
    return out


def groups(item: Item, cards: list[dict]) -> list[dict]:
    """Kinds without their own view: the distinct answers, the most given first, each
    acceptable as it is."""
    labels = [c["annotation"].label for c in cards]
    indexes_by_answer = label_groups(item.kind, labels)
    sizes = [len(indexes) for indexes in indexes_by_answer]
    out = []
    for rank, indexes in enumerate(indexes_by_answer):
        first = cards[indexes[0]]["annotation"]
        out.append(
            {
                "annotation_id": first.pk,
                "votes": len(indexes),
                "names": [cards[i]["name"] for i in indexes],
                # The majority is the one answer given more often than any other.
                "majority": rank == 0 and (len(sizes) == 1 or sizes[0] > sizes[1]),
                "label_json": pretty_json(consensus_label(first.label)),
            }
        )
    return out
