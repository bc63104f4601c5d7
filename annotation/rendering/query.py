"""The query refinement page's view data (Agent-X, the step before tracing): the visual input,
the environment and tools, the candidate queries in a per-annotator order; and the form.

Labels name candidates by their index in the record; only the page numbers them as shown. The
order is recomputed on every request from (item, annotator), never read from the client.
Everything here is plain text for the templates to escape."""

from __future__ import annotations

import hashlib
import uuid
from dataclasses import dataclass, field

from django.http import QueryDict

from annotation.labels import QUERY_REJECT_REASONS
from annotation.models import Item

from .label_form import SubmissionFields, read_submission
from .messages import Links, MediaView, media_view
from .text import as_text

DECISIONS = (("pick", "Pick as is"), ("edit", "Edit"), ("reject", "Reject all"))
REJECT_REASONS = {
    "tool_hinting": "Tool-hinting: the query says which tools to use",
    "trivially_answerable": "Trivially answerable: no tools or reasoning needed",
    "ambiguous": "Ambiguous: more than one reasonable answer",
}
assert tuple(REJECT_REASONS) == QUERY_REJECT_REASONS
QUERY_MAX = 4000
NOTE_MAX = 1000


def candidates_of(item: Item) -> list[str]:
    payload = item.payload if isinstance(item.payload, dict) else {}
    return [as_text(c) for c in payload.get("candidates") or ()]


def query_order(*, item: Item, annotator_id: int | None, saved: list | None = None) -> list[str]:
    """Candidate indexes (as strings) in display order: the order saved with the annotator's
    label when there is one, else sha256 per (item, annotator, index); record order for staff."""
    indexes = [str(i) for i in range(len(candidates_of(item)))]
    if annotator_id is None:
        return indexes
    if saved and sorted(map(str, saved)) == sorted(indexes):
        return [str(i) for i in saved]
    seed = f"query:{item.pk}:{annotator_id}"
    return sorted(indexes, key=lambda i: hashlib.sha256(f"{seed}:{i}".encode()).digest())


@dataclass(slots=True)
class Candidate:
    n: int  # the number shown (1-based, in display order)
    index: int  # the index in the record, which labels use
    text: str


@dataclass(slots=True)
class QueryView:
    media: list[MediaView]
    environment: str
    tools: list[tuple[str, str]]  # (name, description) of the tool environment, if any
    candidates: list[Candidate]
    source_model: str  # staff only


def query_view(*, item: Item, order: list[str], links: Links, staff: bool) -> QueryView:
    texts = candidates_of(item)
    task = item.task
    tools = []
    if task is not None and task.tool_env is not None:
        tools = [
            (as_text(t.get("name")), as_text(t.get("description")))
            for t in task.tool_env.tools or ()
            if isinstance(t, dict)
        ]
    payload = item.payload if isinstance(item.payload, dict) else {}
    source = payload.get("source") if isinstance(payload.get("source"), dict) else {}
    return QueryView(
        media=[media_view(path, links) for path in (task.media if task is not None else None) or ()],
        environment=as_text(task.environment) if task is not None else "",
        tools=tools,
        candidates=[Candidate(n=n, index=int(i), text=texts[int(i)]) for n, i in enumerate(order, start=1)],
        source_model=as_text(source.get("model")) if staff else "",
    )


@dataclass
class QueryForm(SubmissionFields):
    decision: str = ""
    chosen: int | None = None
    drafts: dict[int, str] = field(default_factory=dict)  # candidate index → text in its edit box
    reject_reason: str = ""
    note: str = ""

    def query(self, candidates: list[str]) -> str:
        if self.chosen is None:
            return ""
        return candidates[self.chosen] if self.decision == "pick" else self.drafts.get(self.chosen, "")

    def label(self, candidates: list[str]) -> dict:
        label: dict = {"decision": self.decision}
        if self.decision == "reject":
            label["reject_reason"] = self.reject_reason
        else:
            label["chosen"] = self.chosen
            label["query"] = self.query(candidates)
        if self.note:
            label["note"] = self.note
        return label

    def rows(self, view: QueryView) -> list[dict]:
        """What the template draws per candidate, in display order."""
        return [
            {
                "n": c.n,
                "index": c.index,
                "text": c.text,
                "checked": c.index == self.chosen,
                "draft": self.drafts.get(c.index, c.text),
                "editing": self.decision == "edit" and c.index == self.chosen,
            }
            for c in view.candidates
        ]


def parse_query_form(
    data: QueryDict,
    *,
    candidates: list[str],
    order: list[str],
    editing: bool,
    previous: dict[int, str] | None = None,
) -> QueryForm:
    """The posted form. The edit boxes come as one `query` field per candidate, in the order they
    were shown, so the page works without JavaScript. `previous`: the edit boxes as the saved
    label filled them (a pick after an edit leaves the old wording there)."""
    form = QueryForm(
        decision=data.get("decision", "").strip(),
        reject_reason=data.get("reject_reason", "").strip(),
        note=data.get("note", "").strip(),
        flagged=data.get("flagged") in ("on", "1", "true"),
        client_id=data.get("client_id", "").strip(),
    )
    boxes = data.getlist("query")
    for position, index in enumerate(order):
        if position < len(boxes):
            form.drafts[int(index)] = boxes[position].strip()
    raw_chosen = data.get("chosen", "").strip()
    if raw_chosen:
        try:
            form.chosen = int(raw_chosen)
        except ValueError:
            form.chosen = None
        if form.chosen is None or not 0 <= form.chosen < len(candidates):
            form.chosen = None
            form.errors["chosen"] = "That is not one of the candidates shown; pick one of them."
    if form.decision not in dict(DECISIONS):
        form.errors["decision"] = "Pick a candidate as is, edit one, or reject them all."
    elif form.decision == "reject":
        if form.reject_reason not in REJECT_REASONS:
            form.errors["reject_reason"] = "Say why every candidate is rejected."
        form.chosen = None
    elif form.chosen is None:
        form.errors.setdefault("chosen", f"Choose the candidate to {form.decision}.")
    elif form.decision == "pick":
        draft = form.drafts.get(form.chosen)
        if draft and draft not in (candidates[form.chosen], (previous or {}).get(form.chosen)):
            shown = shown_number(order, form.chosen)
            form.errors["decision"] = (
                f"You changed the text of candidate {shown} but chose Pick as is: "
                "choose Edit to keep your wording."
            )
    else:  # edit
        text = form.drafts.get(form.chosen, "")
        shown = shown_number(order, form.chosen)
        if len(boxes) != len(order):
            form.errors["query"] = "The edit boxes did not all arrive; reload the page and edit again."
        elif not text:
            form.errors["query"] = f"Write the edited query for candidate {shown}."
        elif text == candidates[form.chosen]:
            form.errors["query"] = f"Candidate {shown} is unchanged: edit its text, or pick it as is."
        elif len(text) > QUERY_MAX:
            form.errors["query"] = f"Keep the query to {QUERY_MAX} characters (it has {len(text)})."
    if len(form.note) > NOTE_MAX:
        form.errors["note"] = f"Keep the note to {NOTE_MAX} characters (it has {len(form.note)})."
    read_submission(form, data, editing=editing)
    return form


def initial_query_form(annotation) -> QueryForm:
    """The saved label to edit, or an empty form (nothing pre-picked: no position bias)."""
    if annotation is None:
        return QueryForm(client_id=str(uuid.uuid4()))
    label = annotation.label if isinstance(annotation.label, dict) else {}
    chosen = label.get("chosen") if isinstance(label.get("chosen"), int) else None
    form = QueryForm(
        decision=str(label.get("decision") or ""),
        chosen=chosen,
        reject_reason=str(label.get("reject_reason") or ""),
        note=str(label.get("note") or ""),
        flagged=annotation.flagged,
        version=annotation.version,
    )
    if form.decision == "edit" and chosen is not None:
        form.drafts[chosen] = str(label.get("query") or "")
    return form


def query_service_errors(errors: dict) -> dict[str, str]:
    """SubmitError.errors (label paths) → form fields."""
    fields = ("decision", "chosen", "query", "reject_reason", "note")
    return {(k if k in fields else "label"): str(v) for k, v in errors.items()}


def shown_number(order: list | None, index: object) -> int | None:
    """The number candidate `index` had on the annotator's page; None when unknown."""
    if not order or not isinstance(index, int):
        return None
    try:
        return [str(i) for i in order].index(str(index)) + 1
    except ValueError:
        return None


def query_summary(label: dict, *, order: list | None = None) -> str:
    """One line for tables: "edit 2", "reject: ambiguous". With `order`, the number is the one
    the annotator saw; without, the candidate's number in the record (index + 1)."""
    decision = str(label.get("decision") or "")
    if decision == "reject":
        return f"reject: {label.get('reject_reason', '')}"
    chosen = label.get("chosen")
    number = shown_number(order, chosen) if order is not None else None
    if number is None and isinstance(chosen, int):
        number = chosen + 1
    return f"{decision} {number}" if number is not None else decision
