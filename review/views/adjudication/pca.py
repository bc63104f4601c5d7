"""P/C/A items (PCA-Bench): each annotator's perception, cognition and action scores with their
evidence notes side by side; the reviewer sets the three scores (and notes) of the settled label.

The instance is shown as on the labeling page: image, question, candidates, the model's answer
with key concepts highlighted, and the rubric (correct action, reason, key concepts)."""

from __future__ import annotations

from django.http import QueryDict

from annotation.labels import PCA_DIMENSIONS
from annotation.rendering.pca import pca_view

from .board import Board, Composer, agreed_value, differs

LETTERS = {"perception": "P", "cognition": "C", "action": "A"}
HELP = {
    "perception": "Did the answer see what is in the image?",
    "cognition": "Did it reason correctly from what it saw?",
    "action": "Did it choose the correct action?",
}
MAX_NOTE = 500


def _score(label: dict, dim: str) -> int | None:
    value = label.get(dim)
    return value if value in (0, 1) else None


def _note(label: dict, dim: str) -> str:
    evidence = label.get("evidence") if isinstance(label.get("evidence"), dict) else {}
    return str(evidence.get(dim) or "")


def pca_board_context(board: Board) -> dict:
    draft = board.draft
    rows = []
    for dim in PCA_DIMENSIONS:
        scores = board.values(lambda label, dim=dim: _score(label, dim))
        rows.append(
            {
                "name": dim,
                "letter": LETTERS[dim],
                "help": HELP[dim],
                "cells": [
                    {"n": col.n, "score": score, "note": _note(col.label, dim)}
                    for col, score in zip(board.columns, scores, strict=True)
                ],
                "differs": differs(scores),
                "score": _score(draft, dim),
                "evidence": _note(draft, dim),
                "error": board.errors.get(dim, ""),
                "evidence_error": board.errors.get(f"evidence_{dim}", "")
                or board.errors.get(f"evidence.{dim}", ""),
            }
        )
    return {
        "view": pca_view(item=board.item, links=board.links),
        "pca_rows": rows,
        "n_differing": sum(r["differs"] for r in rows),
    }


def parse_pca(data: QueryDict, board: Board) -> tuple[dict, dict[str, str]]:
    draft: dict = {}
    evidence: dict[str, str] = {}
    errors: dict[str, str] = {}
    for dim in PCA_DIMENSIONS:
        raw = data.get(dim, "")
        if raw in ("0", "1"):
            draft[dim] = int(raw)
        else:
            errors[dim] = f"Set {dim} ({LETTERS[dim]}) to 1 or 0."
        note = " ".join(data.get(f"evidence_{dim}", "").split())
        if len(note) > MAX_NOTE:
            errors[f"evidence_{dim}"] = f"Keep the note to one line of at most {MAX_NOTE} characters."
        if note:
            evidence[dim] = note
    if evidence:
        draft["evidence"] = evidence
    return draft, errors


def agreed_pca(board: Board) -> dict:
    draft: dict = {}
    for dim in PCA_DIMENSIONS:
        score = agreed_value(board.values(lambda label, dim=dim: _score(label, dim)))
        if score is not None:
            draft[dim] = score
    return draft


PCA = Composer(
    template="review/adjudicate_pca.html", context=pca_board_context, parse=parse_pca, agreed=agreed_pca
)
