"""The labeling page with long and hostile content: lazy bodies, constant queries, speed,
escaping, and the read-only page of kinds that have no labeling page yet."""

from __future__ import annotations

import time

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from annotation.labels import to_letter
from annotation.models import Item, ItemKind
from tests.annotation.labeling_helpers import member, take, url
from tests.factories import (
    MembershipFactory,
    PairItemFactory,
    ProjectFactory,
    TaskFactory,
    TrajectoryFactory,
    long_messages,
    pair_with_messages,
)

pytestmark = pytest.mark.django_db


@pytest.fixture
def project():
    return ProjectFactory(overlap=2, label_schema={"allow_tie": True})


@pytest.fixture
def annotator_client(client, project):
    client.force_login(member(project))
    return client


# --- long content -----------------------------------------------------------------------


def test_300kb_tool_output_left_out_of_page_and_served_on_demand(annotator_client, project):
    big = "row " * 75_000 + "TAIL-MARKER-300K"
    first = [
        {"role": "assistant", "content": None, "tool_calls": [{"id": "c1", "name": "dump", "arguments": {}}]},
        {"role": "tool", "tool_call_id": "c1", "name": "dump", "content": big},
        {"role": "assistant", "content": "Done."},
    ]
    item = pair_with_messages(project, first, long_messages(2))
    assignment = take(annotator_client, project)
    response = annotator_client.get(url("label_item", project, item.pk))
    html = response.content.decode()
    assert "TAIL-MARKER-300K" not in html and len(html) < 100_000
    letter = to_letter(assignment.display_order, "first")
    body_url = url("message_body", project, item.pk, letter, 1)
    assert f'href="{body_url}"' in html and f'hx-get="{body_url}"' in html
    fragment = annotator_client.get(body_url, headers={"HX-Request": "true"})
    assert fragment.status_code == 200
    text = fragment.content.decode()
    assert text.startswith("<pre") and "TAIL-MARKER-300K" in text and "<html" not in text
    page = annotator_client.get(body_url)  # without JS: a page of its own
    assert "TAIL-MARKER-300K" in page.content.decode() and "<html" in page.content.decode()


def test_message_body_rejects_unknown_parts_and_indexes(annotator_client, project):
    item = PairItemFactory(project=project)
    take(annotator_client, project)
    for part, index in (("first", 0), ("second", 0), ("C", 0), ("A", 99)):
        assert annotator_client.get(url("message_body", project, item.pk, part, index)).status_code == 404
    assert annotator_client.get(url("message_body", project, item.pk, "context", 0)).status_code == 200
    bad_field = url("message_body", project, item.pk, "A", 0) + "?field=source"
    assert annotator_client.get(bad_field).status_code == 404


def test_queries_do_not_grow_with_trajectory_length(client, django_assert_max_num_queries):
    short_project, long_project = ProjectFactory(), ProjectFactory()
    user = member(short_project)
    MembershipFactory(project=long_project, user=user)
    short = pair_with_messages(short_project, long_messages(2), long_messages(2, variant="DL"))
    long = pair_with_messages(long_project, long_messages(64), long_messages(64, variant="DL"))
    client.force_login(user)
    take(client, short_project)
    take(client, long_project)
    counts = []
    for item in (short, long):
        with CaptureQueriesContext(connection) as queries:
            assert client.get(url("label_item", item.project, item.pk)).status_code == 200
        counts.append(len(queries))
    assert counts[0] == counts[1]
    with django_assert_max_num_queries(counts[0]):
        client.get(url("label_item", long_project, long.pk))


def test_64_turn_pair_renders_fast(annotator_client, project):
    item = pair_with_messages(project, long_messages(64), long_messages(64, variant="DL"))
    take(annotator_client, project)
    path = url("label_item", project, item.pk)
    annotator_client.get(path)  # warm template and URL caches
    timings = []
    for _ in range(3):
        start = time.perf_counter()
        response = annotator_client.get(path)
        timings.append(time.perf_counter() - start)
    html = response.content.decode()
    assert response.status_code == 200 and "031</del>" in html and "031</ins>" in html  # the diff ran
    print(f"64-turn page: best of 3 = {min(timings) * 1000:.0f} ms, {len(html)} bytes")
    assert min(timings) < 0.15


# --- other kinds ------------------------------------------------------------------------


def test_kinds_without_a_labeling_page_are_shown_read_only(client):
    """Recordings get their page in a later release; until then: read-only, escaped."""
    project = ProjectFactory(kind=ItemKind.RECORDING)
    user = member(project)
    item = Item.objects.create(
        project=project,
        kind=ItemKind.RECORDING,
        external_id="rec-1",
        task=TaskFactory(project=project, instruction="How many <b>bottles</b>?"),
        payload={"final_answer": {"value": "<script>x()</script>", "justification": "Counted twice."}},
        gold={"reference_answer": "secret-gold-answer"},
        trajectory_first=TrajectoryFactory(
            project=project, source={"type": "natural", "model": "hidden-model"}
        ),
    )
    client.force_login(user)
    take(client, project)
    response = client.get(url("label_item", project, item.pk))
    html = response.content.decode()
    assert response.status_code == 200 and "not available yet" in html
    assert "How many &lt;b&gt;bottles&lt;/b&gt;" in html and "&lt;script&gt;x()&lt;/script&gt;" in html
    assert "<script>x()" not in html and "hidden-model" not in html and "secret-gold-answer" not in html
    assert "Counted twice." in html
    assert client.post(url("label_item", project, item.pk), {"preferred": "A"}).status_code == 400


# --- escaping ---------------------------------------------------------------------------

HOSTILE = '<script>alert(1)</script> <img src=x onerror="alert(2)"> {{ request.user.password }} {% now "Y" %}'


def test_trajectory_content_is_escaped_everywhere(annotator_client, project):
    env_task = TaskFactory(project=project, context=[{"role": "user", "content": "Context: " + HOSTILE}])
    first = [
        {
            "role": "assistant",
            "content": None,
            "reasoning": "think " + HOSTILE,
            "tool_calls": [{"id": "c1", "name": "<b>tool</b>", "arguments": {"q": HOSTILE}}],
        },
        {
            "role": "tool",
            "tool_call_id": "c1",
            "name": "search",
            "content": "out " + HOSTILE,
            "observation": {"url": "javascript:alert(3)", "axtree": "[1] " + HOSTILE},
        },
        {"role": "assistant", "content": "Answer: " + HOSTILE + " in 3 days."},
    ]
    second = [dict(m) for m in first]
    second[2] = {"role": "assistant", "content": "Answer: " + HOSTILE + " in 4 days."}
    item = pair_with_messages(project, first, second, task=env_task)
    take(annotator_client, project)
    html = annotator_client.get(url("label_item", project, item.pk)).content.decode()
    assert "<script>alert" not in html and "<img src=x" not in html and "<b>tool</b>" not in html
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in html
    assert "&lt;img src=x onerror=&quot;alert(2)&quot;&gt;" in html
    assert "{{ request.user.password }}" in html and "{% now &quot;Y&quot; %}" in html
    assert 'href="javascript:' not in html
    # The word diff ran on this pair and still escaped what it wrapped.
    assert "<del>3</del>" in html or "<ins>3</ins>" in html
