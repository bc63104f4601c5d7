"""Query items (query refinement): the visual, the candidate queries and each annotator's
decision — a candidate as written, a candidate rewritten (shown as a word diff against it), or
all rejected with a reason. The reviewer settles on one candidate, on a rewrite (and may edit
it further), or rejects all with a reason."""

from __future__ import annotations

from django.http import QueryDict

from annotation.labels import QUERY_REJECT_REASONS
from annotation.rendering import word_diff
from annotation.rendering.query import candidates_of as query_candidates
from annotation.rendering.query import query_order, query_view

from .board import Board, Composer, differs

REASON_NAMES = {
    "tool_hinting": "tool-hinting",
    "trivially_answerable": "trivially answerable",
    "ambiguous": "ambiguous",
}
MAX_QUERY = 4000
MAX_NOTE = 1000


def candidates_of(board: Board) -> list[str]:
    return query_candidates(board.item)


def _answer(label: dict) -> str:
    """What agreement is judged on, as shown: the candidate number or "reject"."""
    if label.get("decision") == "reject":
        return "reject"
    chosen = label.get("chosen")
    return str(chosen + 1) if isinstance(chosen, int) else ""


def query_board_context(board: Board) -> dict:
    candidates = candidates_of(board)
    draft = board.draft
    decisions = []
    for c in board.columns:
        label = c.label
        chosen = label.get("chosen") if isinstance(label.get("chosen"), int) else None
        base = candidates[chosen] if chosen is not None and chosen < len(candidates) else ""
        text = str(label.get("query") or "")
        decisions.append(
            {
                "n": c.n,
                "name": c.name,
                "decision": label.get("decision", ""),
                "chosen": chosen,
                "number": chosen + 1 if chosen is not None else None,
                "edited": label.get("decision") == "edit" and text != base,
                "diff": word_diff(base, text),
                "reject_reason": REASON_NAMES.get(label.get("reject_reason", ""), ""),
                "note": str(label.get("note") or ""),
            }
        )
    rows = []
    for i, text in enumerate(candidates):
        picks = [d["decision"] if d["chosen"] == i and d["decision"] != "reject" else "" for d in decisions]
        rows.append({"index": i, "number": i + 1, "text": text, "cells": picks, "differs": differs(picks)})
    view = query_view(
        item=board.item, order=query_order(item=board.item, annotator_id=None), links=board.links, staff=True
    )
    chosen = draft.get("chosen") if draft.get("decision") != "reject" else None
    query = str(draft.get("query") or "")
    return {
        "view": view,
        "query_rows": rows,
        "query_decisions": decisions,
        "answers_differ": differs(board.values(_answer)),
        "reject_differs": differs([d["decision"] == "reject" for d in decisions]),
        "reject_reasons": list(REASON_NAMES.items()),
        "form_choice": "reject"
        if draft.get("decision") == "reject"
        else (str(chosen) if isinstance(chosen, int) else ""),
        # The text box holds a rewrite only; empty means the chosen candidate as written.
        "form_query": query if draft.get("decision") == "edit" else "",
        "form_reason": draft.get("reject_reason", ""),
        "form_note": draft.get("note", ""),
        "n_differing": sum(r["differs"] for r in rows),
    }


def parse_query(data: QueryDict, board: Board) -> tuple[dict, dict[str, str]]:
    candidates = candidates_of(board)
    choice = data.get("choice", "")
    text = " ".join(data.get("query", "").split())
    note = data.get("note", "").strip()
    errors: dict[str, str] = {}
    draft: dict = {}
    if choice == "reject":
        draft["decision"] = "reject"
        reason = data.get("reject_reason", "")
        if reason in QUERY_REJECT_REASONS:
            draft["reject_reason"] = reason
        else:
            errors["reject_reason"] = (
                "Say why every candidate is rejected: " + ", ".join(REASON_NAMES.values()) + "."
            )
    elif choice.isdigit() and int(choice) < len(candidates):
        index = int(choice)
        edited = bool(text) and text != " ".join(candidates[index].split())
        draft.update(
            {
                "decision": "edit" if edited else "pick",
                "chosen": index,
                "query": text if edited else candidates[index],
            }
        )
        if len(draft["query"]) > MAX_QUERY:
            errors["query"] = f"Keep the query under {MAX_QUERY} characters."
    else:
        errors["choice"] = "Choose a candidate query, or reject them all."
    if len(note) > MAX_NOTE:
        errors["note"] = f"Keep the note under {MAX_NOTE} characters."
    elif note:
        draft["note"] = note
    return draft, errors


QUERY = Composer(template="review/adjudicate_query.html", context=query_board_context, parse=parse_query)
