"""P/C/A items end to end in real Chromium: two annotators score with the keyboard, a reviewer
settles the item they disagree on, a manager exports; hostile content stays text throughout."""

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

# The keys of the page: q/w P = 1/0, a/s C = 1/0, z/x A = 1/0.
KEYS = {"perception": ("q", "w"), "cognition": ("a", "s"), "action": ("z", "x")}


def score_in_browser(page, slug: str, username: str, scores: dict[str, int], note: str = "") -> int:
    """Log in as `username`, open the next item and score it with the keyboard alone."""
    switch_user(page, username)
    item_id = open_next(page, slug)
    focus_page(page)
    for dim, (one, zero) in KEYS.items():
        page.keyboard.press(one if scores[dim] else zero)
    if note:
        page.locator('input[name="evidence_cognition"]').fill(note)
        page.keyboard.press("Control+Enter")
    else:
        page.keyboard.press("Enter")
    wait_saved(page, item_id)
    return item_id


def members(project, *names_roles) -> None:
    for name, role in names_roles:
        MembershipFactory(project=project, role=role, user__username=name)


def test_pca_disagreement_adjudicated_and_exported(page):
    project = ProjectFactory(slug="pca-flow", name="PCA flow", kind="pca", overlap=2)
    assert run(project, SHARED_FIXTURES / "pca.jsonl", media_dir=SHARED_FIXTURES / "media").ok
    members(
        project,
        ("ann1", Role.ANNOTATOR),
        ("ann2", Role.ANNOTATOR),
        ("rev", Role.REVIEWER),
        ("boss", Role.MANAGER),
    )
    disputed, agreed = Item.objects.filter(project=project).order_by("-priority", "id")[:2]

    # First item: they disagree on cognition. Second item: both score 0 / 0 / 0.
    assert (
        score_in_browser(page, project.slug, "ann1", {"perception": 1, "cognition": 1, "action": 1})
        == disputed.pk
    )
    assert (
        score_in_browser(page, project.slug, "ann1", {"perception": 0, "cognition": 0, "action": 0})
        == agreed.pk
    )
    assert (
        score_in_browser(
            page,
            project.slug,
            "ann2",
            {"perception": 1, "cognition": 0, "action": 1},
            note="reason skips the sign",
        )
        == disputed.pk
    )
    assert (
        score_in_browser(page, project.slug, "ann2", {"perception": 0, "cognition": 0, "action": 0})
        == agreed.pk
    )
    disputed.refresh_from_db()
    agreed.refresh_from_db()
    assert disputed.state == ItemState.ADJUDICATION
    assert agreed.state == ItemState.VERIFIED
    assert (
        agreed.settled_label["perception"],
        agreed.settled_label["cognition"],
        agreed.settled_label["action"],
    ) == (
        0,
        0,
        0,
    )

    # The reviewer settles it: cognition is 0.
    switch_user(page, "rev")
    open_adjudication(page, project.slug, disputed.external_id)
    # The board shows both annotators' scores; only cognition differs.
    differs = page.locator(".pca-board tr.dim-row[data-differs='true']")
    assert differs.evaluate_all("rows => rows.map(r => r.dataset.dim)") == ["cognition"]
    settle_pca(
        page, {"perception": 1, "cognition": 0, "action": 1}, "The reason never mentions the road sign."
    )
    disputed.refresh_from_db()
    assert disputed.state == ItemState.VERIFIED
    assert (disputed.settled_label["perception"], disputed.settled_label["cognition"]) == (1, 0)
    assert disputed.settled_label["action"] == 1

    # The manager exports; the P/C/A values are in the exported records.
    switch_user(page, "boss")
    records = exported_records(export_in_browser(page, project.slug), "interchange")
    assert sorted(records) == sorted([disputed.external_id, agreed.external_id])
    for item, expected in ((disputed, (1, 0, 1)), (agreed, (0, 0, 0))):
        (record,) = records[item.external_id]
        label = record["label"]
        assert (label["perception"], label["cognition"], label["action"]) == expected
        assert record["instance"]["question"] == item.payload["instance"]["question"]


def settle_pca(page, scores: dict[str, int], reason: str) -> None:
    """On the side-by-side board: start from ann2's label with the keyboard, check it is what the
    settled column holds, give the reason and save with the keyboard."""
    take_label_of(page, "ann2")
    board = page.locator(".pca-board")
    for dim, score in scores.items():
        assert board.locator(f'input[form="adjudicate-form"][name="{dim}"][value="{score}"]').is_checked(), (
            dim
        )
    page.locator("#adjudicate-form textarea[name=reason]").fill(reason)
    url = page.url
    page.keyboard.press("Control+Enter")
    page.wait_for_url(lambda u: u != url)


def test_pca_hostile_content_is_text_on_labeling_and_adjudication_pages(page, tmp_path):
    project = ProjectFactory(slug="pca-hostile-flow", kind="pca", overlap=2)
    line = fixture_lines("pca.jsonl")[0]
    answer = hostile("candidate")
    line["instance"] |= {
        "question": hostile("question"),
        "context": hostile("context"),
        "reason": hostile("reason"),
        "candidates": ["Keep driving", answer],
        "answer": answer,
        "key_concepts": [hostile("concept")],
    }
    line["output"] = {"model": hostile("model"), "text": hostile("output") + " Final action: Keep driving"}
    assert run(project, write_jsonl(tmp_path / "pca.jsonl", [line]), media_dir=SHARED_FIXTURES / "media").ok
    users = hostile_members(project)
    fields = ["question", "context", "reason", "candidate", "concept", "output"]
    dialogs = collect_dialogs(page)

    switch_user(page, "h0")
    item_id = open_next(page, project.slug)
    assert_hostile_shown_as_text(page, fields, dialogs)

    # Two different labels send the item to adjudication; the reviewer's page shows it all too.
    item = Item.objects.get(pk=item_id)
    for user, cognition in zip(users, (0, 1), strict=True):
        submit_label(
            item,
            user,
            {
                "perception": 1,
                "cognition": cognition,
                "action": 0,
                "evidence": {"perception": hostile("note")},
            },
            rationale=hostile("rationale"),
        )
    item.refresh_from_db()
    assert item.state == ItemState.ADJUDICATION
    switch_user(page, "hrev")
    open_adjudication(page, project.slug, item.external_id)
    assert_hostile_shown_as_text(page, [*fields, "note"], dialogs)
