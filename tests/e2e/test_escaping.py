"""Hostile trajectory content shows as text in the browser and runs nothing."""

from __future__ import annotations

import pytest

from annotation.services.queue import item_assign
from tests.e2e.conftest import log_in
from tests.factories import MembershipFactory, PairItemFactory, ProjectFactory, TrajectoryFactory

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]

SCRIPT = "<script>window.__pwned = 'script'; alert('xss')</script>"
IMG = "<img src=x onerror=\"window.__pwned='img'; alert('img')\">"
TEMPLATE = "{{ request.user.password }} {% now 'Y' %}"


def hostile_messages():
    return [
        {
            "role": "assistant",
            "content": None,
            "tool_calls": [
                {"id": "c1", "name": "fetch_page", "arguments": {"url": "http://shop.example/" + IMG}}
            ],
        },
        {
            "role": "tool",
            "tool_call_id": "c1",
            "name": "fetch_page",
            "content": f"<html>{SCRIPT}{IMG}</html>",
        },
        {"role": "assistant", "content": f"Done. {TEMPLATE}", "reasoning": SCRIPT},
    ]


def test_script_and_onerror_are_shown_as_text(page):
    project = ProjectFactory(slug="hostile", overlap=1)
    item = PairItemFactory(
        project=project,
        trajectory_first=TrajectoryFactory(project=project, messages=hostile_messages()),
    )
    user = MembershipFactory(project=project, user__username="ann").user
    item_assign(project=project, annotator=user)
    dialogs = []
    page.on("dialog", lambda d: (dialogs.append(d.message), d.dismiss()))
    log_in(page, "ann")
    page.goto(f"/p/{project.slug}/items/{item.pk}/label/")
    page.wait_for_load_state("networkidle")
    # Open every collapsed block so nothing hides the text.
    page.evaluate("document.querySelectorAll('details').forEach(d => { d.open = true; })")

    body = page.locator("body").inner_text()
    assert SCRIPT in body
    assert IMG in body
    assert TEMPLATE.split()[0] in body and "{% now 'Y' %}" in body
    assert page.evaluate("window.__pwned") is None
    assert dialogs == []
    # No element built from the content: the only <img> tags are the page's own.
    assert page.locator("img[onerror]").count() == 0
