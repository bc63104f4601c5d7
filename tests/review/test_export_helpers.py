"""Shared set-up for the export tests (no tests here): projects of verified items, running an
export in-process, reading its files back.

Modules use it with ``from tests.review.test_export_helpers import exports_root  # noqa: F401``
so that every export of the module lands in the test's own folder.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from django.utils import timezone

from annotation.importers import import_jsonl
from annotation.importers.media import project_media_root
from annotation.models import Item, ItemState, Project, Role, Task
from review.lifecycle import item_transition
from review.models import Export
from review.services.exports import export_create, export_run
from tests.factories import MembershipFactory, PairItemFactory, ProjectFactory, TaskFactory
from tests.fixtures_path import SHARED_FIXTURES

SPLITS = "train=0.8,dev=0.1,test=0.1"


@pytest.fixture(autouse=True)
def exports_root(settings, tmp_path):
    settings.EXPORT_ROOT = tmp_path / "exports"
    return settings.EXPORT_ROOT


def manager_of(project: Project):
    return MembershipFactory(project=project, role=Role.MANAGER).user


def settle(item: Item, label: dict, *, actor=None) -> Item:
    """Verify an item through the lifecycle, as the review flow does."""
    return item_transition(
        item=item, to_state=ItemState.VERIFIED, actor=actor, reason="test", settled_label=label
    )


def verified_pair(project: Project, *, task: Task | None = None, preferred: str = "first", **kwargs) -> Item:
    item = PairItemFactory(project=project, task=task or TaskFactory(project=project), **kwargs)
    return settle(item, {"preferred": preferred, "tags": {"first": [], "second": []}})


def import_fixture(project: Project, name: str, actor=None) -> None:
    report = import_jsonl(project=project, path=SHARED_FIXTURES / name, actor=actor)
    assert report.ok, report.errors


def fixture_project(kind: str, name: str, *, slug: str | None = None) -> tuple[Project, object]:
    project = ProjectFactory(kind=kind, slug=slug or f"{kind}-export")
    manager = manager_of(project)
    import_fixture(project, name, manager)
    return project, manager


LABELS = {
    "step": lambda item: {"chosen": item.gold.get("chosen") or item.payload["candidates"][0]["id"]},
    "trace": lambda item: {"verdict": "correct", "errors": []},
    "pca": lambda item: {"perception": 1, "cognition": 0, "action": 1},
    "recording": lambda item: {
        "actions": [{"name": "click", "arguments": {"bid": "1"}}],
        "judge_passed": True,
    },
}


def verify_all(project: Project, label_for) -> None:
    for item in Item.objects.filter(project=project).order_by("id"):
        settle(item, label_for(item))


def run_export(project: Project, manager, **kwargs) -> Export:
    """Create and run an export in this process (the worker path is tested on its own)."""
    export = export_create(
        project=project,
        actor=manager,
        filters=kwargs.pop("filters", {}),
        split_policy={
            "splits": kwargs.pop("splits", SPLITS),
            "seed": kwargs.pop("seed", 7),
            "stratify": kwargs.pop("stratify", False),
        },
        formats=kwargs.pop("formats", None),
        enqueue=False,
        **kwargs,
    )
    export = export_run(export_id=export.pk)
    assert export.status == Export.Status.DONE, export.error
    return export


def export_dir(export: Export) -> Path:
    return Path(export.directory)


def read_jsonl(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def records(export: Export, split: str, fmt: str) -> list[dict]:
    """The records of one split file, tool-environment header lines left out."""
    rows = read_jsonl(export_dir(export) / f"{split}.{fmt}.jsonl")
    return [r for r in rows if r.get("kind") != "tool_env"]


def split_of_ids(export: Export, fmt: str = "interchange") -> dict[str, str]:
    """external id → split name."""
    out: dict[str, str] = {}
    for split in [s["name"] for s in export.split_policy["splits"]]:
        for record in records(export, split, fmt):
            assert record["id"] not in out, f"{record['id']} is in two splits"
            out[record["id"]] = split
    return out


def media_root(project: Project) -> Path:
    return project_media_root(project.slug)


def now():
    return timezone.now()
