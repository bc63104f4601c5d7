"""An annotator ranks the candidates of a step item with the keyboard, in real Chromium."""

from __future__ import annotations

import pytest

from annotation.models import Annotation
from annotation.rendering.step import candidate_order
from tests.annotation.import_helpers import run
from tests.e2e.conftest import log_in
from tests.factories import MembershipFactory, ProjectFactory
from tests.fixtures_path import SHARED_FIXTURES

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]


def test_annotator_labels_a_step_item_with_keyboard(page):
    project = ProjectFactory(slug="steps", name="Steps", kind="step", overlap=2)
    assert run(project, SHARED_FIXTURES / "steps.jsonl", media_dir=SHARED_FIXTURES / "media").ok
    user = MembershipFactory(project=project, user__username="ann").user
    log_in(page, "ann")

    page.goto(f"/p/{project.slug}/next/")
    page.wait_for_url("**/label/")
    labeled_url = page.url
    assert page.locator(".step-observation img[src*='/media/']").count() >= 1
    for radio in page.locator('.step-marks input[value="yes"]').all():
        radio.check()
    page.locator("body").click(position={"x": 5, "y": 5})  # focus the page, not a field
    page.keyboard.press("2")  # the second candidate as displayed
    page.keyboard.press("Enter")
    page.wait_for_url(lambda url: url != labeled_url)
    page.get_by_text("Label saved. Here is the next item.").wait_for()

    annotation = Annotation.objects.get(annotator=user)
    item = annotation.item
    assert annotation.label["chosen"] == candidate_order(item=item, annotator_id=user.pk)[1]
    assert annotation.label["checklist"] == ["yes"] * len(item.payload["checklist"])
