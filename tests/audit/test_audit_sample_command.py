"""`manage.py audit_sample`: the same draw as the page and the API, from a shell."""

from __future__ import annotations

from io import StringIO

import pytest
from django.core.management import CommandError, call_command

from annotation.models import Item
from audit.models import AuditSample
from review.models import AuditLog
from tests.factories import MembershipFactory, ProjectFactory

pytestmark = pytest.mark.django_db


@pytest.fixture
def project():
    project = ProjectFactory(slug="cli")
    MembershipFactory(project=project, role="manager", user__username="zoe")
    MembershipFactory(project=project, role="manager", user__username="amy")
    Item.objects.bulk_create(
        Item(project=project, kind="pair", external_id=f"{family}-{k}", family=family, stratum=bucket)
        for family, bucket, n in (("robust_recovery", "robust", 12), ("safety_refusal", "safety", 3))
        for k in range(n)
    )
    return project


def run(*args) -> str:
    out = StringIO()
    call_command("audit_sample", *args, stdout=out)
    return out.getvalue()


def test_prints_counts_per_stratum_and_records_the_sample(project):
    out = run("cli", "--seed", "4", "--cap", "5")
    lines = out.splitlines()
    assert lines[0].split() == ["family", "sampled", "items"]
    assert lines[1].split() == ["robust_recovery", "5", "12"]
    assert lines[2].split() == ["safety_refusal", "3", "3"]
    assert lines[3].split() == ["total", "8", "15"]
    assert "seed 4" in lines[4] and "drawn as amy" in lines[4]  # the first manager by name
    sample = AuditSample.objects.get()
    assert (sample.seed, sample.policy["cap"], sample.created_by.username) == (4, 5, "amy")
    assert AuditLog.objects.filter(action="audit_sample", actor__username="amy").count() == 1


def test_rate_by_bucket_with_overlap_and_user(project):
    out = run("cli", "--seed", "4", "--by", "bucket", "--rate", "0.25", "--overlap", "3", "--user", "zoe")
    assert [line.split() for line in out.splitlines()[1:3]] == [["robust", "3", "12"], ["safety", "1", "3"]]
    assert set(Item.objects.filter(audited=True).values_list("overlap", flat=True)) == {3}
    assert AuditSample.objects.get().created_by.username == "zoe"


def test_same_seed_same_sample(project):
    run("cli", "--seed", "99", "--cap", "4")
    first = set(Item.objects.filter(audited=True).values_list("pk", flat=True))
    run("cli", "--seed", "100", "--cap", "4")
    run("cli", "--seed", "99", "--cap", "4")
    assert set(Item.objects.filter(audited=True).values_list("pk", flat=True)) == first


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["nope", "--seed", "1"], "No project"),
        (["cli", "--seed", "1", "--rate", "2"], "rate"),
        (["cli", "--seed", "1", "--overlap", "1"], "at least two"),
        (["cli", "--seed", "1", "--user", "ghost"], "no user named"),
    ],
)
def test_errors_are_clear_and_change_nothing(project, args, message):
    with pytest.raises(CommandError, match=message):
        run(*args)
    assert not AuditSample.objects.exists()


def test_a_user_who_is_not_a_manager_is_refused(project):
    MembershipFactory(project=project, role="reviewer", user__username="rita")
    with pytest.raises(CommandError, match="not a manager"):
        run("cli", "--seed", "1", "--user", "rita")
