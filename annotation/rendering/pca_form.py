"""The P/C/A label form: perception, cognition and action each 0 or 1 with a one-line
evidence note, turned into the canonical label and back for editing."""

from __future__ import annotations

import uuid
from dataclasses import dataclass, field

from django.http import QueryDict

from annotation.labels import PCA_DIMENSIONS

from .label_form import SubmissionFields, read_submission
from .pca import PcaView

EVIDENCE_MAX = 500
DIMENSION_HELP = {
    "perception": "Perception: the answer sees what the image shows (the key concepts).",
    "cognition": "Cognition: the reasoning is sound and leads to the action.",
    "action": "Action: the chosen action is the correct one.",
}
# Keys that set 1 / 0 per dimension (static/js/pca.js).
DIMENSION_KEYS = {"perception": ("q", "w"), "cognition": ("a", "s"), "action": ("z", "x")}


@dataclass
class PcaForm(SubmissionFields):
    scores: dict[str, int | None] = field(default_factory=lambda: dict.fromkeys(PCA_DIMENSIONS))
    evidence: dict[str, str] = field(default_factory=lambda: dict.fromkeys(PCA_DIMENSIONS, ""))

    def label(self) -> dict:
        label: dict = {dim: self.scores[dim] for dim in PCA_DIMENSIONS}
        label["evidence"] = {dim: self.evidence[dim] for dim in PCA_DIMENSIONS}
        return label

    def rows(self) -> list[dict]:
        """What the template draws per dimension."""
        return [
            {
                "name": dim,
                "letter": dim[0].upper(),
                "help": DIMENSION_HELP[dim],
                "keys": DIMENSION_KEYS[dim],
                "score": self.scores[dim],
                "evidence": self.evidence[dim],
                "error": self.errors.get(dim, ""),
                "evidence_error": self.errors.get(f"evidence_{dim}", ""),
            }
            for dim in PCA_DIMENSIONS
        ]


def parse_pca_form(data: QueryDict, *, editing: bool) -> PcaForm:
    form = PcaForm(
        flagged=data.get("flagged") in ("on", "1", "true"), client_id=data.get("client_id", "").strip()
    )
    for dim in PCA_DIMENSIONS:
        raw = data.get(dim, "").strip()
        if raw in ("0", "1"):
            form.scores[dim] = int(raw)
        else:
            form.errors[dim] = f"Set {dim} to 1 (correct) or 0 (wrong)."
        # One line: newlines pasted in become spaces.
        note = " ".join(data.get(f"evidence_{dim}", "").split())
        form.evidence[dim] = note
        if len(note) > EVIDENCE_MAX:
            form.errors[f"evidence_{dim}"] = (
                f"Keep the note to {EVIDENCE_MAX} characters (it has {len(note)})."
            )
    read_submission(form, data, editing=editing)
    return form


def form_from_label(label: dict, *, flagged: bool, version: int) -> PcaForm:
    evidence = label.get("evidence") or {}
    return PcaForm(
        scores={dim: label.get(dim) for dim in PCA_DIMENSIONS},
        evidence={dim: str(evidence.get(dim) or "") for dim in PCA_DIMENSIONS},
        flagged=flagged,
        version=version,
    )


def service_errors(errors: dict) -> dict[str, str]:
    """SubmitError.errors (label paths) → form fields."""
    out: dict[str, str] = {}
    for path, reason in errors.items():
        if path in PCA_DIMENSIONS:
            out[path] = str(reason)
        elif path.startswith("evidence.") and path[9:] in PCA_DIMENSIONS:
            out[f"evidence_{path[9:]}"] = str(reason)
        else:
            out["label"] = "The label is not valid."
    return out


def initial_form(annotation, *, proposed_action: int | None) -> PcaForm:
    """The saved label to edit, or a fresh form with A pre-filled from the answer's action."""
    if annotation is not None:
        return form_from_label(annotation.label, flagged=annotation.flagged, version=annotation.version)
    form = PcaForm(client_id=str(uuid.uuid4()))
    form.scores["action"] = proposed_action
    return form


def prefill_record(*, view: PcaView, label: dict) -> dict | None:
    """What pre-filled A (the action read from the answer) and whether the annotator changed it."""
    if view.proposed_action is None:
        return None
    return {
        "source": "answer_text",
        "chosen": view.chosen,
        "proposed": {"action": view.proposed_action},
        "changed": label["action"] != view.proposed_action,
    }
