"""Verified steps (Web-Shepherd) → step-level preference records and checklists.

Preference: one record per candidate that lost to the settled best one — every other candidate
except those the annotators marked ``equivalent`` (equally good is not a negative). Invalid
candidates are negatives too, marked ``rejected_invalid`` so they can be kept or dropped.
The prompt is the trajectory so far (the prefix, ending in the current observation); chosen and
rejected are one assistant turn each: the candidate's thought and its action as a tool call.

Checklists: per step, the checklist the label settled on (the version it names when the
checklist was edited, else the imported one) and the settled marks.
"""

from __future__ import annotations

from typing import Any

from .records import Envs, _web_task, chat_messages, dumps, settled_checklist
from .rows import Row

CHECKLIST_COLUMNS = ("id", "task", "checklist_version", "checklist", "marks", "chosen", "meta")


def candidate_turn(candidate: dict) -> dict:
    """A candidate as the assistant turn that would take it (interchange shape)."""
    action = candidate.get("action") or {}
    turn: dict[str, Any] = {"role": "assistant", "content": None}
    if candidate.get("thought"):
        turn["reasoning"] = candidate["thought"]
    turn["tool_calls"] = [
        {
            "id": f"call_{candidate.get('id')}",
            "name": action.get("name"),
            "arguments": action.get("arguments") or {},
        }
    ]
    return turn


def step_preference_lines(row: Row, envs: Envs) -> tuple[list[str], str | None]:
    label = row.settled_label
    candidates = {c.get("id"): c for c in row.payload.get("candidates") or []}
    chosen_id = label.get("chosen")
    if chosen_id not in candidates:
        return [], "unlabeled"
    equivalent = set(label.get("equivalent") or ())
    invalid = set(label.get("invalid") or ())
    negatives = [cid for cid in candidates if cid != chosen_id and cid not in equivalent]
    if not negatives:
        return [], "no_negative"
    prompt = dumps(chat_messages(row.messages("first")))
    chosen = candidates[chosen_id]
    chosen_json = dumps(chat_messages([candidate_turn(chosen)]))
    base_meta = {
        **row.meta,
        "stratum": row.stratum,
        "task": _web_task(row),
        "step": row.external_id,
        "chosen_candidate": chosen_id,
        "chosen_source": chosen.get("source") or {},
        "equivalent": sorted(equivalent),
    }
    # Checklist marks per candidate (project scope "per_candidate"): each side's own marks.
    marks = label.get("checklist") if isinstance(label.get("checklist"), dict) else None
    if marks is not None:
        base_meta["chosen_marks"] = marks.get(chosen_id)
    lines = []
    for cid in negatives:
        rejected = candidates[cid]
        meta = {
            **base_meta,
            "rejected_candidate": cid,
            "rejected_invalid": cid in invalid,
            "rejected_source": rejected.get("source") or {},
        }
        if marks is not None:
            meta["rejected_marks"] = marks.get(cid)
        lines.append(
            "".join(
                (
                    '{"id":',
                    dumps(f"{row.external_id}:{chosen_id}>{cid}"),
                    ',"prompt":',
                    prompt,
                    ',"chosen":',
                    chosen_json,
                    ',"rejected":',
                    dumps(chat_messages([candidate_turn(rejected)])),
                    ',"tools":[],"meta":',
                    dumps(meta),
                    "}",
                )
            )
        )
    return lines, None


def checklist_line(row: Row, envs: Envs) -> tuple[list[str], str | None]:
    label = row.settled_label
    version, items = settled_checklist(row)
    record = {
        "id": row.external_id,
        "task": _web_task(row),
        "checklist_version": version,
        "checklist": items,
        "marks": label.get("checklist"),
        "chosen": label.get("chosen"),
        "meta": {**row.meta, "stratum": row.stratum},
    }
    return [dumps(record)], None
