"""Factories the API and authorization tests need beyond tests/factories.py."""

from __future__ import annotations

import uuid
from datetime import timedelta

import factory
from django.utils import timezone
from rest_framework.authtoken.models import Token

from annotation.labels import display_order
from annotation.models import Annotation, Assignment, AssignmentStatus, ImportJob
from tests.factories import PairItemFactory, UserFactory


class AssignmentFactory(factory.django.DjangoModelFactory):
    """A live lease; `display_order` is the one the queue would give unless set."""

    class Meta:
        model = Assignment

    item = factory.SubFactory(PairItemFactory)
    annotator = factory.SubFactory(UserFactory)
    status = AssignmentStatus.ACTIVE
    leased_at = factory.LazyFunction(timezone.now)
    expires_at = factory.LazyFunction(lambda: timezone.now() + timedelta(hours=1))
    display_order = factory.LazyAttribute(
        lambda o: display_order(item_id=o.item.pk, annotator_id=o.annotator.pk)
    )


class AnnotationFactory(factory.django.DjangoModelFactory):
    """A stored label with its submitted assignment (bypasses the submit service: use it for
    data a test reads, and the service or the API for what a test checks about submitting)."""

    class Meta:
        model = Annotation

    item = factory.SubFactory(PairItemFactory)
    annotator = factory.SubFactory(UserFactory)
    assignment = factory.SubFactory(
        AssignmentFactory,
        item=factory.SelfAttribute("..item"),
        annotator=factory.SelfAttribute("..annotator"),
        status=AssignmentStatus.SUBMITTED,
    )
    display_order = factory.SelfAttribute("assignment.display_order")
    label = factory.LazyFunction(
        lambda: {"preferred": "first", "tags": {"first": [], "second": []}, "confidence": 4}
    )
    client_id = factory.LazyFunction(uuid.uuid4)
    seconds_spent = 42


class ImportJobFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = ImportJob

    project = factory.SubFactory("tests.factories.ProjectFactory")
    created_by = factory.SubFactory(UserFactory)
    filename = "pairs.jsonl"
    path = "uploads/pairs.jsonl"
    status = ImportJob.Status.DONE
    lines_read = 42
    counts = factory.LazyFunction(lambda: {"created": 42, "duplicates": 0})


def token_for(user) -> str:
    return Token.objects.get_or_create(user=user)[0].key
