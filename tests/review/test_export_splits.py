"""Splits: ratios checked with clear errors, deterministic from the seed, grouped so that no
task, observation or media file appears in two splits, optionally stratified."""

from __future__ import annotations

import hashlib
from collections import Counter, defaultdict
from datetime import timedelta

import pytest

from annotation.models import Item, ItemKind, ItemState, Task
from review.exports import ExportRequestError, Split, parse_splits
from review.exports.grouping import Groups
from review.exports.splitting import assign_groups
from review.lifecycle import item_transition
from review.services.exports import export_create
from tests.factories import ProjectFactory, TaskFactory, TrajectoryFactory
from tests.review.test_export_helpers import (  # noqa: F401 - exports_root is an autouse fixture
    export_dir,
    exports_root,
    manager_of,
    run_export,
    settle,
    split_of_ids,
    verified_pair,
)

# --- parsing the ratios --------------------------------------------------------------------


def test_splits_keep_their_order_and_names():
    assert parse_splits("train=0.8, dev=0.1 ,test=0.1") == [
        Split("train", 0.8),
        Split("dev", 0.1),
        Split("test", 0.1),
    ]
    assert parse_splits([{"name": "a", "ratio": "0.5"}, ["b", 0.5]]) == [Split("a", 0.5), Split("b", 0.5)]


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("train=0.8,dev=0.1,test=0.2", "the ratios must sum to 1, but 0.8 + 0.1 + 0.2 = 1.1"),
        ("train=0.7,test=0.2", "the ratios must sum to 1, but 0.7 + 0.2 = 0.9"),
        ("train:0.8,test=0.2", "'train:0.8' has no ratio; write name=ratio"),
        ("train=0.8,train=0.2", "the split 'train' is named twice"),
        ("train=lots,test=0.2", "the ratio of 'train' ('lots') is not a number"),
        ("train=1,test=0", "the ratio of 'test' must be greater than 0 and at most 1"),
        ("../x=1", "'../x' is not a usable split name"),
        ("", "name at least one split"),
    ],
)
def test_bad_ratios_are_named_in_the_error(text, message):
    with pytest.raises(ExportRequestError) as caught:
        parse_splits(text)
    assert message in caught.value.errors["splits"]


def test_ratios_summing_to_one_within_rounding_are_accepted():
    assert len(parse_splits("a=0.1,b=0.2,c=0.3,d=0.4")) == 4  # 0.1 + 0.2 is not 0.3 in floats
    assert len(parse_splits("a=0.3333333333,b=0.3333333333,c=0.3333333334")) == 3


# --- assigning groups ----------------------------------------------------------------------

SPLITS = [Split("train", 0.8), Split("dev", 0.1), Split("test", 0.1)]


def test_hash_assignment_is_a_function_of_seed_and_key_only():
    keys = [f"task:{i:04d}" for i in range(5000)]
    first = assign_groups(keys=keys, sizes=[1] * 5000, splits=SPLITS, seed=3)
    again = assign_groups(keys=list(reversed(keys)), sizes=[1] * 5000, splits=SPLITS, seed=3)
    assert first == list(reversed(again))  # the order groups are met in does not matter
    other_seed = assign_groups(keys=keys, sizes=[1] * 5000, splits=SPLITS, seed=4)
    assert first != other_seed
    shares = Counter(first)
    assert abs(shares[0] / 5000 - 0.8) < 0.02
    assert abs(shares[1] / 5000 - 0.1) < 0.02
    assert abs(shares[2] / 5000 - 0.1) < 0.02


def test_the_interval_of_a_group_is_its_sha256_position():
    key = "task:abc"
    position = int.from_bytes(hashlib.sha256(b"9\x1ftask:abc").digest()[:8], "big") / 2**64
    expected = 0 if position < 0.8 else 1 if position < 0.9 else 2
    assert assign_groups(keys=[key], sizes=[1], splits=SPLITS, seed=9) == [expected]


def test_stratified_allocation_hits_the_ratios_in_every_stratum():
    strata = ["big"] * 100 + ["mid"] * 50 + ["small"] * 20
    keys = [f"k{i}" for i in range(len(strata))]
    out = assign_groups(keys=keys, sizes=[1] * len(keys), splits=SPLITS, seed=1, strata=strata)
    per = defaultdict(Counter)
    for stratum, split in zip(strata, out, strict=True):
        per[stratum][split] += 1
    assert per["big"] == Counter({0: 80, 1: 10, 2: 10})
    assert per["mid"] == Counter({0: 40, 1: 5, 2: 5})
    assert per["small"] == Counter({0: 16, 1: 2, 2: 2})


def test_stratified_allocation_counts_items_not_groups():
    # One group of 8 items and 2 singletons: 8 / 1 / 1 is the only exact answer.
    keys, sizes = ["g-big", "g-a", "g-b"], [8, 1, 1]
    out = assign_groups(keys=keys, sizes=sizes, splits=SPLITS, seed=0, strata=["s"] * 3)
    assert out[0] == 0 and sorted(out[1:]) == [1, 2]


def test_union_find_joins_items_through_shared_keys():
    groups = Groups()
    groups.add(["task:b", "media:x.png"])
    groups.add(["task:c"])
    groups.add(["task:a", "media:x.png"])  # joins the first through the image
    groups.add(["task:d", "media:y.png"])
    groups.add(["task:c", "media:y.png"])  # joins the second and the fourth
    item_group, keys = groups.finish()
    assert item_group[0] == item_group[2] != item_group[1]
    assert item_group[1] == item_group[3] == item_group[4]
    assert keys[item_group[0]] == "media:x.png"  # the smallest key names the group
    assert keys[item_group[1]] == "media:y.png"


# --- exports of real items -----------------------------------------------------------------


@pytest.mark.django_db
def test_pairs_sharing_a_task_never_cross_splits():
    project = ProjectFactory(slug="shared-tasks")
    manager = manager_of(project)
    tasks = [TaskFactory(project=project) for _ in range(30)]
    by_task: dict[str, int] = {}
    for n in range(150):
        item = verified_pair(project, task=tasks[n % 30])
        by_task[item.external_id] = item.task_id
    export = run_export(project, manager)
    where = split_of_ids(export)
    assert len(where) == 150
    splits_of_task = defaultdict(set)
    for external_id, split in where.items():
        splits_of_task[by_task[external_id]].add(split)
    assert all(len(s) == 1 for s in splits_of_task.values()), splits_of_task
    assert len(set(where.values())) == 3  # 30 groups are enough to fill every split
    assert export.manifest["grouping"]["groups"] == 30
    assert export.manifest["grouping"]["largest_group"] == 5


def _pca(project, n: int, image: str, question: str) -> Item:
    task = Task.objects.create(
        project=project,
        content_hash=hashlib.sha256(f"{question}|{image}".encode()).hexdigest(),
        instruction=question,
        media=[image],
        domain="traffic",
    )
    instance = {
        "domain": "traffic",
        "image": image,
        "question": question,
        "candidates": ["Stop", "Go"],
        "answer": "Stop",
    }
    item = Item.objects.create(
        project=project,
        kind=ItemKind.PCA,
        external_id=f"pca-{n:03d}",
        task=task,
        payload={"instance": instance, "output": {"model": "m", "text": "Final action: Stop"}},
        stratum="traffic",
    )
    return settle(item, {"perception": 1, "cognition": 1, "action": 1})


@pytest.mark.django_db
def test_pca_items_sharing_an_image_stay_together():
    project = ProjectFactory(slug="pca-images", kind="pca")
    manager = manager_of(project)
    image_of = {}
    for n in range(60):
        image = f"media/scene-{n % 12:02d}.png"  # 12 images, 5 different questions each
        _pca(project, n, image, f"Question {n} about the scene?")
        image_of[f"pca-{n:03d}"] = image
    export = run_export(project, manager)
    where = split_of_ids(export)
    splits_of_image = defaultdict(set)
    for external_id, split in where.items():
        splits_of_image[image_of[external_id]].add(split)
    assert len(where) == 60
    assert all(len(s) == 1 for s in splits_of_image.values())
    assert export.manifest["grouping"]["groups"] == 12


@pytest.mark.django_db
def test_a_screenshot_shown_in_two_tasks_joins_them():
    project = ProjectFactory(slug="shots")
    manager = manager_of(project)
    shot = [{"role": "user", "content": "Look", "media": ["media/home.png"]}]
    items = []
    for n in range(40):
        extra = {}
        if n % 10 == 0:  # every tenth pair shows the same screenshot, each in its own task
            extra["trajectory_first"] = TrajectoryFactory(project=project, messages=shot)
        items.append(verified_pair(project, **extra))
    export = run_export(project, manager, seed=11)
    where = split_of_ids(export)
    shown = {where[i.external_id] for i in items[::10]}
    assert len(shown) == 1  # the 4 pairs showing media/home.png are one group


@pytest.mark.django_db
def test_same_seed_same_bytes_other_seed_other_split():
    project = ProjectFactory(slug="determinism")
    manager = manager_of(project)
    for n in range(120):
        verified_pair(project, preferred="first" if n % 3 else "second")
    one = run_export(project, manager, seed=5, formats=["preference", "interchange", "parquet"])
    two = run_export(project, manager, seed=5, formats=["preference", "interchange", "parquet"])
    assert export_dir(one) != export_dir(two)
    data_files = [f["name"] for f in one.files if f["format"] != "manifest"]
    assert len(data_files) == 12
    for name in data_files:
        assert (export_dir(one) / name).read_bytes() == (export_dir(two) / name).read_bytes(), name
    assert [f for f in one.files if f["format"] != "manifest"] == [
        f for f in two.files if f["format"] != "manifest"
    ]
    three = run_export(project, manager, seed=6)
    assert split_of_ids(three) != split_of_ids(one)


@pytest.mark.django_db
def test_stratified_export_balances_each_bucket():
    project = ProjectFactory(slug="strata")
    manager = manager_of(project)
    for bucket, n in (("safety", 50), ("robust", 30), ("irrelevance", 20)):
        for _ in range(n):
            verified_pair(project, stratum=bucket)
    export = run_export(project, manager, stratify=True, splits="train=0.8,dev=0.1,test=0.1")
    per_stratum = export.manifest["counts"]["per_stratum"]
    assert per_stratum["safety"] == {"train": 40, "dev": 5, "test": 5}
    assert per_stratum["robust"] == {"train": 24, "dev": 3, "test": 3}
    assert per_stratum["irrelevance"] == {"train": 16, "dev": 2, "test": 2}
    per_split = export.manifest["counts"]["per_split"]
    assert per_split["dev"]["strata"] == {"irrelevance": 2, "robust": 3, "safety": 5}


@pytest.mark.django_db
def test_only_verified_items_matching_the_filters_are_exported():
    project = ProjectFactory(slug="filters")
    manager = manager_of(project)
    keep = verified_pair(project, stratum="safety")
    verified_pair(project, stratum="robust")
    old = verified_pair(project, stratum="safety")
    Item.objects.filter(pk=old.pk).update(settled_at=keep.settled_at - timedelta(days=30))
    pending = verified_pair(project, stratum="safety")
    item_transition(item=pending, to_state=ItemState.ADJUDICATION, actor=None, reason="re-opened for review")
    today = keep.settled_at.date().isoformat()
    export = run_export(project, manager, filters={"strata": ["safety"], "settled_from": today})
    assert set(split_of_ids(export)) == {keep.external_id}
    assert export.filters == {"strata": ["safety"], "settled_from": today, "states": ["verified"]}


@pytest.mark.django_db
def test_source_filter_takes_pairs_with_a_candidate_of_that_kind():
    project = ProjectFactory(slug="sources")
    manager = manager_of(project)
    edited = TrajectoryFactory(project=project, source={"type": "llm_minimal_edit"})
    wanted = verified_pair(project, trajectory_second=edited)
    verified_pair(project)
    export = run_export(project, manager, filters={"source": "llm_minimal_edit"})
    assert set(split_of_ids(export)) == {wanted.external_id}


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("filters", "field", "message"),
    [
        (
            {"strata": ["nope"]},
            "strata",
            "not a stratum of this project: nope (its strata: planning_single_easy)",
        ),
        ({"states": ["discarded"]}, "states", "only verified items can be exported"),
        ({"settled_from": "2025-02-30"}, "settled_from", "is not a date; write YYYY-MM-DD"),
        (
            {"settled_from": "2025-03-02", "settled_to": "2025-03-01"},
            "settled_to",
            "ends (2025-03-01) before",
        ),
        ({"source": "robot"}, "source", "'robot' is not a source type"),
    ],
)
def test_bad_filters_are_refused_and_nothing_is_created(filters, field, message):
    project = ProjectFactory(slug="bad-filters")
    manager = manager_of(project)
    verified_pair(project)
    with pytest.raises(ExportRequestError) as caught:
        export_create(project=project, actor=manager, filters=filters, split_policy={}, formats=None)
    assert message in caught.value.errors[field]
    assert not project.exports.exists()


@pytest.mark.django_db
def test_seed_and_formats_are_checked_too():
    project = ProjectFactory(slug="bad-policy", kind="pca")
    manager = manager_of(project)
    with pytest.raises(ExportRequestError) as caught:
        export_create(
            project=project,
            actor=manager,
            filters={},
            split_policy={"splits": "a=0.5,b=0.6", "seed": -1},
            formats=["preference"],
        )
    errors = caught.value.errors
    assert "must sum to 1" in errors["splits"]
    assert "the seed must be a whole number" in errors["seed"]
    assert "the preference format is for pair projects" in errors["formats"]
