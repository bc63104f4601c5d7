"""Step items end to end in real Chromium: two annotators rank candidates with the keyboard, a
reviewer settles the step they disagree on side by side, a manager exports; the preference
records pair the settled best candidate with every candidate that is not equally good."""

from __future__ import annotations

import pytest

from annotation.models import Item, ItemState, Role
from tests.annotation.import_helpers import fixture_lines, run, write_jsonl
from tests.e2e.conftest import (
    assert_hostile_shown_as_text,
    collect_dialogs,
    export_in_browser,
    exported_records,
    focus_page,
    hostile,
    hostile_members,
    open_adjudication,
    open_next,
    submit_label,
    switch_user,
    take_label_of,
    wait_saved,
)
from tests.factories import MembershipFactory, ProjectFactory
from tests.fixtures_path import SHARED_FIXTURES

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]

# Checklist keys of the page: y / p / n mark the next checklist cell.
MARK_KEYS = {"yes": "y", "in_progress": "p", "no": "n"}


def shown_order(page) -> list[str]:
    """Candidate ids as this annotator sees them (their own randomised order)."""
    return page.locator(".step-candidates li.candidate").evaluate_all(
        "els => els.map(e => e.dataset.candidate)"
    )


def rank_in_browser(
    page,
    slug: str,
    username: str,
    *,
    best: str,
    equivalent: tuple[str, ...] = (),
    invalid: tuple[str, ...] = (),
    marks: tuple[str, ...] = ("yes", "yes", "yes"),
) -> int:
    """Log in as `username`, open the next step and label it with the keyboard alone."""
    switch_user(page, username)
    item_id = open_next(page, slug)
    order = shown_order(page)
    focus_page(page)
    page.keyboard.press(str(order.index(best) + 1))
    for cid in equivalent:
        page.keyboard.press("e")
        page.keyboard.press(str(order.index(cid) + 1))
    for cid in invalid:
        page.keyboard.press("x")
        page.keyboard.press(str(order.index(cid) + 1))
    for mark in marks:
        page.keyboard.press(MARK_KEYS[mark])
    form = page.locator("#label-form")
    assert form.locator(f'input[name="chosen"][value="{best}"]').is_checked()
    for cid in equivalent:
        assert form.locator(f'input[name="equivalent"][value="{cid}"]').is_checked()
    for cid in invalid:
        assert form.locator(f'input[name="invalid"][value="{cid}"]').is_checked()
    for index, mark in enumerate(marks):
        assert form.locator(f'.step-marks input[name="check_{index}"][value="{mark}"]').is_checked()
    focus_page(page)
    page.keyboard.press("Enter")
    wait_saved(page, item_id)
    return item_id


def test_step_disagreement_adjudicated_and_exported(page):
    project = ProjectFactory(slug="step-flow", name="Step flow", kind="step", overlap=2)
    assert run(project, SHARED_FIXTURES / "steps.jsonl", media_dir=SHARED_FIXTURES / "media").ok
    for name, role in (
        ("ann1", Role.ANNOTATOR),
        ("ann2", Role.ANNOTATOR),
        ("rev", Role.REVIEWER),
        ("boss", Role.MANAGER),
    ):
        MembershipFactory(project=project, role=role, user__username=name)
    # Four candidates on the disputed step, five on the agreed one; the queue serves them first.
    disputed = Item.objects.get(project=project, external_id="wpc-00002-s0")
    agreed = Item.objects.get(project=project, external_id="wpc-00003-s0")
    Item.objects.filter(pk=disputed.pk).update(priority=20)
    Item.objects.filter(pk=agreed.pk).update(priority=10)

    assert (
        rank_in_browser(page, project.slug, "ann1", best="c0", equivalent=("c2",), invalid=("c3",))
        == disputed.pk
    )
    assert rank_in_browser(page, project.slug, "ann1", best="c0", equivalent=("c4",)) == agreed.pk
    assert (
        rank_in_browser(page, project.slug, "ann2", best="c1", marks=("yes", "in_progress", "no"))
        == disputed.pk
    )
    assert rank_in_browser(page, project.slug, "ann2", best="c0", equivalent=("c4",)) == agreed.pk
    disputed.refresh_from_db()
    agreed.refresh_from_db()
    assert disputed.state == ItemState.ADJUDICATION
    assert agreed.state == ItemState.VERIFIED
    assert agreed.settled_label["chosen"] == "c0" and agreed.settled_label["equivalent"] == ["c4"]

    # The reviewer settles it side by side: c0 is best, c2 as good, c3 invalid.
    switch_user(page, "rev")
    open_adjudication(page, project.slug, disputed.external_id)
    board = page.locator(".step-board")
    assert board.locator("tr.candidate-row").count() == 4
    assert board.locator('tr.candidate-row[data-candidate="c0"][data-differs="true"]').count() == 1
    settled = {
        "chosen": "c0",
        "equivalent": ["c2"],
        "invalid": ["c3"],
        "checklist": ["yes", "in_progress", "no"],
    }
    # Start from ann1's label (best c0, c2 as good, c3 invalid), then set the checklist marks.
    take_label_of(page, "ann1")
    assert board.locator('input[form="adjudicate-form"][name="chosen"][value="c0"]').is_checked()
    for name in ("equivalent", "invalid"):
        boxes = board.locator(f'input[form="adjudicate-form"][name="{name}"]:checked')
        assert boxes.evaluate_all("els => els.map(e => e.value)") == settled[name], name
    for index, mark in enumerate(settled["checklist"]):
        board.locator(f'input[form="adjudicate-form"][name="check_{index}"][value="{mark}"]').check()
    page.locator("#adjudicate-form textarea[name=reason]").fill(
        "c1 opens the wrong page; c2 reaches the same form."
    )
    url = page.url
    page.keyboard.press("Control+Enter")
    page.wait_for_url(lambda u: u != url)
    disputed.refresh_from_db()
    assert disputed.state == ItemState.VERIFIED
    for key, value in settled.items():
        assert disputed.settled_label[key] == value, key

    # The manager exports: chosen vs every candidate that is not equivalent, invalid ones marked.
    switch_user(page, "boss")
    files = export_in_browser(page, project.slug)
    preference = exported_records(files, "preference")
    pairs = {
        item.external_id: {
            (r["meta"]["chosen_candidate"], r["meta"]["rejected_candidate"], r["meta"]["rejected_invalid"])
            for key, records in preference.items()
            if key.startswith(f"{item.external_id}:")
            for r in records
        }
        for item in (disputed, agreed)
    }
    assert pairs[disputed.external_id] == {("c0", "c1", False), ("c0", "c3", True)}
    assert pairs[agreed.external_id] == {("c0", "c1", False), ("c0", "c2", False), ("c0", "c3", False)}
    record = preference[f"{disputed.external_id}:c0>c1"][0]
    candidates = {c["id"]: c for c in disputed.payload["candidates"]}
    assert record["chosen"][0]["tool_calls"][0]["function"]["name"] == candidates["c0"]["action"]["name"]
    assert record["rejected"][0]["tool_calls"][0]["function"]["name"] == candidates["c1"]["action"]["name"]
    checklists = exported_records(files, "checklists")
    assert checklists[disputed.external_id][0]["marks"] == settled["checklist"]
    assert checklists[disputed.external_id][0]["chosen"] == "c0"
    interchange = exported_records(files, "interchange")
    assert interchange[disputed.external_id][0]["label"]["chosen"] == "c0"
    assert [c["id"] for c in interchange[disputed.external_id][0]["candidates"] if c["reference"]] == ["c0"]


def hostile_step(tmp_path):
    line = fixture_lines("steps.jsonl")[1]  # three candidates
    line["task"] = {**line["task"], "instruction": hostile("task"), "website": hostile("website")}
    observation = line["prefix"][-1]["observation"]
    observation["axtree"] = "[1] RootWebArea 'Shop'\n  [20] link '" + hostile("axtree") + "'"
    observation["url"] = "http://shop.example/" + hostile("url")
    line["checklist"] = [
        {"title": hostile(f"check-title-{n}"), "goal": hostile(f"check-goal-{n}")}
        for n in range(len(line["checklist"]))
    ]
    for n, candidate in enumerate(line["candidates"]):
        candidate["thought"] = hostile(f"thought-{n}")
        candidate["action"] = {"name": "fill", "arguments": {"bid": "20", "value": hostile(f"argument-{n}")}}
    return write_jsonl(tmp_path / "steps.jsonl", [line])


def test_step_hostile_content_is_text_on_labeling_and_adjudication_pages(page, tmp_path):
    project = ProjectFactory(slug="step-hostile-flow", kind="step", overlap=2)
    assert run(project, hostile_step(tmp_path), media_dir=SHARED_FIXTURES / "media").ok
    users = hostile_members(project)
    fields = [
        "task",
        "axtree",
        "url",
        *[f"check-title-{n}" for n in range(3)],
        *[f"check-goal-{n}" for n in range(3)],
        *[f"thought-{n}" for n in range(3)],
        *[f"argument-{n}" for n in range(3)],
    ]
    dialogs = collect_dialogs(page)

    switch_user(page, "h0")
    item_id = open_next(page, project.slug)
    assert_hostile_shown_as_text(page, fields, dialogs)

    item = Item.objects.get(pk=item_id)
    for user, best in zip(users, ("c0", "c1"), strict=True):
        submit_label(
            item,
            user,
            {"chosen": best, "equivalent": [], "invalid": [], "checklist": ["yes", "no", "no"]},
            rationale=hostile("rationale"),
        )
    item.refresh_from_db()
    assert item.state == ItemState.ADJUDICATION
    switch_user(page, "hrev")
    open_adjudication(page, project.slug, item.external_id)
    assert_hostile_shown_as_text(page, [*fields, "rationale"], dialogs)
