"""Submit a label and get the next item, from many annotators at once.

Each annotator is a thread with its own django.test.Client and its own database connection
(Django keeps connections per thread). Times are what each client waited for, so they include
the time a request queues behind the others for the interpreter lock and the database.
"""

from __future__ import annotations

import threading
import time
import uuid
from random import Random

from django.db import connection
from django.test import Client
from django.urls import reverse

from annotation.models import Project

from .common import run_annotators


class Stop(Exception):
    """The queue has nothing left for this annotator."""


def _html_loop(client: Client, project: Project, rng: Random, deadline: float, think: float) -> list[float]:
    """The labeling page with JavaScript: one htmx POST saves the label and returns the next item."""
    response = client.get(reverse("queue_next", args=[project.slug]))
    if response.status_code != 302 or "/items/" not in response["Location"]:
        raise Stop
    url = response["Location"]
    times = []
    _pause(rng, think, deadline)  # paced annotators do not all start at the same instant
    while time.perf_counter() < deadline:
        data = {
            "preferred": rng.choice("AB"),
            "confidence": str(rng.randint(2, 5)),
            "client_id": str(uuid.uuid4()),
        }
        started = time.perf_counter()
        response = client.post(url, data, HTTP_HX_REQUEST="true")
        times.append(time.perf_counter() - started)
        if response.status_code != 200:
            raise RuntimeError(f"POST {url} answered {response.status_code}: {response.content[:300]!r}")
        url = response.headers.get("HX-Push-Url", "")
        if "/items/" not in url:
            break  # queue empty: the page asked the browser to go elsewhere
        _pause(rng, think, deadline)
    return times


def _api_loop(client: Client, project: Project, rng: Random, deadline: float, think: float) -> list[float]:
    """The REST API: POST the label, then POST queue/next for the next item."""
    next_url = reverse("api:queue-next", args=[project.slug])
    submit_url = reverse("api:annotation-list", args=[project.slug])
    response = client.post(next_url)
    if response.status_code != 200:
        raise Stop
    item_id = response.json()["id"]
    times = []
    _pause(rng, think, deadline)
    while time.perf_counter() < deadline:
        payload = {
            "item": item_id,
            "client_id": str(uuid.uuid4()),
            "label_seen": {"preferred": rng.choice("AB")},
        }
        started = time.perf_counter()
        saved = client.post(submit_url, payload, content_type="application/json")
        response = client.post(next_url)
        times.append(time.perf_counter() - started)
        if saved.status_code != 201:
            raise RuntimeError(f"POST {submit_url} answered {saved.status_code}: {saved.content[:300]!r}")
        if response.status_code == 204:
            break
        if response.status_code != 200:
            raise RuntimeError(f"POST {next_url} answered {response.status_code}")
        item_id = response.json()["id"]
        _pause(rng, think, deadline)
    return times


def _pause(rng: Random, think: float, deadline: float) -> None:
    """An annotator reading the next item: exponential pauses of mean `think`, never past the end."""
    if think:
        time.sleep(max(0.0, min(rng.expovariate(1 / think), deadline - time.perf_counter())))


LOOPS = {"html": _html_loop, "api": _api_loop}


def submit_next(*, project: Project, annotators: list, flow: str, seconds: float, think: float = 0.0) -> dict:
    loop = LOOPS[flow]
    barrier = threading.Barrier(len(annotators))

    def work(i: int) -> list[float]:
        user = annotators[i]
        try:
            client = Client()
            client.force_login(user)
            barrier.wait()
            deadline = time.perf_counter() + seconds
            return loop(client, project, Random(i), deadline, think)
        except Stop:
            return []
        finally:
            connection.close()

    return run_annotators(work, len(annotators), think=think, what="submit+next")
