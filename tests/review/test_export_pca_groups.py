"""P/C/A exports: the same image never lands in two splits, whatever the seed, the ratios or
stratification — items asking different questions about one image form one group."""

from __future__ import annotations

import copy
from collections import defaultdict

import pytest

from annotation.importers import import_jsonl
from annotation.models import Item, ItemKind, Task
from tests.annotation.import_helpers import fixture_lines, write_jsonl
from tests.factories import ProjectFactory
from tests.fixtures_path import SHARED_FIXTURES
from tests.review.test_export_helpers import (  # noqa: F401 - exports_root is an autouse fixture
    exports_root,
    manager_of,
    run_export,
    settle,
    split_of_ids,
)

pytestmark = pytest.mark.django_db
LABEL = {"perception": 1, "cognition": 1, "action": 0}
SEEDS = range(30)


def shared_image_records() -> list[dict]:
    """The fixture's 12 instances, and per instance two more questions about the same image
    (other ids, other questions, other domains: other tasks, one image)."""
    out = []
    for record in fixture_lines("pca.jsonl"):
        out.append(record)
        for n, domain in ((1, "game"), (2, "domestic")):
            again = copy.deepcopy(record)
            again["id"] = f"{record['id']}-q{n}"
            again["instance"]["question"] = f"{record['instance']['question']} (variant {n})"
            again["instance"]["domain"] = domain
            out.append(again)
    return out


@pytest.fixture
def pca(tmp_path):
    project = ProjectFactory(kind="pca", slug="pca-groups")
    manager = manager_of(project)
    path = write_jsonl(tmp_path / "pca.jsonl", shared_image_records())
    report = import_jsonl(project=project, path=path, actor=manager, media_dir=SHARED_FIXTURES)
    assert report.ok, report.errors
    for item in Item.objects.filter(project=project).order_by("id"):
        settle(item, LABEL)
    return project, manager


def splits_per_image(project, export) -> dict[str, set[str]]:
    split_of = split_of_ids(export)
    out: dict[str, set[str]] = defaultdict(set)
    for item in Item.objects.filter(project=project):
        out[item.payload["instance"]["image"]].add(split_of[item.external_id])
    return out


def test_items_sharing_an_image_always_share_a_split(pca):
    project, manager = pca
    assert Task.objects.filter(project=project).count() == 36  # one task per question, not per image
    seen_splits: dict[str, set[str]] = defaultdict(set)
    for seed in SEEDS:
        export = run_export(project, manager, seed=seed, formats=["interchange"])
        per_image = splits_per_image(project, export)
        assert len(per_image) == 12
        for image, splits in per_image.items():
            assert len(splits) == 1, f"seed {seed}: {image} is in {sorted(splits)}"
            seen_splits[image] |= splits
        assert export.manifest["grouping"]["groups"] == 12
        assert export.manifest["grouping"]["largest_group"] == 3
    # Not trivially so: across seeds the images do move between splits.
    assert all(len(splits) > 1 for splits in seen_splits.values())


@pytest.mark.parametrize("splits", ["train=0.34,dev=0.33,test=0.33", "a=0.5,b=0.5"])
def test_stratified_splits_keep_an_image_whole_too(pca, splits):
    project, manager = pca
    for seed in range(5):
        export = run_export(
            project, manager, seed=seed, splits=splits, stratify=True, formats=["interchange"]
        )
        for image, names in splits_per_image(project, export).items():
            assert len(names) == 1, f"seed {seed}: {image} is in {sorted(names)}"


def test_the_instance_image_groups_even_without_the_task_image():
    """Items whose task does not list the image (hand-made, older imports) still group by the
    image of their instance; `./media/x.png` and `media/x.png` are one file."""
    project = ProjectFactory(kind="pca", slug="pca-bare")
    manager = manager_of(project)
    instance = {
        "domain": "traffic",
        "question": "What now?",
        "candidates": ["Stop", "Go"],
        "answer": "Stop",
        "key_concepts": [],
    }
    shared = []
    for n, (image, with_task) in enumerate(
        [("media/shared.png", True), ("./media/shared.png", False), ("media/shared.png", False)]
    ):
        task = (
            Task.objects.create(project=project, content_hash=f"{n:064x}", instruction="q", media=[image])
            if with_task
            else None
        )
        shared.append(
            Item.objects.create(
                project=project,
                kind=ItemKind.PCA,
                external_id=f"shared-{n}",
                task=task,
                payload={"instance": {**instance, "image": image}, "output": {"text": "Stop"}},
            )
        )
    for n in range(20):
        Item.objects.create(
            project=project,
            kind=ItemKind.PCA,
            external_id=f"alone-{n}",
            payload={"instance": {**instance, "image": f"media/alone-{n}.png"}, "output": {"text": "Go"}},
        )
    for item in Item.objects.filter(project=project):
        settle(item, LABEL)
    seen = set()
    for seed in SEEDS:
        export = run_export(project, manager, seed=seed, formats=["interchange"])
        split_of = split_of_ids(export)
        names = {split_of[i.external_id] for i in shared}
        assert len(names) == 1, f"seed {seed}: {names}"
        seen |= names
    assert len(seen) > 1
    assert export.manifest["grouping"]["largest_group"] == 3
