"""The pair label form: what the annotator posts in A/B terms, turned into a canonical
label (first/second), and back for editing. Errors name A/B, never first/second, so that
nothing on the page tells which stored side a letter is."""

from __future__ import annotations

import uuid
from dataclasses import dataclass, field
from datetime import datetime

from django.http import QueryDict
from django.utils import timezone

from annotation.labels import LETTERS, errors_to_seen, label_from_seen, label_to_seen

MAX_SECONDS = 24 * 3600
CONFIDENCE_CHOICES = ((1, "guess"), (2, "unsure"), (3, "fair"), (4, "sure"), (5, "certain"))


@dataclass
class SubmissionFields:
    """What every kind's label form carries besides the label: the review flag, the client id of
    a first submit, the version an edit started from, and the errors found."""

    flagged: bool = False
    client_id: str = ""
    version: int | None = None
    errors: dict[str, str] = field(default_factory=dict)

    @property
    def valid(self) -> bool:
        return not self.errors


@dataclass
class PairForm(SubmissionFields):
    preferred: str = ""  # "A" | "B" | "tie" | ""
    tags: dict[str, list[str]] = field(default_factory=lambda: {"A": [], "B": []})
    rationale: str = ""
    confidence: int | None = None

    def label(self, order: list[str]) -> dict:
        seen: dict = {"preferred": self.preferred, "tags": self.tags}
        if self.confidence is not None:
            seen["confidence"] = self.confidence
        return label_from_seen(order, seen)


def parse_pair_form(data: QueryDict, *, allowed_tags: list[str], allow_tie: bool, editing: bool) -> PairForm:
    form = PairForm(
        preferred=data.get("preferred", "").strip(),
        rationale=data.get("rationale", ""),
        flagged=data.get("flagged") in ("on", "1", "true"),
        client_id=data.get("client_id", "").strip(),
    )
    errors = form.errors
    if form.preferred not in ("A", "B", "tie"):
        errors["preferred"] = "Choose which candidate is better: A or B" + (
            " (or tie)." if allow_tie else "."
        )
        form.preferred = ""
    elif form.preferred == "tie" and not allow_tie:
        errors["preferred"] = "This project does not allow ties: choose A or B."
    allowed = set(allowed_tags)
    for letter in LETTERS:
        chosen = [t.strip() for t in data.getlist(f"tags_{letter}") if t.strip()]
        unknown = sorted(set(chosen) - allowed)
        if unknown:
            errors[f"tags_{letter}"] = (
                f"Unknown critical tag for {letter}: {', '.join(unknown)}. "
                f"Allowed here: {', '.join(allowed_tags) or 'none'}."
            )
        # Keep the project's order, drop repeats.
        form.tags[letter] = [t for t in allowed_tags if t in chosen]
    raw_conf = data.get("confidence", "").strip()
    if raw_conf:
        try:
            form.confidence = int(raw_conf)
        except ValueError:
            form.confidence = None
        if form.confidence is None or not 1 <= form.confidence <= 5:
            errors["confidence"] = "Confidence is a whole number from 1 to 5."
            form.confidence = None
    read_submission(form, data, editing=editing)
    return form


def read_submission(form: SubmissionFields, data: QueryDict, *, editing: bool) -> None:
    """Every kind's form: an edit carries the label version it started from (optimistic lock), a
    first submit its client id (idempotent retries); a form missing them says so."""
    if editing:
        try:
            form.version = int(data.get("version", ""))
        except ValueError:
            form.errors["version"] = "The form lost its version number; reload the page and edit again."
    else:
        try:
            form.client_id = str(uuid.UUID(form.client_id))
        except ValueError:
            form.errors["client_id"] = "The form lost its submission id; reload the page and label again."


def form_from_label(
    label: dict, order: list[str], *, rationale: str, flagged: bool, version: int
) -> PairForm:
    """An existing canonical label, shown again as the annotator saw it."""
    seen = label_to_seen(order, label)
    tags = seen.get("tags") or {}
    return PairForm(
        preferred=seen.get("preferred") or "",
        tags={letter: list(tags.get(letter) or []) for letter in LETTERS},
        rationale=rationale,
        confidence=label.get("confidence"),
        flagged=flagged,
        version=version,
    )


def tag_groups(form: PairForm, allowed_tags: list[str]) -> list[dict]:
    """Per letter: the checkbox rows the template draws, with the letter's error."""
    return [
        {
            "letter": letter,
            "field": f"tags_{letter}",
            "error": form.errors.get(f"tags_{letter}", ""),
            "choices": [
                {"value": tag, "label": tag.replace("_", " "), "checked": tag in form.tags[letter]}
                for tag in allowed_tags
            ],
        }
        for letter in LETTERS
    ]


def service_errors(errors: dict, order: list[str]) -> dict[str, str]:
    """SubmitError.errors (canonical field paths) → form fields in A/B terms."""
    out: dict[str, str] = {}
    for path, reason in errors_to_seen(order, errors).items():
        if path.startswith("tags.") and path[5:] in LETTERS:
            out[f"tags_{path[5:]}"] = str(reason)
        elif path in ("preferred", "confidence"):
            out[path] = str(reason)
        else:
            out["label"] = "The label is not valid."
    return out


def seconds_spent(data: QueryDict, *, leased_at: datetime | None) -> int:
    """Time on the item. The page stamps its load time and the submit time (both client
    clock, so skew cancels); without JS the lease start is the fallback."""
    try:
        loaded = int(data.get("page_loaded_at", ""))
        submitted = int(data.get("submitted_at", ""))
    except ValueError:
        loaded = submitted = 0
    if loaded > 0 and submitted >= loaded and submitted - loaded <= MAX_SECONDS * 1000:
        return round((submitted - loaded) / 1000)
    if leased_at is not None:
        return max(0, min(MAX_SECONDS, int((timezone.now() - leased_at).total_seconds())))
    return 0
