"""Checklist judging of step candidates and the Web-Shepherd reward (section B).

reward = mean over checklist items of P(Yes) + 0.5·P(In Progress). P comes from the token
log-probabilities of the answer word after each `Qn:` (the alternatives Yes / In / No among the
token and its top_logprobs, renormalised over those three), averaged over the K sampled choices;
a choice without log-probabilities counts its own answer with probability 1, so with none of them
P is the frequency of each answer over the K samples.
"""

from __future__ import annotations

import math
import re
from typing import Any

from .base import JudgeVerdict, ParseError, Protocol, choice_text, expect_calls, messages
from .templates import instructions
from .text import as_json, data, messages_text

ANSWERS = {"yes": "yes", "in progress": "in_progress", "no": "no"}
CLASSES = ("yes", "in_progress", "no")
# The first token of each answer word; "In" starts "In Progress".
TOKEN_CLASSES = {"yes": "yes", "in": "in_progress", "in progress": "in_progress", "no": "no"}
_LINE = re.compile(r"^Q(\d+)\s*:\s*(.*?)\s*$", re.IGNORECASE)
_ANSWER_AT = re.compile(r"^[ \t]*Q(\d+)[ \t]*:", re.IGNORECASE | re.MULTILINE)


def checklist_lines(checklist: list[dict]) -> str:
    return "\n".join(
        f"Q{n}: {entry.get('title') or ''} — {entry.get('goal') or ''}"
        for n, entry in enumerate(checklist, 1)
    )


def candidate_text(candidate: dict) -> str:
    action = candidate.get("action") or {}
    lines = []
    if candidate.get("thought"):
        lines.append(f"thought: {data(str(candidate['thought']))}")
    lines.append(f"action: {action.get('name', '?')}({as_json(action.get('arguments') or {})})")
    return "\n".join(lines)


def parse_answers(text: str) -> list[str]:
    lines = [line.strip() for line in (text or "").strip().splitlines() if line.strip()]
    if not lines:
        raise ParseError("The answer is empty; expected lines `Q1: Yes|In Progress|No`.")
    answers = []
    for n, line in enumerate(lines, 1):
        match = _LINE.match(line)
        if not match:
            raise ParseError(f"Line {n} must look like `Q{n}: Yes|In Progress|No`; got {line[:60]!r}.")
        if int(match.group(1)) != n:
            raise ParseError(f"Line {n} must be Q{n}, got Q{match.group(1)}; answer the items in order.")
        answer = ANSWERS.get(" ".join(match.group(2).lower().split()))
        if answer is None:
            raise ParseError(f"Q{n} must be answered Yes, In Progress or No; got {match.group(2)!r}.")
        answers.append(answer)
    return answers


def _token_distributions(logprobs: Any, n_items: int) -> dict[int, dict[str, float]]:
    """Item number → renormalised {yes, in_progress, no} from one choice's token logprobs."""
    content = (logprobs or {}).get("content") if isinstance(logprobs, dict) else None
    if not content:
        return {}
    tokens = [entry.get("token") or "" for entry in content]
    text = "".join(tokens)
    ends, pos = [], 0
    for token in tokens:
        pos += len(token)
        ends.append(pos)
    out: dict[int, dict[str, float]] = {}
    for match in _ANSWER_AT.finditer(text):
        number = int(match.group(1))
        if not 1 <= number <= n_items or number in out:
            continue
        colon = match.end()
        for k, end in enumerate(ends):
            start = end - len(tokens[k])
            if end > colon and text[max(start, colon) : end].strip():
                break
        else:
            continue
        entry = content[k]
        alternatives = {entry.get("token") or "": entry.get("logprob")}
        for alt in entry.get("top_logprobs") or ():
            alternatives.setdefault(alt.get("token") or "", alt.get("logprob"))
        mass = dict.fromkeys(CLASSES, 0.0)
        for token, logprob in alternatives.items():
            cls = TOKEN_CLASSES.get(token.strip().lower())
            if cls and isinstance(logprob, int | float):
                mass[cls] += math.exp(logprob)
        total = sum(mass.values())
        if total > 0:
            out[number] = {cls: mass[cls] / total for cls in CLASSES}
    return out


def checklist_reward(choices: list[Any], n_items: int | None = None) -> dict[str, Any]:
    """Reward of one candidate from the judge's K choices (OpenAI-shaped dicts).

    Choices whose text does not parse (or answers a different number of items) are left out and
    counted in `skipped`; if none is usable, ParseError. `per_item` holds, per checklist item, the
    averaged probabilities and the item's reward.
    """
    usable: list[tuple[list[str], Any]] = []
    errors: list[str] = []
    for choice in choices:
        try:
            answers = parse_answers(choice_text(choice))
        except ParseError as exc:
            errors.append(exc.message)
            continue
        if n_items is None:
            n_items = len(answers)
        if len(answers) != n_items:
            errors.append(f"Answered {len(answers)} item(s), the checklist has {n_items}.")
            continue
        usable.append((answers, choice.get("logprobs") if isinstance(choice, dict) else None))
    if not usable or not n_items:
        raise ParseError(errors[0] if errors else "No choices to score.")
    sums = [dict.fromkeys(CLASSES, 0.0) for _ in range(n_items)]
    used_logprobs = False
    for answers, logprobs in usable:
        dists = _token_distributions(logprobs, n_items)
        used_logprobs = used_logprobs or bool(dists)
        for i, answer in enumerate(answers):
            dist = dists.get(i + 1) or {cls: float(cls == answer) for cls in CLASSES}
            for cls in CLASSES:
                sums[i][cls] += dist[cls]
    per_item = []
    for i, total in enumerate(sums, 1):
        probs = {cls: total[cls] / len(usable) for cls in CLASSES}
        per_item.append({"item": i, **probs, "reward": probs["yes"] + 0.5 * probs["in_progress"]})
    return {
        "reward": sum(p["reward"] for p in per_item) / n_items,
        "per_item": per_item,
        "method": "logprobs" if used_logprobs else "frequency",
        "samples": len(usable),
        "skipped": len(errors),
    }


class Checklist(Protocol):
    name = "checklist"

    def build(self, item: Any, template: str) -> list[list[dict]]:
        task = item.task
        base = {
            "instruction": data(task.instruction) if task else "",
            "website": task.website if task else "",
            "start_url": task.start_url if task else "",
            "context": messages_text(item.trajectory_first.messages if item.trajectory_first_id else []),
            "checklist": checklist_lines(item.payload.get("checklist") or []),
        }
        system = instructions("checklist")
        return [
            messages(
                "checklist",
                system,
                template,
                {**base, "candidate_id": str(c.get("id") or ""), "candidate": candidate_text(c)},
            )
            for c in item.payload.get("candidates") or []
        ]

    def parse(self, text: str) -> dict[str, Any]:
        return {"answers": parse_answers(text)}

    def combine(self, item: Any, parsed_list: list[dict], raw_choices: list[Any]) -> JudgeVerdict:
        candidates = item.payload.get("candidates") or []
        expect_calls(parsed_list, len(candidates), "checklist")
        n_items = len(item.payload.get("checklist") or [])
        per_candidate: dict[str, Any] = {}
        for k, (candidate, parsed) in enumerate(zip(candidates, parsed_list, strict=True)):
            if len(parsed["answers"]) != n_items:
                raise ParseError(
                    f"Candidate {candidate['id']}: answered {len(parsed['answers'])} item(s), "
                    f"the checklist has {n_items}."
                )
            choices = raw_choices[k] if k < len(raw_choices) and raw_choices[k] else None
            if not choices:  # no raw choices kept: the parsed answer is a single sample
                choices = [{"message": {"content": _answer_text(parsed["answers"])}}]
            per_candidate[candidate["id"]] = checklist_reward(choices, n_items)
        rewards = {cid: result["reward"] for cid, result in per_candidate.items()}
        # Highest reward wins; on a tie the earlier candidate, and the tie is recorded.
        best = max(rewards.values())
        tied = [cid for cid, reward in rewards.items() if reward == best]
        rationale = ", ".join(f"{cid}: {reward:.3f}" for cid, reward in rewards.items())
        return JudgeVerdict(
            label={"chosen": tied[0]},
            scores={"rewards": rewards, "per_candidate": per_candidate, "tie": len(tied) > 1},
            rationale=f"Checklist rewards — {rationale}",
        )


def _answer_text(answers: list[str]) -> str:
    words = {"yes": "Yes", "in_progress": "In Progress", "no": "No"}
    return "\n".join(f"Q{n}: {words[a]}" for n, a in enumerate(answers, 1))
