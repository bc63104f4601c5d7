"""Audit sampling: stratified, deterministic for a seed, and careful with items already in work."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.test import Client
from django.urls import reverse
from django.utils import timezone
from rest_framework.test import APIClient

from annotation.models import AssignmentStatus, Item, ItemState
from audit.models import AuditSample
from audit.services.sampling import SamplingError, audit_sample_draw, sample_key
from review.models import AuditLog
from tests.api.factories import AnnotationFactory, AssignmentFactory
from tests.factories import MembershipFactory, ProjectFactory, TaskFactory

pytestmark = pytest.mark.django_db


def make_items(project, family: str, n: int, *, prefix: str = "", **fields) -> list[Item]:
    prefix = prefix or family
    return Item.objects.bulk_create(
        Item(
            project=project,
            kind="pair",
            external_id=f"{prefix}-{k:03d}",
            family=family,
            **{"overlap": 2, **fields},
        )
        for k in range(n)
    )


@pytest.fixture
def project():
    return ProjectFactory(slug="audit-me", overlap=2)


@pytest.fixture
def manager(project):
    return MembershipFactory(project=project, role="manager", user__username="mgr").user


def audited_ids(project) -> set[str]:
    return set(Item.objects.filter(project=project, audited=True).values_list("external_id", flat=True))


def test_cap_takes_at_most_cap_per_stratum_and_small_strata_whole(project, manager):
    make_items(project, "robust_recovery", 12)
    make_items(project, "safety_refusal", 3)
    sample = audit_sample_draw(project=project, actor=manager, cap=5, seed=7)

    assert sample.counts == {
        "robust_recovery": {"population": 12, "sampled": 5},
        "safety_refusal": {"population": 3, "sampled": 3},
    }
    assert Item.objects.filter(project=project, family="robust_recovery", audited=True).count() == 5
    assert Item.objects.filter(project=project, family="safety_refusal", audited=True).count() == 3
    # Sampled items get the audit overlap, every other item one annotator.
    assert set(Item.objects.filter(project=project, audited=True).values_list("overlap", flat=True)) == {2}
    assert set(Item.objects.filter(project=project, audited=False).values_list("overlap", flat=True)) == {1}


def test_sample_is_the_first_k_by_hash_of_seed_and_external_id(project, manager):
    items = make_items(project, "robust_recovery", 20)
    audit_sample_draw(project=project, actor=manager, cap=4, seed=123)
    expected = sorted(items, key=lambda i: sample_key(123, i.external_id))[:4]
    assert audited_ids(project) == {i.external_id for i in expected}


def test_rate_rounds_half_up_with_at_least_one_per_stratum(project, manager):
    make_items(project, "big", 10)  # 0.25 × 10 = 2.5 → 3
    make_items(project, "small", 3)  # 0.25 × 3 = 0.75 → 1
    make_items(project, "tiny", 1)  # 0.25 × 1 = 0.25 → 0, but at least 1
    sample = audit_sample_draw(project=project, actor=manager, mode="rate", rate=0.25, cap=None, seed=1)
    assert {name: c["sampled"] for name, c in sample.counts.items()} == {"big": 3, "small": 1, "tiny": 1}
    assert sample.policy == {
        "stratum_field": "family",
        "mode": "rate",
        "cap": None,
        "rate": 0.25,
        "audit_overlap": 2,
    }


def test_same_seed_same_sample_and_a_redraw_replaces_the_previous_one(project, manager):
    make_items(project, "a", 30)
    make_items(project, "b", 30)
    audit_sample_draw(project=project, actor=manager, cap=6, seed=42)
    first = audited_ids(project)
    audit_sample_draw(project=project, actor=manager, cap=6, seed=43)
    other = audited_ids(project)
    assert other != first and len(other) == 12  # replaced, not added to
    audit_sample_draw(project=project, actor=manager, cap=6, seed=42)
    assert audited_ids(project) == first
    assert AuditSample.objects.filter(project=project).count() == 3


def test_the_sample_does_not_depend_on_the_order_rows_were_stored(manager):
    ids = [f"pair-{k}" for k in range(25)]
    samples = []
    for slug, order in (("forward", ids), ("backward", ids[::-1])):
        project = ProjectFactory(slug=slug)
        Item.objects.bulk_create(Item(project=project, kind="pair", external_id=x, family="f") for x in order)
        audit_sample_draw(project=project, actor=manager, cap=7, seed=9)
        samples.append(audited_ids(project))
    assert samples[0] == samples[1]


def test_stratify_by_bucket_difficulty_and_domain(project, manager):
    make_items(project, "f", 4, prefix="x", stratum="multi_hard", difficulty="hard")
    make_items(project, "f", 2, prefix="y", stratum="single_easy", difficulty="easy")
    by_bucket = audit_sample_draw(project=project, actor=manager, stratum_field="bucket", cap=3, seed=1)
    assert by_bucket.counts == {
        "multi_hard": {"population": 4, "sampled": 3},
        "single_easy": {"population": 2, "sampled": 2},
    }
    by_difficulty = audit_sample_draw(
        project=project, actor=manager, stratum_field="difficulty", cap=1, seed=1
    )
    assert set(by_difficulty.counts) == {"hard", "easy"}
    task = TaskFactory(project=project, domain="traffic")
    Item.objects.filter(project=project, external_id__startswith="x").update(task=task)
    by_domain = audit_sample_draw(project=project, actor=manager, stratum_field="domain", cap=1, seed=1)
    assert by_domain.counts == {
        "": {"population": 2, "sampled": 1},
        "traffic": {"population": 4, "sampled": 1},
    }


def test_settled_items_are_never_reopened_and_keep_their_overlap(project, manager):
    verified, adjudication, discarded = make_items(project, "f", 3, prefix="settled", n_annotations=2)
    Item.objects.filter(pk=verified.pk).update(state=ItemState.VERIFIED, settled_label={"preferred": "first"})
    Item.objects.filter(pk=adjudication.pk).update(state=ItemState.ADJUDICATION)
    Item.objects.filter(pk=discarded.pk).update(state=ItemState.DISCARDED, discard_reason="duplicate")
    Item.objects.filter(pk=discarded.pk).update(audited=True)
    audit_sample_draw(project=project, actor=manager, cap=1, seed=5)
    sample = audit_sample_draw(project=project, actor=manager, cap=80, seed=5, audit_overlap=3)
    for item, state in ((verified, "verified"), (adjudication, "adjudication")):
        item.refresh_from_db()
        assert (item.state, item.overlap, item.audited) == (state, 2, True)
    # Discarded items are outside the population (agreement leaves them out too).
    discarded.refresh_from_db()
    assert (discarded.state, discarded.overlap, discarded.audited) == ("discarded", 2, False)
    assert sample.counts == {"f": {"population": 2, "sampled": 2}}


def test_open_items_keep_the_labels_they_have_and_those_in_hand(project, manager):
    """An item outside the sample wants one label; with one already it settles at once, with a
    second annotator holding a live lease it waits for that label."""
    annotators = [MembershipFactory(project=project).user for _ in range(2)]
    done, held = make_items(project, "f", 2, prefix="open", state=ItemState.ANNOTATING, n_annotations=1)
    for item in (done, held):
        AnnotationFactory(item=item, annotator=annotators[0])
    AssignmentFactory(item=held, annotator=annotators[1])
    # An expired lease holds nothing.
    AssignmentFactory(item=done, annotator=annotators[1], expires_at=timezone.now() - timedelta(minutes=1))
    make_items(project, "f", 30, prefix="filler")
    # A seed for which neither open item falls in a sample of 1.
    seed = next(
        s
        for s in range(1000)
        if min(sample_key(s, f"filler-{k:03d}") for k in range(30))
        < min(sample_key(s, "open-000"), sample_key(s, "open-001"))
    )
    audit_sample_draw(project=project, actor=manager, cap=1, seed=seed)

    done.refresh_from_db()
    held.refresh_from_db()
    assert not done.audited and not held.audited
    assert (done.state, done.overlap) == (ItemState.VERIFIED, 1)
    assert done.settled_label == {"preferred": "first", "tags": {"first": [], "second": []}}
    assert AuditLog.objects.filter(item=done, action="state", to_state="verified").exists()
    assert (held.state, held.overlap) == (ItemState.ANNOTATING, 2)
    assert held.assignments.filter(status=AssignmentStatus.ACTIVE).count() == 1


def test_an_open_item_is_never_set_below_its_labels(project, manager):
    (item,) = make_items(project, "f", 1, state=ItemState.ANNOTATING, n_annotations=3, overlap=3)
    audit_sample_draw(project=project, actor=manager, cap=80, seed=1, audit_overlap=2)
    item.refresh_from_db()
    assert item.audited and item.overlap == 3


def test_the_draw_is_recorded_in_the_sample_the_project_and_the_audit_log(project, manager):
    make_items(project, "a", 4)
    sample = audit_sample_draw(project=project, actor=manager, cap=2, seed=77, audit_overlap=3)
    project.refresh_from_db()
    assert project.audit_policy == {
        "stratum_field": "family",
        "mode": "cap",
        "cap": 2,
        "rate": None,
        "audit_overlap": 3,
        "seed": 77,
        "sample_id": sample.pk,
    }
    assert (sample.created_by, sample.seed) == (manager, 77)
    log = AuditLog.objects.get(project=project, action="audit_sample")
    assert log.actor == manager and log.item is None
    assert log.data["sample"] == sample.pk
    assert log.data["counts"] == {"a": {"population": 4, "sampled": 2}}
    assert set(Item.objects.filter(project=project, audited=True).values_list("overlap", flat=True)) == {3}


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"stratum_field": "colour"}, "Unknown stratum field"),
        ({"mode": "some"}, "Unknown mode"),
        ({"cap": 0}, "cap"),
        ({"mode": "rate", "rate": 0}, "rate"),
        ({"mode": "rate", "rate": 1.5}, "rate"),
        ({"audit_overlap": 1}, "at least two"),
        ({"seed": -1}, "seed"),
    ],
)
def test_bad_policies_are_refused_and_change_nothing(project, manager, kwargs, message):
    make_items(project, "a", 3)
    with pytest.raises(SamplingError, match=message):
        audit_sample_draw(project=project, actor=manager, **{"seed": 1, **kwargs})
    assert not AuditSample.objects.exists()
    assert not Item.objects.filter(audited=True).exists()
    assert not AuditLog.objects.filter(action="audit_sample").exists()


def test_an_empty_project_has_nothing_to_sample(project, manager):
    with pytest.raises(SamplingError, match="no items"):
        audit_sample_draw(project=project, actor=manager, seed=1)


def test_queries_do_not_grow_with_the_number_of_items(project, manager, django_assert_max_num_queries):
    make_items(project, "a", 400)
    make_items(project, "b", 400)
    with django_assert_max_num_queries(20):
        audit_sample_draw(project=project, actor=manager, cap=80, seed=3)
    assert Item.objects.filter(project=project, audited=True).count() == 160


# --- the sampling page and the API -----------------------------------------------------------


def form(**overrides) -> dict:
    return {
        "stratum_field": "family",
        "mode": "cap",
        "cap": "2",
        "rate": "",
        "seed": "11",
        "audit_overlap": "2",
        **overrides,
    }


def test_sampling_page_draws_and_reports_counts_on_the_dashboard(project, manager):
    make_items(project, "robust_recovery", 5)
    make_items(project, "safety_refusal", 1)
    client = Client()
    client.force_login(manager)
    url = reverse("audit_sample", args=[project.slug])
    page = client.get(url)
    assert page.status_code == 200
    assert page.context["form"]["seed"].value() is not None  # prefilled with a random seed
    response = client.post(url, form(), follow=True)
    assert response.redirect_chain == [(reverse("audit_dashboard", args=[project.slug]) + "?by=family", 302)]
    message = [str(m) for m in response.context["messages"]][0]
    assert "seed 11" in message and "robust_recovery 2 of 5" in message and "safety_refusal 1 of 1" in message
    listed = client.get(url).content.decode()
    assert "robust_recovery: 2 of 5" in listed and "current" in listed


def test_sampling_page_explains_bad_input_and_changes_nothing(project, manager):
    make_items(project, "a", 3)
    client = Client()
    client.force_login(manager)
    response = client.post(reverse("audit_sample", args=[project.slug]), form(mode="rate", rate=""))
    assert response.status_code == 400
    assert "Give a rate above 0" in response.content.decode()
    assert not AuditSample.objects.exists()


def test_sampling_page_is_for_managers_only(project):
    reviewer = MembershipFactory(project=project, role="reviewer").user
    client = Client()
    client.force_login(reviewer)
    url = reverse("audit_sample", args=[project.slug])
    assert client.get(url).status_code == 404
    assert client.post(url, form()).status_code == 404


def test_api_draws_and_lists_samples(project, manager):
    make_items(project, "a", 4)
    make_items(project, "b", 1)
    reviewer = MembershipFactory(project=project, role="reviewer").user
    api = APIClient()
    api.force_authenticate(manager)
    url = reverse("api:audit-sample-list", args=[project.slug])
    body = {"stratum_field": "family", "mode": "rate", "rate": 0.5, "seed": 5, "audit_overlap": 3}
    response = api.post(url, body, format="json")
    assert response.status_code == 201, response.data
    assert response.data["counts"] == {
        "a": {"population": 4, "sampled": 2},
        "b": {"population": 1, "sampled": 1},
    }
    assert (response.data["sampled"], response.data["population"], response.data["seed"]) == (3, 5, 5)
    assert response.data["policy"]["audit_overlap"] == 3

    api.force_authenticate(reviewer)
    listing = api.get(url)
    assert listing.status_code == 200
    assert [s["id"] for s in listing.data["results"]] == [response.data["id"]]
    assert api.post(url, body, format="json").status_code == 404  # reviewers read, never draw


def test_api_refuses_bad_policies(project, manager):
    make_items(project, "a", 2)
    api = APIClient()
    api.force_authenticate(manager)
    url = reverse("api:audit-sample-list", args=[project.slug])
    assert api.post(url, {"mode": "rate", "seed": 1}, format="json").status_code == 400
    assert api.post(url, {"cap": 5}, format="json").status_code == 400  # no seed
    assert api.post(url, {"seed": 1, "audit_overlap": 1}, format="json").status_code == 400
    empty = ProjectFactory(slug="empty")
    MembershipFactory(project=empty, role="manager", user=manager)
    response = api.post(reverse("api:audit-sample-list", args=["empty"]), {"seed": 1}, format="json")
    assert response.status_code == 400 and "no items" in response.data["detail"]
    assert not AuditSample.objects.exists()
