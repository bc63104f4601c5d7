"""Exports of verified steps: step-level preference records (the best candidate against every
candidate that is not equally good) and the settled checklists."""

from __future__ import annotations

import pytest

from annotation.models import ChecklistVersion, Item
from tests.review.test_export_helpers import (  # noqa: F401 - exports_root is an autouse fixture
    export_dir,
    exports_root,
    fixture_project,
    read_jsonl,
    records,
    run_export,
    settle,
    split_of_ids,
)

pytestmark = pytest.mark.django_db
SPLITS = ("train", "dev", "test")
EDITED = [
    {"title": "Search for tents", "description": "Use the search box."},
    {"title": "Add the cheapest 2-person tent", "description": "Cart shows it."},
]


def all_records(export, fmt: str) -> list[dict]:
    return [r for split in SPLITS for r in records(export, split, fmt)]


def step_label(item: Item) -> dict:
    """The reference is best; on items with 3+ candidates c1 is as good (equivalent); with 4+,
    the last one is invalid; marks go yes, in progress, no."""
    ids = [c["id"] for c in item.payload["candidates"]]
    label = {"chosen": item.gold["chosen"], "checklist": ["yes", "in_progress", "no"]}
    if len(ids) >= 3:
        label["equivalent"] = ["c1"]
    if len(ids) >= 4:
        label["invalid"] = [ids[-1]]
    return label


@pytest.fixture
def steps():
    project, manager = fixture_project("step", "steps.jsonl", slug="shepherd")
    for item in Item.objects.filter(project=project).order_by("id"):
        settle(item, step_label(item))
    return project, manager


def expected_pairs(project) -> set[tuple[str, str, str]]:
    out = set()
    for item in Item.objects.filter(project=project):
        label = item.settled_label
        for candidate in item.payload["candidates"]:
            cid = candidate["id"]
            if cid != label["chosen"] and cid not in label.get("equivalent", []):
                out.add((item.external_id, label["chosen"], cid))
    return out


def test_a_step_project_offers_preference_checklists_and_interchange(steps):
    project, manager = steps
    export = run_export(project, manager)
    assert export.formats == ["preference", "checklists", "interchange"]


def test_preference_records_pit_the_chosen_action_against_every_non_equivalent_candidate(steps):
    project, manager = steps
    export = run_export(project, manager, formats=["preference"])
    rows = all_records(export, "preference")
    items = {
        i.external_id: i for i in Item.objects.filter(project=project).select_related("trajectory_first")
    }
    got = {(r["meta"]["step"], r["meta"]["chosen_candidate"], r["meta"]["rejected_candidate"]) for r in rows}
    assert got == expected_pairs(project)
    # 12 steps with 2, 3, 4, 5 candidates (3 of each): 1 + 1 + 2 + 3 negatives per group of four.
    assert len(rows) == 3 * (1 + 1 + 2 + 3)
    assert len({r["id"] for r in rows}) == len(rows)
    for row in rows:
        item = items[row["meta"]["step"]]
        label = item.settled_label
        assert row["meta"]["rejected_candidate"] not in label.get("equivalent", [])  # never a negative
        assert row["meta"]["rejected_candidate"] != label["chosen"]
        assert row["chosen"] != row["rejected"]
        assert row["meta"]["rejected_invalid"] == (
            row["meta"]["rejected_candidate"] in label.get("invalid", [])
        )
        candidates = {c["id"]: c for c in item.payload["candidates"]}
        for side, cid in (("chosen", label["chosen"]), ("rejected", row["meta"]["rejected_candidate"])):
            (turn,) = row[side]
            assert turn["role"] == "assistant"
            call = turn["tool_calls"][0]["function"]
            assert call["name"] == candidates[cid]["action"]["name"]
            assert call["arguments"] == candidates[cid]["action"]["arguments"]
            assert turn.get("reasoning_content") == candidates[cid].get("thought")
        # The prompt is the trajectory so far, ending in the current observation.
        assert [m["role"] for m in row["prompt"]] == [m["role"] for m in item.trajectory_first.messages]
        assert row["prompt"][-1]["observation"] == item.trajectory_first.messages[-1]["observation"]
    assert sum(r["meta"]["rejected_invalid"] for r in rows) == 6
    assert export.manifest["counts"]["rows"]["preference"] == len(rows)


def test_a_step_whose_other_candidates_are_all_equivalent_has_no_preference(steps):
    project, manager = steps
    item = Item.objects.get(project=project, external_id="wpc-00001-s1")  # c0 (best), c1, c2
    item.settled_label = {"chosen": "c0", "equivalent": ["c1", "c2"]}
    item.save(update_fields=["settled_label"])
    export = run_export(project, manager, formats=["preference", "interchange"])
    assert "wpc-00001-s1" not in {r["meta"]["step"] for r in all_records(export, "preference")}
    assert export.manifest["counts"]["left_out"]["preference"] == {"no_negative": 1}


def test_checklists_take_the_settled_version_and_marks(steps):
    project, manager = steps
    edited = Item.objects.get(project=project, external_id="wpc-00000-s0")
    ChecklistVersion.objects.create(
        item=edited, version=2, items=EDITED, reason="merge steps", author=manager
    )
    edited.settled_label = {**edited.settled_label, "checklist_version": 2, "checklist": ["yes", "no"]}
    edited.save(update_fields=["settled_label"])
    export = run_export(project, manager, formats=["checklists", "interchange"])
    rows = {r["id"]: r for r in all_records(export, "checklists")}
    items = {i.external_id: i for i in Item.objects.filter(project=project).select_related("task")}
    assert set(rows) == set(items)
    for external_id, row in rows.items():
        item = items[external_id]
        assert row["task"]["instruction"] == item.task.instruction
        assert row["marks"] == item.settled_label["checklist"]
        assert row["chosen"] == item.settled_label["chosen"]
        if external_id == "wpc-00000-s0":
            assert row["checklist_version"] == 2 and row["checklist"] == EDITED
        else:
            assert row["checklist_version"] == 1 and row["checklist"] == item.payload["checklist"]
        assert len(row["checklist"]) == len(row["marks"])
    # The interchange record holds the settled checklist too, and every file splits alike.
    interchange = {r["id"]: r for r in all_records(export, "interchange")}
    assert interchange["wpc-00000-s0"]["checklist"] == EDITED
    splits = split_of_ids(export, "interchange")
    for split in SPLITS:
        for row in records(export, split, "checklists"):
            assert splits[row["id"]] == split
    for entry in export.files:
        if entry["name"].endswith(".jsonl"):
            assert entry["rows"] == len(
                [r for r in read_jsonl(export_dir(export) / entry["name"]) if r.get("kind") != "tool_env"]
            )


def test_marks_per_candidate_travel_with_each_side(steps):
    project, manager = steps
    item = Item.objects.get(project=project, external_id="wpc-00000-s0")  # c0 (best), c1
    marks = {"c0": ["yes", "in_progress", "no"], "c1": ["no", "no", "no"]}
    item.settled_label = {"chosen": "c0", "checklist": marks}
    item.save(update_fields=["settled_label"])
    export = run_export(project, manager, formats=["preference", "checklists"])
    (row,) = [r for r in all_records(export, "preference") if r["meta"]["step"] == "wpc-00000-s0"]
    assert (row["meta"]["chosen_marks"], row["meta"]["rejected_marks"]) == (marks["c0"], marks["c1"])
    (checklist,) = [r for r in all_records(export, "checklists") if r["id"] == "wpc-00000-s0"]
    assert checklist["marks"] == marks
