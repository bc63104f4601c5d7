"""Server time of the labeling page, and its SQL query count, for pairs of different length."""

from __future__ import annotations

import time
from datetime import timedelta

from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext
from django.urls import reverse
from django.utils import timezone

from annotation.labels import display_order
from annotation.models import Assignment, AssignmentStatus, Item, Project

from .common import summary_ms


def hold(*, item: Item, annotator) -> Assignment:
    """Give the annotator a live lease on `item`, as the queue would."""
    now = timezone.now()
    assignment, _ = Assignment.objects.update_or_create(
        item=item,
        annotator=annotator,
        defaults={
            "status": AssignmentStatus.ACTIVE,
            "leased_at": now,
            "expires_at": now + timedelta(hours=6),
            "display_order": display_order(item_id=item.pk, annotator_id=annotator.pk),
        },
    )
    return assignment


def label_page(*, project: Project, annotator, items: dict[str, Item], rounds: int, warmup: int = 5) -> dict:
    """GET /p/<slug>/items/<id>/label/ `rounds` times per item, as an annotator holding it."""
    client = Client()
    client.force_login(annotator)
    results: dict[str, dict] = {}
    for name, item in items.items():
        hold(item=item, annotator=annotator)
        url = reverse("label_item", args=[project.slug, item.pk])
        for _ in range(warmup):
            response = client.get(url)
            if response.status_code != 200:
                raise RuntimeError(f"{url} answered {response.status_code}")
        with CaptureQueriesContext(connection) as queries:
            response = client.get(url)
        # Read now: the next request clears the connection's query log.
        n_queries = len(queries.captured_queries)
        times = []
        for _ in range(rounds):
            started = time.perf_counter()
            response = client.get(url)
            times.append(time.perf_counter() - started)
        results[name] = {
            **summary_ms(times),
            "queries": n_queries,
            "html_kb": round(len(response.content) / 1024, 1),
            "item": item.external_id,
        }
    return results
