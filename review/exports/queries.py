"""Verified query-refinement items → the refined queries file and interchange records.

Refined queries: per item its media, the candidate queries, and the settled decision — the
final query (a candidate as written, or edited) or, when all were rejected, the reason. Rejected
items stay in the file: which visuals got no usable query, and why, is data too.
"""

from __future__ import annotations

from typing import Any

from .records import Envs, dumps
from .rows import Row

QUERY_COLUMNS = ("id", "media", "candidates", "decision", "chosen", "query", "reject_reason", "note", "meta")


def _media(row: Row) -> list:
    return row.task_media or list(row.payload.get("media") or [])


def query_record(row: Row) -> dict[str, Any]:
    label = row.settled_label
    candidates = list(row.payload.get("candidates") or [])
    decision = label.get("decision")
    chosen = label.get("chosen") if decision in ("pick", "edit") else None
    query = label.get("query") if decision in ("pick", "edit") else None
    if query is None and isinstance(chosen, int) and 0 <= chosen < len(candidates):
        query = candidates[chosen]
    return {
        "id": row.external_id,
        "media": _media(row),
        "candidates": candidates,
        "decision": decision,
        "chosen": chosen,
        "query": query,
        "reject_reason": label.get("reject_reason") if decision == "reject" else None,
        "note": label.get("note") or "",
        "meta": {**row.meta, "stratum": row.stratum},
    }


def query_line(row: Row, envs: Envs) -> tuple[list[str], str | None]:
    if row.settled_label.get("decision") not in ("pick", "edit", "reject"):
        return [], "unlabeled"
    return [dumps(query_record(row))], None


def query_interchange(row: Row, envs: Envs) -> dict:
    """The import shape (annotation.importers.records.build_query) with the settled label."""
    record: dict[str, Any] = {"kind": "query", "id": row.external_id}
    if row.tool_env_id is not None:
        record["tool_env"] = envs.name[row.tool_env_id]
    record["media"] = _media(row)
    if row.environment:
        record["environment"] = row.environment
    record["candidates"] = list(row.payload.get("candidates") or [])
    if row.payload.get("source"):
        record["source"] = row.payload["source"]
    record["meta"] = row.meta
    record["label"] = row.settled_label
    return record
