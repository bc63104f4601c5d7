"""The pair labeling page through the Django test client: queue → page → label → next."""

from __future__ import annotations

import re
import uuid

import pytest

from annotation.labels import display_order
from annotation.models import (
    Annotation,
    AnnotationRevision,
    Assignment,
    AssignmentStatus,
    Item,
    ItemState,
)
from tests.annotation.labeling_helpers import label_post, member, take, url
from tests.factories import PairItemFactory, ProjectFactory

pytestmark = pytest.mark.django_db


@pytest.fixture
def project():
    return ProjectFactory(overlap=2, label_schema={"allow_tie": True})


@pytest.fixture
def annotator_client(client, project):
    user = member(project)
    client.force_login(user)
    client.user = user
    return client


# --- order and storage ------------------------------------------------------------------


def test_ab_order_is_deterministic_per_annotator_and_recorded(client):
    project = ProjectFactory(overlap=30)
    item = PairItemFactory(project=project)  # first says "$199", second "$450"
    seen = set()
    for _ in range(16):
        user = member(project)
        client.force_login(user)
        assignment = take(client, project)
        order = display_order(item_id=item.pk, annotator_id=user.pk)
        assert assignment.display_order == order
        pages = [client.get(url("label_item", project, item.pk)).content.decode() for _ in range(2)]
        for html in pages:
            a_is_first = html.index("$199") < html.index("$450")
            assert a_is_first == (order[0] == "first")
        label_post(client, item, preferred="A")
        annotation = Annotation.objects.get(item=item, annotator=user)
        assert annotation.display_order == order
        assert annotation.label["preferred"] == order[0]
        seen.add(tuple(order))
        if len(seen) == 2:
            break
    assert seen == {("first", "second"), ("second", "first")}


def test_submit_stores_canonical_label_tags_and_time(annotator_client, project):
    item = PairItemFactory(project=project)
    assignment = take(annotator_client, project)
    order = assignment.display_order
    response = label_post(
        annotator_client,
        item,
        preferred="B",
        tags_A=["numeric_error"],
        tags_B=["constraint_violation"],
        confidence="5",
        flagged="on",
        page_loaded_at="1000000",
        submitted_at="1063000",
    )
    assert response.status_code == 302 and response["Location"] == url("queue_next", project)
    annotation = Annotation.objects.get(item=item)
    assert annotation.label == {
        "preferred": order[1],
        "tags": {order[0]: ["numeric_error"], order[1]: ["constraint_violation"]},
        "confidence": 5,
    }
    assert annotation.rationale == "A fits the budget."
    assert annotation.flagged and annotation.seconds_spent == 63
    assignment.refresh_from_db()
    assert assignment.status == AssignmentStatus.SUBMITTED


def test_time_falls_back_to_the_lease_without_js(annotator_client, project):
    item = PairItemFactory(project=project)
    take(annotator_client, project)
    label_post(annotator_client, item)
    assert 0 <= Annotation.objects.get(item=item).seconds_spent < 60


def test_resubmit_with_same_client_id_is_idempotent(annotator_client, project):
    item = PairItemFactory(project=project)
    PairItemFactory(project=project)
    take(annotator_client, project)
    client_id = str(uuid.uuid4())
    first = label_post(annotator_client, item, client_id=client_id, preferred="A")
    again = label_post(annotator_client, item, client_id=client_id, preferred="A")
    assert first.status_code == again.status_code == 302
    assert Annotation.objects.filter(item=item).count() == 1
    item.refresh_from_db()
    assert item.n_annotations == 1


def test_tie_refused_when_project_does_not_allow_it(client):
    project = ProjectFactory(label_schema={"allow_tie": False})
    client.force_login(member(project))
    item = PairItemFactory(project=project)
    take(client, project)
    html = client.get(url("label_item", project, item.pk)).content.decode()
    assert 'value="tie"' not in html
    response = label_post(client, item, preferred="tie")
    assert response.status_code == 400
    assert "This project does not allow ties: choose A or B." in response.content.decode()
    assert not Annotation.objects.exists()


def test_unknown_tag_refused_with_clear_message_nothing_saved(annotator_client, project):
    item = PairItemFactory(project=project)
    take(annotator_client, project)
    response = label_post(annotator_client, item, preferred="A", tags_B=["sarcasm"], rationale="kept text")
    html = response.content.decode()
    assert response.status_code == 400
    assert "Unknown critical tag for B: sarcasm" in html
    assert "kept text" in html  # what the annotator typed is not lost
    assert not Annotation.objects.exists()
    assert Assignment.objects.get(item=item).status == AssignmentStatus.ACTIVE


def test_missing_choice_is_an_error_not_a_crash(annotator_client, project):
    item = PairItemFactory(project=project)
    take(annotator_client, project)
    response = label_post(annotator_client, item, preferred="")
    assert response.status_code == 400 and "Choose which candidate is better" in response.content.decode()


# --- htmx -------------------------------------------------------------------------------


def test_htmx_submit_swaps_in_the_next_item(annotator_client, project):
    item = PairItemFactory(project=project)
    nxt = PairItemFactory(project=project)
    take(annotator_client, project)
    response = label_post(
        annotator_client,
        item,
        page_loaded_at="1000",
        submitted_at="5000",
        headers={"HTTP_HX_REQUEST": "true"},
    )
    assert response.status_code == 200
    assert response["HX-Push-Url"] == url("label_item", project, nxt.pk)
    html = response.content.decode()
    assert 'id="label-page"' in html and "<html" not in html
    assert "Label saved" in html and nxt.external_id in html
    assert 'name="page_loaded_at" value=""' in html  # the next item's clock starts when it is shown


def test_htmx_errors_replace_the_form_in_place(annotator_client, project):
    item = PairItemFactory(project=project)
    take(annotator_client, project)
    response = label_post(
        annotator_client, item, tags_A=["nope"], page_loaded_at="1234", headers={"HTTP_HX_REQUEST": "true"}
    )
    assert response.status_code == 200
    assert 'name="page_loaded_at" value="1234"' in response.content.decode()  # time on item keeps counting
    assert response["HX-Retarget"] == "#label-form" and response["HX-Reswap"] == "outerHTML"
    assert (
        'id="label-form"' in response.content.decode()
        and "Unknown critical tag for A" in response.content.decode()
    )
    assert not Annotation.objects.exists()


def test_htmx_submit_of_last_item_redirects_to_all_done(annotator_client, project):
    item = PairItemFactory(project=project)
    take(annotator_client, project)
    response = label_post(annotator_client, item, headers={"HTTP_HX_REQUEST": "true"})
    assert response["HX-Redirect"] == url("queue_next", project)
    page = annotator_client.get(url("queue_next", project))
    assert page.status_code == 200 and "All done for now" in page.content.decode()


# --- queue, skip ------------------------------------------------------------------------


def test_queue_empty_page_shows_progress(annotator_client, project):
    response = annotator_client.get(url("queue_next", project))
    html = response.content.decode()
    assert response.status_code == 200 and "All done for now" in html and 'id="progress"' in html


def test_page_shows_progress_and_shortcuts(annotator_client, project):
    item = PairItemFactory(project=project)
    take(annotator_client, project)
    html = annotator_client.get(url("label_item", project, item.pk)).content.decode()
    assert 'id="progress"' in html and "1 in hand" in html
    assert "<kbd>1</kbd>" in html and "<kbd>t</kbd>" in html and "labeling.js" in html


def test_skip_needs_reason_then_moves_on(annotator_client, project):
    item = PairItemFactory(project=project)
    take(annotator_client, project)
    response = annotator_client.post(url("skip_item", project, item.pk), {"reason": "  "}, follow=True)
    assert "Not skipped: Say why you skip this item." in response.content.decode()
    assert Assignment.objects.get(item=item).status == AssignmentStatus.ACTIVE
    response = annotator_client.post(url("skip_item", project, item.pk), {"reason": "output unreadable"})
    assert response["Location"] == url("queue_next", project)
    assignment = Assignment.objects.get(item=item)
    assert assignment.status == AssignmentStatus.SKIPPED and assignment.skip_reason == "output unreadable"
    assert annotator_client.get(url("label_item", project, item.pk)).status_code == 404


# --- editing ----------------------------------------------------------------------------


def test_edit_own_label_with_version_and_stale_version_conflicts(annotator_client, project):
    item = PairItemFactory(project=project)
    assignment = take(annotator_client, project)
    label_post(annotator_client, item, preferred="A")
    html = annotator_client.get(url("label_item", project, item.pk)).content.decode()
    assert 'name="version" value="1"' in html and "Save changes" in html
    assert re.search(r'value="A"[^>]* checked', html)  # the saved choice, in the annotator's letters
    ok = annotator_client.post(
        url("label_item", project, item.pk),
        {"version": "1", "preferred": "B", "rationale": "changed my mind"},
    )
    assert ok.status_code == 302 and ok["Location"] == url("label_item", project, item.pk)
    annotation = Annotation.objects.get(item=item)
    assert annotation.version == 2 and annotation.label["preferred"] == assignment.display_order[1]
    assert AnnotationRevision.objects.filter(annotation=annotation, version=1).exists()
    stale = annotator_client.post(url("label_item", project, item.pk), {"version": "1", "preferred": "A"})
    assert stale.status_code == 409
    assert "changed elsewhere since you opened it" in stale.content.decode()
    annotation.refresh_from_db()
    assert annotation.version == 2 and annotation.label["preferred"] == assignment.display_order[1]


def test_settled_item_shows_own_label_read_only(annotator_client, project):
    item = PairItemFactory(project=project)
    take(annotator_client, project)
    label_post(annotator_client, item, preferred="B")
    Item.objects.filter(pk=item.pk).update(state=ItemState.VERIFIED)
    html = annotator_client.get(url("label_item", project, item.pk)).content.decode()
    assert 'id="label-form"' not in html and "can no longer be edited" in html
    response = annotator_client.post(url("label_item", project, item.pk), {"version": "1", "preferred": "A"})
    assert response.status_code == 409 and Annotation.objects.get(item=item).version == 1


def test_second_submit_from_a_stale_tab_does_not_overwrite(annotator_client, project):
    item = PairItemFactory(project=project)
    take(annotator_client, project)
    label_post(annotator_client, item, preferred="A")
    response = label_post(annotator_client, item, preferred="B")  # new client id, no version
    assert response.status_code == 409 and "You already labeled this item" in response.content.decode()
    assert Annotation.objects.get(item=item).version == 1
