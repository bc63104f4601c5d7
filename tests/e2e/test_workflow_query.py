"""Query refinement end to end in real Chromium: two annotators pick (and rewrite) candidate
queries with the keyboard, a reviewer settles the item they disagree on, a manager exports;
the refined query text is what the export holds."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from annotation.models import Item, ItemState, Role
from tests.annotation.import_helpers import run, write_jsonl
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

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures"
QUERIES = FIXTURES / "queries.jsonl"
REWRITE = "How many cars are parked along the left kerb of the street?"
SETTLED = "How many cars are parked along the left kerb, not counting the van?"


def pick_in_browser(page, slug: str, username: str, index: int, rewrite: str = "") -> int:
    """Log in as `username`, open the next item, pick the candidate at `index` of the record
    (and rewrite it) with the keyboard."""
    switch_user(page, username)
    item_id = open_next(page, slug)
    shown = page.locator(f'#label-form [data-index="{index}"]').get_attribute("data-candidate")
    focus_page(page)
    page.keyboard.press(shown)
    if rewrite:
        page.keyboard.press("e")  # opens the picked candidate's edit box, with the caret in it
        box = page.locator(f'#label-form [data-index="{index}"] textarea[name="query"]')
        assert box.evaluate("el => el === document.activeElement")
        page.keyboard.press("Control+a")
        page.keyboard.type(rewrite)
        assert page.locator('#label-form input[name="decision"][value="edit"]').is_checked()
        page.keyboard.press("Control+Enter")
    else:
        assert page.locator('#label-form input[name="decision"][value="pick"]').is_checked()
        page.keyboard.press("Enter")
    wait_saved(page, item_id)
    return item_id


def test_query_disagreement_adjudicated_and_exported(page):
    project = ProjectFactory(slug="query-flow", name="Query flow", kind="query", overlap=2)
    assert run(project, QUERIES, media_dir=FIXTURES / "media").ok
    for name, role in (
        ("ann1", Role.ANNOTATOR),
        ("ann2", Role.ANNOTATOR),
        ("rev", Role.REVIEWER),
        ("boss", Role.MANAGER),
    ):
        MembershipFactory(project=project, role=role, user__username=name)
    disputed = Item.objects.get(project=project, external_id="q-0001")
    agreed = Item.objects.get(project=project, external_id="q-0002")
    Item.objects.filter(pk=disputed.pk).update(priority=20)
    Item.objects.filter(pk=agreed.pk).update(priority=10)

    # q-0001: ann1 rewrites the first candidate, ann2 keeps the third. q-0002: both keep the first.
    assert pick_in_browser(page, project.slug, "ann1", 0, rewrite=REWRITE) == disputed.pk
    assert pick_in_browser(page, project.slug, "ann1", 0) == agreed.pk
    assert pick_in_browser(page, project.slug, "ann2", 2) == disputed.pk
    assert pick_in_browser(page, project.slug, "ann2", 0) == agreed.pk
    disputed.refresh_from_db()
    agreed.refresh_from_db()
    assert disputed.state == ItemState.ADJUDICATION
    assert agreed.state == ItemState.VERIFIED
    assert agreed.settled_label["decision"] == "pick" and agreed.settled_label["chosen"] == 0

    # The reviewer takes the first candidate and refines ann1's rewrite further.
    switch_user(page, "rev")
    open_adjudication(page, project.slug, disputed.external_id)
    board = page.locator(".query-board")
    assert board.get_by_text(REWRITE).count() >= 1, "ann1's rewrite is shown to the reviewer"
    differing = board.locator("tr.query-row[data-differs='true']")
    assert sorted(differing.evaluate_all("rows => rows.map(r => r.dataset.candidate)")) == ["0", "2"]
    # Start from ann1's rewrite with the keyboard, then refine it.
    take_label_of(page, "ann1")
    assert board.locator('input[form="adjudicate-form"][name="choice"][value="0"]').is_checked()
    rewrite = page.locator("#adjudicate-form textarea[name=query]")
    assert rewrite.input_value() == REWRITE
    rewrite.fill(SETTLED)
    page.locator("#adjudicate-form textarea[name=reason]").fill(
        "The third is a yes/no question; sharpen the first."
    )
    url = page.url
    page.keyboard.press("Control+Enter")
    page.wait_for_url(lambda u: u != url)
    disputed.refresh_from_db()
    assert disputed.state == ItemState.VERIFIED
    assert disputed.settled_label["chosen"] == 0
    assert disputed.settled_label["query"] == SETTLED

    # The manager exports: the refined query text is in the queries file and the interchange.
    switch_user(page, "boss")
    files = export_in_browser(page, project.slug)
    queries = exported_records(files, "queries")
    assert sorted(queries) == ["q-0001", "q-0002"]
    (record,) = queries["q-0001"]
    assert record["decision"] == "edit" and record["chosen"] == 0 and record["query"] == SETTLED
    assert record["candidates"] == disputed.payload["candidates"]
    (record,) = queries["q-0002"]
    assert record["decision"] == "pick" and record["query"] == agreed.payload["candidates"][0]
    interchange = exported_records(files, "interchange")
    assert interchange["q-0001"][0]["label"]["query"] == SETTLED


def test_query_hostile_content_is_text_on_labeling_and_adjudication_pages(page, tmp_path):
    project = ProjectFactory(slug="query-hostile-flow", kind="query", overlap=2)
    env, line = (json.loads(raw) for raw in QUERIES.read_text().splitlines()[:2])
    line["candidates"] = [hostile(f"candidate-{n}") for n in range(3)]
    assert run(project, write_jsonl(tmp_path / "q.jsonl", [env, line]), media_dir=FIXTURES / "media").ok
    users = hostile_members(project)
    fields = [f"candidate-{n}" for n in range(3)]
    dialogs = collect_dialogs(page)

    switch_user(page, "h0")
    item_id = open_next(page, project.slug)
    assert_hostile_shown_as_text(page, fields, dialogs)

    item = Item.objects.get(pk=item_id)
    submit_label(
        item,
        users[0],
        {"decision": "edit", "chosen": 0, "query": hostile("rewrite"), "note": hostile("note")},
    )
    submit_label(
        item, users[1], {"decision": "reject", "reject_reason": "ambiguous", "note": hostile("note2")}
    )
    item.refresh_from_db()
    assert item.state == ItemState.ADJUDICATION
    switch_user(page, "hrev")
    open_adjudication(page, project.slug, item.external_id)
    assert_hostile_shown_as_text(page, [*fields, "note", "note2"], dialogs)
    # The rewrite is shown as a word diff against the candidate: its words are text too.
    diff = page.locator(".query-decisions .diff-after").inner_text()
    assert "<script>window.__pwned=1</script>" in diff and "{{ 7*7 }}" in diff
