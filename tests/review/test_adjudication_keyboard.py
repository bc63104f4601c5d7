"""A reviewer settles two items with the keyboard, in real Chromium: a final label on the first
(2, t, Space, reason, Ctrl+Enter), a discard on the second (d, reason)."""

from __future__ import annotations

import os
import threading

import pytest
from playwright.sync_api import sync_playwright

from annotation.models import ItemState, Role
from review.models import Adjudication
from tests.e2e.conftest import CHROMIUM_ARGS, log_in
from tests.factories import MembershipFactory, ProjectFactory
from tests.review.factories import disputed_pair, pair_label

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]


def in_own_browser(base_url: str, steps) -> None:
    """Run `steps(page)` in a thread with its own Playwright: the e2e suite's session browser
    holds this thread's Playwright loop when both run in one session."""
    failure: list[BaseException] = []

    def run():
        try:
            path = os.environ.get("CHROMIUM_PATH", "/usr/bin/chromium")
            with sync_playwright() as pw:
                browser = pw.chromium.launch(executable_path=path, args=CHROMIUM_ARGS, headless=True)
                context = browser.new_context(base_url=base_url, viewport={"width": 1400, "height": 1000})
                context.set_default_timeout(15_000)
                try:
                    steps(context.new_page())
                finally:
                    browser.close()
        except BaseException as exc:  # noqa: BLE001 - re-raised in the test's thread
            failure.append(exc)

    thread = threading.Thread(target=run)
    thread.start()
    thread.join(120)
    if failure:
        raise failure[0]
    assert not thread.is_alive(), "the browser steps did not finish"


def test_reviewer_settles_the_queue_with_the_keyboard(live_server):
    project = ProjectFactory(slug="flights", name="Flights", overlap=2)
    MembershipFactory(project=project, role=Role.REVIEWER, user__username="rita")
    labelled = disputed_pair(project, [pair_label("first"), pair_label("second"), pair_label("tie")])
    discarded = disputed_pair(project, [pair_label("first"), pair_label("second")])
    seen: dict = {}

    def steps(page):
        log_in(page, "rita")
        page.goto(f"/p/{project.slug}/review/")
        page.get_by_role("link", name="Start with the first item").click()
        page.wait_for_url(f"**/review/items/{labelled.pk}/")
        page.locator("h1").click()  # focus the page, not a field
        page.keyboard.press("2")
        seen["second_checked"] = page.locator(
            '#final-form input[name="preferred"][value="second"]'
        ).is_checked()
        page.keyboard.press("t")
        page.keyboard.press("Space")  # the first tag of candidate first
        page.locator('#final-form textarea[name="reason"]').fill("first never checks the budget")
        page.keyboard.press("Control+Enter")
        page.wait_for_url(f"**/review/items/{discarded.pk}/")
        seen["notice"] = page.locator(".messages").inner_text()
        page.once("dialog", lambda dialog: dialog.accept("both candidates crash on the first call"))
        page.locator("h1").click()
        page.keyboard.press("d")
        page.wait_for_url(f"**/p/{project.slug}/review/")

    in_own_browser(live_server.url, steps)

    assert seen["second_checked"]
    assert "verified with the final label" in seen["notice"]
    labelled.refresh_from_db()
    discarded.refresh_from_db()
    first_tag = project.critical_tags(labelled.family)[0]
    assert labelled.state == ItemState.VERIFIED
    assert labelled.settled_label == {"preferred": "second", "tags": {"first": [first_tag], "second": []}}
    assert (discarded.state, discarded.discard_reason) == (
        ItemState.DISCARDED,
        "both candidates crash on the first call",
    )
    assert Adjudication.objects.filter(item__in=[labelled, discarded]).count() == 2
