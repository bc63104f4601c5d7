"""What the kind-specific adjudication views share: the annotators as numbered columns, the
label the reviewer's form starts from, and how a kind plugs in.

A kind's composer turns the item and its columns into template context (the side-by-side
view and the reviewer's form) and turns the posted form back into a label. The form's state
is always a draft label in canonical terms, so a pre-fill (majority or one annotator's label)
and a refused post render the same way."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from django.http import QueryDict

from annotation.models import Annotation, Item
from annotation.rendering import Links
from review import selectors
from review.lifecycle import consensus_label, majority_label


@dataclass(slots=True)
class Column:
    """One annotator's label, shown as column `n` (1-based; key n takes it)."""

    n: int
    annotation: Annotation
    name: str
    label: dict


@dataclass(slots=True)
class Board:
    item: Item
    links: Links
    columns: list[Column]
    # Where the form's draft came from: "majority", "annotator N" or "" (nothing agreed).
    source: str = ""
    draft: dict = field(default_factory=dict)
    errors: dict[str, str] = field(default_factory=dict)

    def values(self, get: Callable[[dict], Any]) -> list[Any]:
        return [get(c.label) for c in self.columns]


@dataclass(frozen=True)
class Composer:
    """One kind's adjudication view: `template` has partials `content` (the side-by-side view)
    and `form` (the reviewer's label); `context(board)` builds what they read; `parse(data,
    board)` returns the posted draft label and field errors (empty when it may be saved)."""

    template: str
    context: Callable[[Board], dict]
    parse: Callable[[QueryDict, Board], tuple[dict, dict[str, str]]]
    # Without a majority: a draft holding only what every annotator gave alike.
    agreed: Callable[[Board], dict] | None = None


def differs(values: list[Any]) -> bool:
    """True when the annotators gave different values (compared as written)."""
    return len({repr(v) for v in values}) > 1


def build_columns(item: Item, aliases: dict[int, str] | None) -> list[Column]:
    return [
        Column(
            n=n,
            annotation=a,
            name=selectors.display_name(a.annotator, aliases),
            label=a.label if isinstance(a.label, dict) else {},
        )
        for n, a in enumerate(item.annotations.all(), start=1)
    ]


def starting_draft(board: Board, take: str | None, agreed: Callable[[Board], dict] | None = None) -> None:
    """The form starts from annotator `take`'s label (?take=N, key N), else from the majority
    label, else from what all annotators agree on. Personal fields stay with the annotator who
    wrote them unless that annotator's label is taken."""
    if take and take.isdigit() and 1 <= int(take) <= len(board.columns):
        column = board.columns[int(take) - 1]
        alias = column.name == f"Annotator {column.n}"
        board.draft, board.source = (
            dict(column.label),
            column.name if alias else f"{column.name} (annotator {column.n})",
        )
        return
    majority = majority_label(board.item.kind, [c.label for c in board.columns])
    if majority is not None:
        # The majority answer carries the first agreeing annotator's other fields too.
        board.draft, board.source = consensus_label(majority), "majority"
    elif agreed is not None and board.columns:
        board.draft = agreed(board)
        board.source = "the parts all annotators agree on" if board.draft else ""


def agreed_value(values: list[Any], empty: Any = None) -> Any:
    """The value every annotator gave, else `empty`."""
    return values[0] if values and not differs(values) else empty


def short_summary(kind: str, label: dict) -> str:
    """One annotator's label in a line, for the annotation cards of the kind views."""
    if not label:
        return ""
    if kind == "step":
        parts = [f"best {label.get('chosen', '?')}"]
        parts += [
            f"{key} {', '.join(map(str, label[key]))}" for key in ("equivalent", "invalid") if label.get(key)
        ]
        if label.get("checklist"):
            parts.append("checklist " + " / ".join(map(str, label["checklist"])))
        return " · ".join(parts)
    if kind == "pca":
        return " · ".join(
            f"{dim[0].upper()} {label.get(dim, '?')}" for dim in ("perception", "cognition", "action")
        )
    if kind == "trace":
        verdict = str(label.get("verdict", "?"))
        if verdict == "discard":
            verdict += f": {label.get('discard_reason', '?')}"
        failed = sum(1 for c in label.get("checks") or () if isinstance(c, dict) and "fail" in c.values())
        return verdict + (
            f" · {failed} step{'s' if failed != 1 else ''} with a failed check" if failed else ""
        )
    if kind == "query":
        decision, chosen = label.get("decision"), label.get("chosen")
        number = chosen + 1 if isinstance(chosen, int) else "?"
        if decision == "reject":
            return f"rejected all: {label.get('reject_reason', '?')}"
        return f"rewrote candidate {number}" if decision == "edit" else f"picked candidate {number}"
    return ""
