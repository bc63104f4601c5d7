"""Two annotators disagree on a pair, a reviewer settles it, a manager exports: the exported
file holds the settled label, in the split the seeded policy puts it in."""

from __future__ import annotations

import json

import pytest
from django.core.management import call_command

from annotation.labels import display_order, to_letter
from annotation.models import ItemState, Role
from tests.e2e.conftest import log_in
from tests.factories import MembershipFactory, PairItemFactory, ProjectFactory

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]
SPLITS = "train=0.5,test=0.5"


def label_in_browser(page, project, username, side):
    """Log in as `username` and prefer the canonical `side` with the keyboard."""
    page.context.clear_cookies()
    log_in(page, username)
    page.goto(f"/p/{project.slug}/next/")
    page.wait_for_url("**/label/")
    item_id = int(page.url.rstrip("/").split("/")[-2])
    user_id = MembershipFactory._meta.model.objects.get(project=project, user__username=username).user_id
    letter = to_letter(display_order(item_id=item_id, annotator_id=user_id), side)
    page.locator("body").click(position={"x": 5, "y": 5})
    page.keyboard.press("1" if letter == "A" else "2")
    page.keyboard.press("Enter")
    page.wait_for_url(lambda url: not url.endswith(f"/items/{item_id}/label/"))
    return item_id


def test_disagreement_adjudicated_and_exported(page, tmp_path):
    project = ProjectFactory(slug="flights", name="Flights", overlap=2)
    disputed = PairItemFactory(project=project, external_id="disputed-1", priority=100)
    # Already-verified neighbours, so the export has more than one item to split.
    for n in range(6):
        PairItemFactory(
            project=project,
            external_id=f"settled-{n}",
            state=ItemState.VERIFIED,
            settled_label={"preferred": "first", "tags": {"first": [], "second": []}},
        )
    for name, role in (
        ("ann1", Role.ANNOTATOR),
        ("ann2", Role.ANNOTATOR),
        ("rev", Role.REVIEWER),
        ("boss", Role.MANAGER),
    ):
        MembershipFactory(project=project, role=role, user__username=name)

    assert label_in_browser(page, project, "ann1", "first") == disputed.pk
    assert label_in_browser(page, project, "ann2", "second") == disputed.pk
    disputed.refresh_from_db()
    assert disputed.state == ItemState.ADJUDICATION

    # The reviewer settles it for the second trajectory.
    page.context.clear_cookies()
    log_in(page, "rev")
    page.goto(f"/p/{project.slug}/review/")
    page.get_by_role("link", name="disputed-1").first.click()
    page.wait_for_url(f"**/review/items/{disputed.pk}/")
    page.locator("body").click(position={"x": 5, "y": 5})
    page.keyboard.press("2")
    page.locator("textarea[name=reason]").first.fill("The second keeps the budget; the first overspends.")
    page.keyboard.press("Control+Enter")
    page.wait_for_url(lambda url: not url.endswith(f"/review/items/{disputed.pk}/"))
    disputed.refresh_from_db()
    assert disputed.state == ItemState.VERIFIED
    assert disputed.settled_label["preferred"] == "second"

    # The manager exports and downloads the files the page links to.
    page.context.clear_cookies()
    log_in(page, "boss")
    page.goto(f"/p/{project.slug}/exports/")
    page.get_by_label("Splits").fill(SPLITS)
    page.get_by_label("Seed").fill("7")
    page.get_by_role("button", name="Export").click()
    page.wait_for_url("**/exports/*/")
    page.locator(".export-status", has_text="Done").wait_for()
    found = {}
    for link in page.locator("table.export-files a").all():
        name = link.inner_text()
        if not name.endswith(".interchange.jsonl"):
            continue
        body = page.request.get(link.get_attribute("href")).text()
        for line in body.splitlines():
            record = json.loads(line)
            if record.get("id") == "disputed-1":
                found[name.split(".")[0]] = record
    assert len(found) == 1, f"the settled pair must be in exactly one split, got {sorted(found)}"
    ((split, record),) = found.items()
    # In the interchange shape the settled preference becomes `chosen`.
    assert record["label"]["preferred"] == "chosen"
    assert record["chosen"]["messages"] == disputed.trajectory_second.messages
    assert record["rejected"]["messages"] == disputed.trajectory_first.messages

    # The same seed from the command line puts it in the same split.
    out = tmp_path / "cli"
    call_command("export_verified", project.slug, "--out", str(out), "--splits", SPLITS, "--seed", "7")
    text = (out / f"{split}.interchange.jsonl").read_text()
    assert '"id": "disputed-1"' in text or '"id":"disputed-1"' in text
