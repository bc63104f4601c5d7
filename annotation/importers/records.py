"""Valid records → the rows they become (task fields, trajectories, item fields), per kind.

Nothing here touches the database; `writer` turns a batch of `Prepared` into rows.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

from .adapters import agentx_final_answer, agentx_messages, normalize_call, normalize_messages
from .media import message_media


@dataclass
class Prepared:
    kind: str
    external_id: str
    task: dict[str, Any]  # Task fields, with content_hash and tool_env_id
    trajectories: list[tuple[list[dict], dict]]  # (messages, source): first, then second
    item: dict[str, Any]  # payload, gold, meta, stratum, family, difficulty
    size: int = 0  # bytes of the line, for sizing batches
    media: list[Any] = field(default_factory=list)


@dataclass(frozen=True)
class Env:
    """The tool environment a record resolved to (id None while the import only validates)."""

    id: int | None
    name: str


def content_hash(identity: dict[str, Any]) -> str:
    """Records with the same task identity share one Task row (splits group on it)."""
    blob = json.dumps(identity, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return hashlib.sha256(blob.encode()).hexdigest()


def chosen_goes_first(external_id: str) -> bool:
    """Canonical order of a pair, random per record but reproducible from its id."""
    return hashlib.sha256(external_id.encode()).digest()[0] % 2 == 0


def _last_user_text(messages: list[dict]) -> str:
    for message in reversed(messages):
        if message.get("role") == "user" and isinstance(message.get("content"), str):
            return message["content"]
    return ""


def _task(identity: dict[str, Any], env: Env | None, **fields: Any) -> dict[str, Any]:
    identity = {**identity, "tool_env": env.name if env else None}
    return {"content_hash": content_hash(identity), "tool_env_id": env.id if env else None, **fields}


def _item(record: dict, **fields: Any) -> dict[str, Any]:
    base = {
        "payload": {},
        "gold": {},
        "meta": record.get("meta") or {},
        "stratum": "",
        "family": "",
        "difficulty": "",
    }
    return {**base, **fields}


def build_pair(record: dict, env: Env | None) -> Prepared:
    context = normalize_messages(record.get("context") or [])
    chosen = (normalize_messages(record["chosen"]["messages"]), record["chosen"].get("source") or {})
    rejected = (normalize_messages(record["rejected"]["messages"]), record["rejected"].get("source") or {})
    first_is_chosen = chosen_goes_first(record["id"])
    meta = record.get("meta") or {}
    task = _task(
        {"kind": "pair", "context": context},
        env,
        context=context,
        instruction=_last_user_text(context),
        family=meta.get("family") or "",
        bucket=meta.get("bucket") or "",
    )
    item = _item(
        record,
        gold={"preferred": "first" if first_is_chosen else "second"},
        stratum=meta.get("bucket") or "",
        family=meta.get("family") or "",
        difficulty=meta.get("pair_difficulty") or "",
    )
    pair = [chosen, rejected] if first_is_chosen else [rejected, chosen]
    return Prepared("pair", record["id"], task, pair, item)


def _web_task_fields(task: dict) -> dict[str, Any]:
    return {
        "instruction": task["instruction"],
        "website": task.get("website") or "",
        "start_url": task.get("start_url") or "",
        "difficulty": task.get("difficulty") or "",
    }


_STEP_ID = re.compile(r"^(?P<trajectory>.+)-s\d+$")


def _step_meta(record: dict) -> dict:
    """Steps of one trajectory are grouped by `meta.trajectory_id` (trajectory accuracy); a record
    without one whose id reads `<trajectory>-s<step>` gets the part before `-s`."""
    meta = dict(record.get("meta") or {})
    named = _STEP_ID.match(record["id"])
    if "trajectory_id" not in meta and named:
        meta["trajectory_id"] = named.group("trajectory")
    return meta


def build_step(record: dict, env: Env | None) -> Prepared:
    fields = _web_task_fields(record["task"])
    candidates = []
    reference = ""
    for candidate in record["candidates"]:
        candidate = dict(candidate)
        if candidate.pop("reference", False) is True:
            reference = candidate["id"]
        candidate["action"] = normalize_call(dict(candidate["action"]))
        candidates.append(candidate)
    item = _item(
        record,
        payload={"checklist": record["checklist"], "candidates": candidates},
        gold={"chosen": reference},
        stratum=fields["difficulty"],
        difficulty=fields["difficulty"],
        meta=_step_meta(record),
    )
    task = _task({"kind": "step", **fields}, None, **fields)
    return Prepared("step", record["id"], task, [(normalize_messages(record["prefix"]), {})], item)


def build_trace(record: dict, env: Env | None) -> Prepared:
    if "reasoning_steps" in record:
        messages = agentx_messages(record)
        source = {"type": "natural", "adapter": "agentx"}
        final = agentx_final_answer(record)
    else:
        messages = normalize_messages(record["trajectory"]["messages"])
        source = record["trajectory"].get("source") or {}
        final = {
            "value": record["final_answer"].get("value"),
            "justification": record["final_answer"].get("justification") or "",
        }
    media = list(record.get("media") or [])
    environment = record.get("environment") or ""
    task = _task(
        {"kind": "trace", "query": record["query"], "media": media, "environment": environment},
        env,
        instruction=record["query"],
        media=media,
        environment=environment,
    )
    gold = (
        {"reference_answer": record["reference_answer"]} if record.get("reference_answer") is not None else {}
    )
    item = _item(record, payload={"final_answer": final}, gold=gold, stratum=environment)
    return Prepared("trace", record["id"], task, [(messages, source)], item)


def build_pca(record: dict, env: Env | None) -> Prepared:
    instance = record["instance"]
    task = _task(
        {
            "kind": "pca",
            "question": instance["question"],
            "image": instance["image"],
            "domain": instance["domain"],
            "context": instance.get("context") or "",
        },
        None,
        instruction=instance["question"],
        media=[instance["image"]],
        domain=instance["domain"],
        metadata={"context": instance["context"]} if instance.get("context") else {},
    )
    item = _item(
        record, payload={"instance": instance, "output": record["output"]}, stratum=instance["domain"]
    )
    return Prepared("pca", record["id"], task, [], item)


def build_recording(record: dict, env: Env | None) -> Prepared:
    fields = _web_task_fields(record["task"])
    judge = record["task"].get("judge")
    task = _task(
        {"kind": "recording", **fields, "judge": judge},
        None,
        **fields,
        metadata={"judge": judge} if judge else {},
    )
    item = _item(
        record,
        payload={"judge": judge} if judge else {},
        stratum=fields["difficulty"],
        difficulty=fields["difficulty"],
    )
    return Prepared("recording", record["id"], task, [], item)


def build_query(record: dict, env: Env | None) -> Prepared:
    media = list(record["media"])
    environment = record.get("environment") or ""
    # One task per visual (and environment): the same image never lands in two export splits.
    task = _task(
        {"kind": "query", "media": media, "environment": environment},
        env,
        media=media,
        environment=environment,
    )
    payload: dict[str, Any] = {"candidates": [text.strip() for text in record["candidates"]]}
    if record.get("source"):
        payload["source"] = record["source"]  # the proposing model: shown to staff only
    item = _item(record, payload=payload, stratum=environment)
    return Prepared("query", record["id"], task, [], item)


BUILDERS: dict[str, Callable[[dict, Env | None], Prepared]] = {
    "pair": build_pair,
    "step": build_step,
    "trace": build_trace,
    "pca": build_pca,
    "recording": build_recording,
    "query": build_query,
}


def record_media(kind: str, record: dict) -> Iterator[tuple[str, str]]:
    """(field path, media path) of every media file a valid record refers to."""
    if kind == "pair":
        yield from message_media(record.get("context") or [], "context")
        yield from message_media(record["chosen"]["messages"], "chosen.messages")
        yield from message_media(record["rejected"]["messages"], "rejected.messages")
    elif kind == "step":
        yield from message_media(record["prefix"], "prefix")
    elif kind == "trace":
        for j, path in enumerate(record.get("media") or ()):
            yield f"media[{j}]", path
        if "trajectory" in record:
            yield from message_media(record["trajectory"]["messages"], "trajectory.messages")
    elif kind == "pca":
        yield "instance.image", record["instance"]["image"]
    elif kind == "query":
        for j, path in enumerate(record["media"]):
            yield f"media[{j}]", path
