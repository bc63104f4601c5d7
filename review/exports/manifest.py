"""manifest.json: what an export holds and how it was made, enough to reproduce and verify it."""

from __future__ import annotations

import dataclasses
import json
import logging
import math
from datetime import date, datetime
from decimal import Decimal
from pathlib import Path
from typing import Any

from django.conf import settings
from django.utils import timezone

from annotation.models import Project
from review.models import Export

from .pipeline import Result
from .policy import format_label, policy_splits, splits_text
from .splitting import cumulative
from .writers import file_entry

logger = logging.getLogger(__name__)

MANIFEST = "manifest.json"
GROUP_KEYS = (
    "task: the task's content hash (shared context / question / web task)",
    "web: start URL + instruction of a web task",
    "media: every image, video and screenshot an item shows",
)


def platform_version() -> str:
    return str(settings.SPECTACULAR_SETTINGS.get("VERSION", "0"))


def jsonable(value: Any) -> Any:
    """Plain JSON for whatever the statistics return (numpy numbers, dataclasses, NaN)."""
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return jsonable(dataclasses.asdict(value))
    if isinstance(value, dict):
        return {str(k): jsonable(v) for k, v in value.items()}
    if isinstance(value, list | tuple | set | frozenset):
        return [jsonable(v) for v in value]
    if isinstance(value, bool) or value is None or isinstance(value, str):
        return value
    if isinstance(value, int):
        return value
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if isinstance(value, Decimal):
        return float(value)
    if isinstance(value, datetime | date):
        return value.isoformat()
    if hasattr(value, "item"):  # numpy scalars
        return jsonable(value.item())
    if hasattr(value, "tolist"):  # numpy arrays
        return jsonable(value.tolist())
    return str(value)


def agreement_snapshot(project: Project) -> dict[str, Any]:
    """Agreement per family at export time; an export never fails for want of statistics."""
    try:
        from audit.agreement import agreement_by_stratum

        return jsonable(agreement_by_stratum(project=project, stratum_field="family"))
    except Exception as exc:  # noqa: BLE001 - recorded in the manifest instead
        logger.warning("agreement for export of %s failed: %s", project.slug, exc)
        return {"error": f"{type(exc).__name__}: {exc}"}


def build_manifest(*, export: Export, result: Result, agreement: dict[str, Any]) -> dict[str, Any]:
    project = export.project
    policy = export.split_policy
    splits = policy_splits(policy)
    bounds = cumulative(splits)
    return {
        "export": export.pk,
        "project": {"slug": project.slug, "name": project.name, "kind": project.kind},
        "platform": {"name": "arbiter", "version": platform_version()},
        "created_by": export.created_by.username,
        "created_at": export.created_at.isoformat(),
        "written_at": timezone.now().isoformat(),
        "filters": export.filters,
        "split_policy": {
            "splits": policy["splits"],
            "splits_text": splits_text(splits),
            "seed": policy["seed"],
            "stratify": bool(policy.get("stratify")),
            "stratum_field": "stratum (pairs: bucket; steps, recordings: difficulty; "
            "traces, queries: environment; pca: domain)",
            "method": (
                "items that share a group key are one group; a group's position is the first "
                "8 bytes of sha256('<seed>\\x1f<smallest key of the group>') / 2**64; "
                + (
                    "per stratum, groups (largest first, then in position order) go to the split "
                    "furthest below its target share"
                    if policy.get("stratify")
                    else "splits own the intervals "
                    + ", ".join(
                        f"{split.name} [{lo:g}, {hi:g})"
                        for split, lo, hi in zip(splits, [0.0, *bounds[:-1]], bounds, strict=True)
                    )
                )
            ),
            "group_keys": list(GROUP_KEYS),
        },
        "grouping": result.grouping,
        "formats": export.formats,
        # What each file holds, in words (the records' shapes are in the module docs).
        "format_notes": {fmt: format_label(project.kind, fmt) for fmt in export.formats},
        "counts": result.counts,
        "agreement": agreement,
        "tool_envs": result.tool_envs,
        "media": "media paths are relative to the project's media folder, as in the imported files",
        "files": result.files,
    }


def write_manifest(directory: Path, manifest: dict[str, Any]) -> dict[str, Any]:
    path = directory / MANIFEST
    path.write_text(json.dumps(manifest, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    return file_entry(path, split="", fmt="manifest", rows=0)
