"""An annotator labels two pairs with the keyboard alone, in real Chromium."""

from __future__ import annotations

import pytest

from annotation.models import Annotation, ItemState
from tests.e2e.conftest import log_in
from tests.factories import MembershipFactory, PairItemFactory, ProjectFactory

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]


def test_annotator_labels_two_pairs_with_keyboard(page):
    project = ProjectFactory(slug="flights", name="Flights", overlap=1)
    items = PairItemFactory.create_batch(3, project=project)
    user = MembershipFactory(project=project, user__username="ann").user
    log_in(page, "ann")

    page.goto(f"/p/{project.slug}/next/")
    for _ in range(2):
        page.wait_for_url("**/label/")
        labeled_url = page.url
        page.locator("body").click(position={"x": 5, "y": 5})  # focus the page, not a field
        page.keyboard.press("1")  # prefer A
        page.keyboard.press("Enter")
        page.wait_for_url(lambda url, previous=labeled_url: url != previous)

    labels = list(Annotation.objects.filter(annotator=user).select_related("item").order_by("created_at"))
    assert len(labels) == 2
    for annotation in labels:
        # "1" chose A; stored canonically as whichever trajectory A showed this annotator.
        assert annotation.label["preferred"] == annotation.display_order[0]
        # Overlap 1: agreeing with the source gold ("first") verifies, else it is a label flip.
        expected = ItemState.VERIFIED if annotation.label["preferred"] == "first" else ItemState.ADJUDICATION
        assert annotation.item.state == expected
    assert {a.item_id for a in labels} < {i.pk for i in items}
