"""The HTML browse pages: the item list (reviewers, managers) and the labels page."""

from __future__ import annotations

from django.test import Client
from django.urls import reverse

from annotation.models import ItemState
from tests.api.factories import AnnotationFactory
from tests.factories import PairItemFactory


def logged_in(user) -> Client:
    client = Client()
    client.force_login(user)
    return client


def test_item_list_filters_paginates_and_links_to_items(project, reviewer):
    PairItemFactory.create_batch(55, project=project, stratum="robust")
    done = PairItemFactory(project=project, stratum="safety", state=ItemState.VERIFIED, external_id="safe-1")
    client = logged_in(reviewer)
    url = reverse("item_list", args=[project.slug])

    page1 = client.get(url)
    page2 = client.get(url, {"page": 2})
    filtered = client.get(url, {"state": "verified", "stratum": "safety"})

    assert page1.status_code == 200
    assert "56 items" in page1.text
    assert "Page 1 of 2" in page1.text
    assert "page=2" in page1.text
    assert page2.context["page"].number == 2 and len(page2.context["page"].object_list) == 6
    assert [i.external_id for i in filtered.context["page"].object_list] == ["safe-1"]
    assert reverse("label_item", args=[project.slug, done.pk]) in filtered.text
    assert '<option value="safety"' in page1.text  # strata of the project are offered


def test_item_list_htmx_gets_only_the_table(project, manager):
    PairItemFactory(project=project, external_id="pair-x")
    response = logged_in(manager).get(
        reverse("item_list", args=[project.slug]), {"state": "new"}, HTTP_HX_REQUEST="true"
    )
    assert response.status_code == 200
    assert response.text.lstrip().startswith('<section id="item-table">')
    assert "pair-x" in response.text
    assert "<html" not in response.text


def test_item_list_rejects_an_unknown_state_with_a_message(project, manager):
    PairItemFactory(project=project)
    response = logged_in(manager).get(reverse("item_list", args=[project.slug]), {"state": "finished"})
    assert response.status_code == 400
    assert "Select a valid choice" in response.text


def test_item_list_escapes_ids(project, manager):
    PairItemFactory(project=project, external_id="<b>x</b>")
    response = logged_in(manager).get(reverse("item_list", args=[project.slug]))
    assert "&lt;b&gt;x&lt;/b&gt;" in response.text and "<b>x</b>" not in response.text


def test_annotator_sees_only_own_labels_in_their_letters(project, annotator, annotator2):
    item = PairItemFactory(project=project, external_id="pair-mine")
    AnnotationFactory(
        item=item,
        annotator=annotator,
        assignment__display_order=["second", "first"],
        label={"preferred": "first", "tags": {"first": ["fabricated_result"], "second": []}, "confidence": 3},
    )
    AnnotationFactory(item=PairItemFactory(project=project, external_id="pair-theirs"), annotator=annotator2)

    response = logged_in(annotator).get(reverse("my_labels", args=[project.slug]))

    assert response.status_code == 200
    rows = response.context["rows"]
    assert [row["item"].external_id for row in rows] == ["pair-mine"]
    assert rows[0]["choice"] == "B"  # `first` was shown to this annotator as B
    assert rows[0]["tags"] == {"B": ["fabricated_result"]}
    assert "pair-theirs" not in response.text and "ann2" not in response.text
    assert reverse("label_item", args=[project.slug, item.pk]) in response.text


def test_reviewer_sees_all_labels_with_annotator_names(project, reviewer, annotator, annotator2):
    item = PairItemFactory(project=project)
    AnnotationFactory(item=item, annotator=annotator)
    AnnotationFactory(item=item, annotator=annotator2, label={"preferred": "tie"})

    response = logged_in(reviewer).get(reverse("my_labels", args=[project.slug]))

    assert response.status_code == 200
    assert {row["annotation"].annotator.username for row in response.context["rows"]} == {"ann", "ann2"}
    assert {row["choice"] for row in response.context["rows"]} == {"first", "tie"}
    assert "<th>Annotator</th>" in response.text


def test_labels_htmx_partial(project, annotator):
    AnnotationFactory(item=PairItemFactory(project=project), annotator=annotator)
    response = logged_in(annotator).get(reverse("my_labels", args=[project.slug]), HTTP_HX_REQUEST="true")
    assert response.text.lstrip().startswith('<section id="labels-table">')
