"""Deterministic, protocol-shaped answers of the dev LLM server.

Everything here is a pure function of the item text (the first user message), the protocol named
by the system message's marker line and the sample index, so tests can predict the answers and
re-runs give the same suggestions. The message conventions are documented in README.md.
"""

from __future__ import annotations

import hashlib
import json
import math
import re
from dataclasses import dataclass, field

PROTOCOLS = ("pairwise", "pointwise", "pca", "checklist", "trace")
MARKER_RE = re.compile(r"^\s*<<arbiter:([a-z_]+)>>")
REPAIR_MARKER = "<<arbiter:repair>>"
MALFORMED_TEXT = "Sure! I think A is better."

# Phrases that make a trajectory look worse to the dev judge (the fixtures' failure wording).
ERROR_PHRASES = ("error", "failed", "i placed the order, but")
ERROR_TAG = "fabricated_result"
POSITION_BIAS = 0.4  # share of near-equal-length pairs answered "A" in both orders
CANDIDATE_RE = re.compile(r"^#{2,}\s*Candidate\s+([AB])\b.*$", re.MULTILINE | re.IGNORECASE)
HEADING_RE = re.compile(r"^#{2,}\s", re.MULTILINE)
CHECKLIST_RE = re.compile(r"^\s*Q(\d+):\s*(.+?)\s*$", re.MULTILINE)
STEP_RE = re.compile(r"^\s*(?:#+\s*)?Step\s+(\d+)\b", re.MULTILINE | re.IGNORECASE)
CHECKLIST_TOKENS = ("Yes", "In", "No")
CHECKLIST_WORDS = {"Yes": "Yes", "In": "In Progress", "No": "No"}


def unit(*parts: object) -> float:
    """A stable pseudo-random number in [0, 1) from the parts."""
    digest = hashlib.sha256("\x1f".join(str(p) for p in parts).encode()).digest()
    return int.from_bytes(digest[:8], "big") / 2**64


def has_error(text: str) -> bool:
    lowered = text.lower()
    return any(phrase in lowered for phrase in ERROR_PHRASES)


@dataclass
class Answer:
    content: str
    # Per-token log-probabilities (checklist only); None when the protocol has none.
    logprobs: list[dict] | None = field(default=None)


def detect_protocol(system_text: str) -> str | None:
    match = MARKER_RE.match(system_text or "")
    if match and match.group(1) in PROTOCOLS:
        return match.group(1)
    return None


def split_candidates(text: str) -> dict[str, str]:
    """Text under `### Candidate A` / `### Candidate B`, each up to the next heading."""
    found: dict[str, str] = {}
    for match in CANDIDATE_RE.finditer(text):
        start = match.end()
        nxt = HEADING_RE.search(text, start)
        found[match.group(1).upper()] = text[start : nxt.start() if nxt else len(text)].strip()
    return found


def pairwise(item: str, sample: int) -> Answer:
    cands = split_candidates(item)
    a, b = cands.get("A", ""), cands.get("B", "")
    bad_a, bad_b = has_error(a), has_error(b)
    longest = max(len(a), len(b), 1)
    if a == b:
        preferred, why = "tie", "The two candidates are the same."
    elif abs(len(a) - len(b)) <= 0.05 * longest and unit("bias", *sorted((a, b))) < POSITION_BIAS:
        # Deliberate position bias on some near-equal pairs (chosen by an order-free hash of the
        # pair): the first shown wins whatever the order, so position consistency is below 100%.
        preferred, why = "A", "Both candidates look similar; A reads slightly better."
    elif bad_a != bad_b:
        preferred = "B" if bad_a else "A"
        why = f"Candidate {'A' if bad_a else 'B'} reports a failure the other avoids."
    else:
        preferred = "A" if len(a) < len(b) else "B"
        why = f"Candidate {preferred} reaches the goal more directly."
    if sample > 0 and preferred != "tie" and unit(item, "pairwise-flip", sample) < 0.1:
        preferred = "B" if preferred == "A" else "A"
        why = f"On reflection Candidate {preferred} is slightly better."
    tags = {"A": [ERROR_TAG] if bad_a else [], "B": [ERROR_TAG] if bad_b else []}
    return Answer(json.dumps({"preferred": preferred, "tags": tags, "rationale": why}))


def pointwise(item: str, sample: int) -> Answer:
    bad = has_error(item)
    score = (2 if bad else 4) + round(unit(item, "pointwise") * 2) - 1
    if sample > 0:
        jitter = unit(item, "pointwise-sample", sample)
        score += -1 if jitter < 0.15 else (1 if jitter > 0.85 else 0)
    score = max(1, min(5, score))
    rationale = "The trajectory reports a failure." if bad else "The trajectory completes the task."
    return Answer(json.dumps({"score": score, "tags": [ERROR_TAG] if bad else [], "rationale": rationale}))


def _snippet(text: str, salt: str) -> str:
    words = text.split()
    if not words:
        return "(empty)"
    start = int(unit(text, salt) * len(words))
    return " ".join(words[start : start + 8])


def pca(item: str, sample: int) -> Answer:
    bad = has_error(item)
    lines = []
    for dim, base in (("Action", 0.3 if bad else 0.8), ("Perception", 0.8), ("Cognition", 0.7)):
        score = 1 if unit(item, "pca", dim, sample if sample else "") < base else 0
        lines.append(f'{dim} evidence: the answer says "{_snippet(item, dim)}".')
        lines.append(f"{dim} score: {score}")
    return Answer("\n".join(lines))


def checklist_probs(item: str, qn: str, title: str) -> dict[str, float]:
    """P(Yes), P(In), P(No) for one checklist item; a dominant answer plus a split remainder."""
    pick = unit(item, "checklist", qn, title)
    dominant = "Yes" if pick < 0.55 else ("In" if pick < 0.8 else "No")
    top = 0.55 + 0.4 * unit(item, "checklist-top", qn)
    rest = 1.0 - top
    share = unit(item, "checklist-share", qn)
    others = [t for t in CHECKLIST_TOKENS if t != dominant]
    probs = {dominant: top, others[0]: rest * share, others[1]: rest * (1 - share)}
    return {t: max(probs[t], 1e-6) for t in CHECKLIST_TOKENS}


def checklist(item: str, sample: int, with_logprobs: bool) -> Answer:
    lines: list[str] = []
    tokens: list[dict] = []
    for qn, title in CHECKLIST_RE.findall(item):
        probs = checklist_probs(item, qn, title)
        if sample == 0:
            chosen = max(probs, key=lambda t: probs[t])
        else:  # draw from the distribution so K samples' frequencies approximate it
            draw, acc, chosen = unit(item, "checklist-draw", qn, sample), 0.0, "No"
            for token in CHECKLIST_TOKENS:
                acc += probs[token]
                if draw < acc:
                    chosen = token
                    break
        lines.append(f"Q{qn}: {CHECKLIST_WORDS[chosen]}")
        top = sorted(
            ({"token": t, "logprob": math.log(p)} for t, p in probs.items()),
            key=lambda e: -e["logprob"],
        )
        tokens.append(_token(f"Q{qn}: "))
        tokens.append({"token": chosen, "logprob": math.log(probs[chosen]), "top_logprobs": top})
        if chosen == "In":
            tokens.append(_token(" Progress"))
        tokens.append(_token("\n"))
    if tokens:
        tokens.pop()  # the content has no trailing newline
    return Answer("\n".join(lines), tokens if with_logprobs else None)


def _token(text: str) -> dict:
    return {"token": text, "logprob": 0.0, "top_logprobs": [{"token": text, "logprob": 0.0}]}


def trace(item: str, sample: int) -> Answer:
    numbers = sorted({int(n) for n in STEP_RE.findall(item)})
    salt = sample if sample else ""
    steps = [
        {
            "step": n,
            "grounding": int(unit(item, "grounding", n, salt) < 0.85),
            "tool_precision": int(unit(item, "precision", n, salt) < 0.8),
            "tool_accuracy": int(unit(item, "accuracy", n, salt) < 0.75),
        }
        for n in numbers
    ]
    bad = has_error(item)

    def score(name: str) -> float:
        return round(0.5 + 0.5 * unit(item, name, salt), 2)

    body = {
        "steps": steps,
        "faithfulness": score("faithfulness"),
        "context": score("context"),
        "factual_precision": score("factual_precision"),
        "semantic_accuracy": score("semantic_accuracy"),
        "goal_accuracy": 0 if bad else 1,
        "rationale": "The trace reports a failure." if bad else "The trace reaches the goal.",
    }
    return Answer(json.dumps(body))


def answer(protocol: str | None, item: str, sample: int, *, logprobs: bool) -> Answer:
    if protocol == "pairwise":
        return pairwise(item, sample)
    if protocol == "pointwise":
        return pointwise(item, sample)
    if protocol == "pca":
        return pca(item, sample)
    if protocol == "checklist":
        return checklist(item, sample, logprobs)
    if protocol == "trace":
        return trace(item, sample)
    return Answer(f"dev-llm: no <<arbiter:PROTOCOL>> marker; received {len(item)} characters.")
