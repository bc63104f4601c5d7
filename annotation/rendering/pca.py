"""The P/C/A labeling page's view data (PCA-Bench): image, question, candidate actions, the
model's answer with key concepts highlighted, the rubric (correct action, reference reason, key
concepts) and the action the answer chose, read off its text to pre-fill A.

The highlighted answer is the only markup built here, and only from escaped tokens."""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from django.utils.html import conditional_escape, format_html
from django.utils.safestring import SafeString, mark_safe

from annotation.models import Item

from .messages import Links, MediaView, media_view

_WORD = re.compile(r"(\w+)")
# Suffixes stripped for matching, longest first: "crosswalks" ~ "crosswalk", "driving" ~ "drive".
_SUFFIXES = ("ing", "es", "ed", "ly", "s")
# Where an answer names its choice: the text after the last cue is searched first.
_CUE = re.compile(r"\b(?:final\s+action|final\s+answer|answer|action)\s*(?:is)?\s*[:\-]", re.IGNORECASE)


def stem(word: str) -> str:
    """Simple inflection folding: lowercase, one common suffix off, a trailing 'e' off."""
    w = word.lower()
    for suffix in _SUFFIXES:
        if w.endswith(suffix) and len(w) - len(suffix) >= 3:
            w = w[: -len(suffix)]
            break
    if w.endswith("e") and len(w) > 3:
        w = w[:-1]
    return w


def _concept_stems(concepts: list[str]) -> list[list[str]]:
    out = []
    for concept in concepts:
        words = [stem(w) for w in _WORD.findall(str(concept))]
        if words:
            out.append(words)
    return out


def highlight(text: str, concepts: list[str]) -> tuple[SafeString, list[str]]:
    """`text` escaped, with every word sequence matching a key concept in <mark>; and the
    concepts that were found. Separators between matched words must be non-word characters."""
    parts = _WORD.split(text)  # even indexes: separators, odd: words
    word_idx = list(range(1, len(parts), 2))
    stems = [stem(parts[i]) for i in word_idx]
    marked = [False] * len(parts)
    found: list[str] = []
    for concept, words in zip(concepts, _concept_stems(concepts), strict=False):
        n, hit = len(words), False
        for start in range(len(stems) - n + 1):
            if stems[start : start + n] == words:
                hit = True
                first, last = word_idx[start], word_idx[start + n - 1]
                for i in range(first, last + 1):
                    marked[i] = True
        if hit:
            found.append(concept)
    out: list[str] = []
    i = 0
    while i < len(parts):
        if not marked[i]:
            out.append(conditional_escape(parts[i]))
            i += 1
            continue
        j = i
        while j < len(parts) and marked[j]:
            j += 1
        out.append(format_html('<mark class="concept">{}</mark>', "".join(parts[i:j])))
        i = j
    return mark_safe("".join(out)), found  # noqa: S308 - every piece above is escaped


def _mentioned(text: str, candidates: list[str]) -> list[str]:
    low = text.lower()
    hits = [
        c for c in candidates if c.strip() and re.search(rf"(?<!\w){re.escape(c.strip().lower())}(?!\w)", low)
    ]
    # "Stop" inside "Stop the car" is one mention, of the longer candidate.
    return [c for c in hits if not any(c != o and c.lower() in o.lower() for o in hits)]


def chosen_action(text: str, candidates: list[str]) -> str | None:
    """The candidate the answer chose, when exactly one can be read from it: first in the text
    after the last "final action:"/"answer:" cue, else in the whole answer."""
    cues = list(_CUE.finditer(text))
    if cues:
        tail = _mentioned(text[cues[-1].end() :], candidates)
        if len(tail) == 1:
            return tail[0]
    found = _mentioned(text, candidates)
    return found[0] if len(found) == 1 else None


@dataclass(slots=True)
class PcaView:
    domain: str
    question: str
    context: str
    image: MediaView | None
    candidates: list[dict]  # {"text", "correct", "chosen"}
    model: str
    answer_html: SafeString
    correct_action: str
    reason: str
    key_concepts: list[dict]  # {"text", "found"}
    chosen: str | None  # the candidate read from the answer
    proposed_action: int | None  # A pre-computed from `chosen`: 1 if it is the correct action
    warnings: list[str] = field(default_factory=list)


def _strings(value: object) -> list[str]:
    return [str(v) for v in value] if isinstance(value, list) else []


def pca_view(*, item: Item, links: Links) -> PcaView:
    payload = item.payload if isinstance(item.payload, dict) else {}
    instance = payload.get("instance") if isinstance(payload.get("instance"), dict) else {}
    output = payload.get("output") if isinstance(payload.get("output"), dict) else {}
    candidates = _strings(instance.get("candidates"))
    concepts = _strings(instance.get("key_concepts"))
    correct = str(instance.get("answer") or "")
    text = str(output.get("text") or "")
    answer_html, found = highlight(text, concepts)
    chosen = chosen_action(text, candidates)
    proposed = None if chosen is None else int(chosen.strip().lower() == correct.strip().lower())
    warnings = []
    if correct and correct not in candidates:
        warnings.append("The correct action is not one of the candidates: flag this item.")
    image = instance.get("image")
    return PcaView(
        domain=str(instance.get("domain") or ""),
        question=str(instance.get("question") or ""),
        context=str(instance.get("context") or ""),
        image=media_view(image, links) if image else None,
        candidates=[{"text": c, "correct": c == correct, "chosen": c == chosen} for c in candidates],
        model=str(output.get("model") or ""),
        answer_html=answer_html,
        correct_action=correct,
        reason=str(instance.get("reason") or ""),
        key_concepts=[{"text": c, "found": c in found} for c in concepts],
        chosen=chosen,
        proposed_action=proposed,
        warnings=warnings,
    )
