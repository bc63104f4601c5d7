"""The query refinement page (Agent-X) through the Django test client: import → queue → page →
pick / edit / reject → lifecycle, blinding, staff view, escaping."""

from __future__ import annotations

import re
import uuid
from pathlib import Path

import pytest
from django.utils.html import escape

from annotation.labels import LabelError, validate_label
from annotation.models import Annotation, Item, ItemState, Role
from annotation.rendering.query import query_order, query_summary
from tests.annotation.import_helpers import run, write_jsonl
from tests.annotation.labeling_helpers import login, take, url
from tests.factories import ProjectFactory
from tests.fixtures_path import SHARED_FIXTURES

pytestmark = pytest.mark.django_db

HOSTILE = "<script>alert('x')</script>"
FIXTURE = Path(__file__).resolve().parent.parent / "fixtures" / "queries.jsonl"


@pytest.fixture
def project():
    project = ProjectFactory(kind="query", overlap=2)
    report = run(project, FIXTURE)
    assert report.ok, report.errors
    return project


def one_item_project(tmp_path, overlap=2, **fields):
    record = {
        "kind": "query",
        "id": "q-one",
        "media": ["media/ax-0000.1.png"],
        "environment": "outdoor",
        "candidates": ["How many cars are parked?", "Which car is red?", "Is it day?"],
    } | fields
    project = ProjectFactory(kind="query", overlap=overlap)
    report = run(project, write_jsonl(tmp_path / "q.jsonl", [record]), media_dir=SHARED_FIXTURES / "media")
    assert report.ok, report.errors
    return project


def shown(html: str) -> list[int]:
    """Candidate indexes in the order the page shows them, checking the numbering 1..n."""
    pairs = re.findall(r'data-candidate="(\d+)" data-index="(\d+)"', html)
    assert [int(n) for n, _ in pairs] == list(range(1, len(pairs) + 1))
    return [int(i) for _, i in pairs]


def boxes(item: Item, order: list[str], edits: dict[int, str] | None = None) -> list[str]:
    """The edit boxes as the page posts them: one per candidate, in display order."""
    texts = item.payload["candidates"]
    return [(edits or {}).get(int(i), texts[int(i)]) for i in order]


def post(client, item, user, headers=None, edits=None, **fields):
    order = query_order(item=item, annotator_id=user.pk)
    data = {"client_id": str(uuid.uuid4()), "query": boxes(item, order, edits)} | fields
    return client.post(url("label_item", item.project, item.pk), data, **(headers or {}))


# --- the page -------------------------------------------------------------------------------


def test_page_shows_visuals_environment_tools_and_numbered_candidates(client):
    project = ProjectFactory(kind="query", overlap=1)
    assert run(project, FIXTURE).ok
    user = login(client, project)
    seen = set()
    for _ in range(Item.objects.filter(project=project).count()):
        item = take(client, project).item
        seen.add(item.external_id)
        html = client.get(url("label_item", project, item.pk)).content.decode()
        for path in item.task.media:  # several images side by side
            assert f'<img src="/p/{project.slug}/media/{path}"' in html
        assert item.task.environment in html
        assert shown(html) == [int(i) for i in query_order(item=item, annotator_id=user.pk)]
        for text in item.payload["candidates"]:
            assert escape(text) in html
        has_tools = "ObjectCounter" in html and "Counts objects of a category" in html
        assert has_tools == (item.task.tool_env is not None)
        assert post(client, item, user, decision="reject", reject_reason="ambiguous").status_code == 302
    assert {"q-0001", "q-0002"} <= seen  # tools; two images


def test_page_has_the_stable_hooks_and_works_as_a_plain_form(client, project):
    login(client, project)
    item = take(client, project).item
    html = client.get(url("label_item", project, item.pk)).content.decode()
    n = len(item.payload["candidates"])
    assert '<form id="label-form"' in html and 'method="post"' in html
    assert html.count('name="decision"') == 3 and html.count('name="chosen"') == n
    assert html.count('<textarea name="query"') == n and html.count('name="reject_reason"') == 3
    assert 'id="save"' in html and "js/query.js" in html and "<kbd>e</kbd> edit" in html
    for text in item.payload["candidates"]:  # each edit box starts as its candidate
        assert 'aria-label="Edited text of candidate' in html and f">{escape(text)}</textarea>" in html


def test_video_gets_a_player(client, tmp_path):
    media = tmp_path / "media"
    media.mkdir()
    (media / "clip.mp4").write_bytes(b"\x00\x00\x00\x18ftypmp42")
    project = ProjectFactory(kind="query", overlap=1)
    record = {"kind": "query", "id": "v", "media": ["media/clip.mp4"], "candidates": ["What moves?", "Who?"]}
    assert run(project, write_jsonl(tmp_path / "v.jsonl", [record])).ok
    login(client, project)
    item = take(client, project).item
    html = client.get(url("label_item", project, item.pk)).content.decode()
    assert f'<video controls preload="none" src="/p/{project.slug}/media/media/clip.mp4">' in html


# --- order --------------------------------------------------------------------------------


def test_order_is_per_annotator_stable_and_recorded(client, project):
    item = Item(pk=11, payload={"candidates": ["a", "b", "c", "d"]})
    assert len({tuple(query_order(item=item, annotator_id=a)) for a in range(1, 10)}) > 1
    assert query_order(item=item, annotator_id=None) == ["0", "1", "2", "3"]
    user = login(client, project)
    item = take(client, project).item
    first = shown(client.get(url("label_item", project, item.pk)).content.decode())
    again = shown(client.get(url("label_item", project, item.pk)).content.decode())
    order = query_order(item=item, annotator_id=user.pk)
    assert first == again == [int(i) for i in order]
    assert post(client, item, user, decision="pick", chosen="0").status_code == 302
    saved = Annotation.objects.get(item=item, annotator=user)
    assert saved.display_order == order and sorted(saved.display_order) == sorted(map(str, range(len(order))))
    assert shown(client.get(url("label_item", project, item.pk)).content.decode()) == first


def test_saved_order_wins_over_the_computed_one(project):
    item = Item.objects.filter(project=project).first()
    n = len(item.payload["candidates"])
    saved = [str(i) for i in reversed(range(n))]
    assert query_order(item=item, annotator_id=3, saved=saved) == saved
    assert query_order(item=item, annotator_id=3, saved=["0"]) == query_order(item=item, annotator_id=3)


# --- labels ---------------------------------------------------------------------------------


def test_pick_stores_the_canonical_index_and_the_candidate_text(client, project):
    user = login(client, project)
    item = take(client, project).item
    response = post(client, item, user, decision="pick", chosen="2", flagged="on")
    assert response.status_code == 302
    saved = Annotation.objects.get(item=item, annotator=user)
    assert saved.label == {"decision": "pick", "chosen": 2, "query": item.payload["candidates"][2]}
    assert saved.flagged


def test_edit_stores_the_edited_text_of_the_chosen_candidate(client, project):
    user = login(client, project)
    item = take(client, project).item
    edits = {1: "  How many cars are parked on the left, counting the van?  ", 0: "stray edit"}
    response = post(client, item, user, edits=edits, decision="edit", chosen="1", note="tool name removed")
    assert response.status_code == 302
    saved = Annotation.objects.get(item=item, annotator=user)
    assert saved.label == {
        "decision": "edit",
        "chosen": 1,
        "query": "How many cars are parked on the left, counting the van?",
        "note": "tool name removed",
    }


def test_reject_needs_a_reason(client, project):
    user = login(client, project)
    item = take(client, project).item
    response = post(client, item, user, decision="reject", note="all yes/no")
    html = response.content.decode()
    assert response.status_code == 400 and "Nothing was saved" in html and "Say why" in html
    assert ">all yes/no</textarea>" in html  # what was typed comes back
    assert not Annotation.objects.filter(item=item).exists()
    response = post(client, item, user, decision="reject", reject_reason="trivially_answerable", chosen="1")
    assert response.status_code == 302
    saved = Annotation.objects.get(item=item, annotator=user)
    assert saved.label == {"decision": "reject", "reject_reason": "trivially_answerable"}


@pytest.mark.parametrize(
    ("fields", "edits", "message"),
    [
        ({"decision": "pick", "chosen": "9"}, None, "not one of the candidates"),
        ({"decision": "pick", "chosen": "-1"}, None, "not one of the candidates"),
        ({"decision": "pick", "chosen": "one"}, None, "not one of the candidates"),
        ({"decision": "pick"}, None, "Choose the candidate to pick"),
        ({"chosen": "0"}, None, "Pick a candidate as is, edit one, or reject"),
        ({"decision": "maybe", "chosen": "0"}, None, "Pick a candidate as is, edit one, or reject"),
        ({"decision": "reject", "reject_reason": "boring"}, None, "Say why"),
        ({"decision": "edit", "chosen": "0"}, None, "unchanged"),
        ({"decision": "edit", "chosen": "0"}, {0: "   "}, "Write the edited query"),
        ({"decision": "edit", "chosen": "0"}, {0: "x" * 4001}, "Keep the query to 4000"),
        ({"decision": "pick", "chosen": "0"}, {0: "my better wording"}, "choose Edit to keep your wording"),
        ({"decision": "pick", "chosen": "0", "note": "n" * 1001}, None, "Keep the note to 1000"),
        ({"decision": "pick", "chosen": "0", "client_id": "nope"}, None, "lost its submission id"),
    ],
)
def test_bad_labels_change_nothing(client, project, fields, edits, message):
    user = login(client, project)
    item = take(client, project).item
    response = post(client, item, user, edits=edits, **fields)
    html = response.content.decode()
    assert response.status_code == 400 and "Nothing was saved" in html
    assert message in html
    assert not Annotation.objects.filter(item=item).exists()


def test_the_label_schema_refuses_a_candidate_out_of_range(project):
    item = Item.objects.filter(project=project, external_id="q-0004").get()  # two candidates
    ok = {"decision": "pick", "chosen": 1, "query": "q"}
    assert validate_label(project=project, item=item, label=ok) == ok
    for bad in (
        {"decision": "pick", "chosen": 2, "query": "q"},
        {"decision": "edit", "chosen": 0},
        {"decision": "reject"},
        {"decision": "reject", "reject_reason": "boring"},
    ):
        with pytest.raises(LabelError):
            validate_label(project=project, item=item, label=bad)


def test_a_repeated_submit_is_stored_once(client, project):
    user = login(client, project)
    item = take(client, project).item
    client_id = str(uuid.uuid4())
    for _ in range(2):
        response = post(client, item, user, decision="pick", chosen="0", client_id=client_id)
        assert response.status_code == 302
    assert Annotation.objects.filter(item=item, annotator=user).count() == 1


def test_edit_of_ones_own_label_uses_the_version(client, project):
    user = login(client, project)
    item = take(client, project).item
    assert post(client, item, user, decision="pick", chosen="0").status_code == 302
    saved = Annotation.objects.get(item=item, annotator=user)
    html = client.get(url("label_item", project, item.pk)).content.decode()
    assert "Edit your label" in html and f'name="version" value="{saved.version}"' in html
    assert 'name="decision" value="pick" required checked' in html
    # A second fresh label without the version is refused; the saved one is shown to edit.
    assert post(client, item, user, decision="pick", chosen="1").status_code == 409
    edits = {1: "Which car, if any, is red?"}
    response = post(client, item, user, edits=edits, decision="edit", chosen="1", version=str(saved.version))
    assert response.status_code == 302
    saved.refresh_from_db()
    assert saved.label == {"decision": "edit", "chosen": 1, "query": "Which car, if any, is red?"}
    html = client.get(url("label_item", project, item.pk)).content.decode()
    assert ">Which car, if any, is red?</textarea>" in html
    assert re.search(r'<details class="query-edit"[^>]* open>', html)  # the edited one is open
    # Back to picking candidate 2 as is: its box still holds the saved wording, which is fine.
    version = Annotation.objects.get(pk=saved.pk).version
    response = post(client, item, user, edits=edits, decision="pick", chosen="1", version=str(version))
    assert response.status_code == 302
    saved.refresh_from_db()
    assert saved.label == {"decision": "pick", "chosen": 1, "query": item.payload["candidates"][1]}
    # A stale version (someone saved in between, e.g. another tab) is a conflict, nothing changes.
    response = post(client, item, user, decision="pick", chosen="0", version=str(saved.version - 1))
    assert response.status_code == 409
    saved.refresh_from_db()
    assert saved.label["chosen"] == 1


def test_htmx_errors_swap_the_form(client, project):
    user = login(client, project)
    item = take(client, project).item
    response = post(client, item, user, headers={"headers": {"HX-Request": "true"}}, decision="reject")
    html = response.content.decode()
    assert response.status_code == 200 and html.lstrip().startswith('<form id="label-form"')
    assert response["HX-Retarget"] == "#label-form" and "Nothing was saved" in html


# --- lifecycle, blinding, staff ----------------------------------------------------------------


def _two_labels(client, tmp_path, first: dict, second: dict):
    project = one_item_project(tmp_path)
    users = []
    for fields in (first, second):
        users.append(login(client, project))
        item = take(client, project).item
        assert post(client, item, users[-1], **fields).status_code == 302
    item.refresh_from_db()
    return project, item, users


def test_agreement_on_the_candidate_verifies_even_with_different_wording(client, tmp_path):
    _, item, _ = _two_labels(
        client,
        tmp_path,
        {"decision": "pick", "chosen": "0"},
        {"decision": "edit", "chosen": "0", "edits": {0: "How many cars are parked on the street?"}},
    )
    assert item.state == ItemState.VERIFIED and item.settled_label["chosen"] == 0


def test_disagreement_goes_to_adjudication(client, tmp_path):
    _, item, _ = _two_labels(
        client,
        tmp_path,
        {"decision": "pick", "chosen": "0"},
        {"decision": "reject", "reject_reason": "ambiguous"},
    )
    assert item.state == ItemState.ADJUDICATION


def test_annotators_never_see_other_labels_or_the_source(client, tmp_path):
    project = one_item_project(tmp_path, overlap=2, source={"model": "proposer-secret"})
    first = login(client, project)
    item = take(client, project).item
    secret = "Which red car is parked closest to the camera?"
    assert (
        post(client, item, first, edits={1: secret}, decision="edit", chosen="1", note="note-x").status_code
        == 302
    )
    login(client, project)
    take(client, project)
    html = client.get(url("label_item", project, item.pk)).content.decode()
    assert secret not in html and "note-x" not in html and "proposer-secret" not in html
    assert 'id="label-form"' in html and "Your label" in html
    assert "You have not labeled anything" in client.get(url("my_labels", project)).content.decode()


def test_annotator_cannot_open_an_item_not_assigned(client, project):
    user = login(client, project)
    item = take(client, project).item
    other = Item.objects.filter(project=project).exclude(pk=item.pk).first()
    assert client.get(url("label_item", project, other.pk)).status_code == 404
    assert post(client, other, user, decision="pick", chosen="0").status_code == 404


@pytest.mark.parametrize("role", [Role.REVIEWER, Role.MANAGER])
def test_staff_see_everyone_read_only_in_record_order(client, tmp_path, role):
    project, item, users = _two_labels(
        client,
        tmp_path,
        {"decision": "edit", "chosen": "2", "edits": {2: "Is it day or night?"}, "note": "too short"},
        {"decision": "reject", "reject_reason": "trivially_answerable", "note": "all trivial"},
    )
    Item.objects.filter(pk=item.pk).update(payload=item.payload | {"source": {"model": "proposer-v9"}})
    staff = login(client, project, role)
    html = client.get(url("label_item", project, item.pk)).content.decode()
    assert "Read-only view" in html and 'id="label-form"' not in html and 'name="decision"' not in html
    assert shown(html) == [0, 1, 2]
    assert f"<strong>{users[0].username}</strong>: edit 3" in html and "Is it day or night?" in html
    assert f"<strong>{users[1].username}</strong>: reject: trivially_answerable" in html
    assert "all trivial" in html and "proposer-v9" in html and "Adjudicate" in html
    response = post(client, item, staff, decision="pick", chosen="0")
    assert response.status_code == 403
    assert Annotation.objects.filter(item=item).count() == 2


def test_labels_list_shows_the_decision_as_each_viewer_numbers_candidates(client, project):
    user = login(client, project)
    item = take(client, project).item
    assert post(client, item, user, decision="pick", chosen="1").status_code == 302
    order = query_order(item=item, annotator_id=user.pk)
    html = client.get(url("my_labels", project)).content.decode()
    assert f"<td>pick {order.index('1') + 1}" in html
    login(client, project, Role.MANAGER)
    assert "<td>pick 2" in client.get(url("my_labels", project)).content.decode()
    assert query_summary({"decision": "reject", "reject_reason": "ambiguous"}) == "reject: ambiguous"


def test_own_label_is_read_only_once_settled(client, tmp_path):
    project, item, users = _two_labels(
        client, tmp_path, {"decision": "pick", "chosen": "1"}, {"decision": "pick", "chosen": "1"}
    )
    assert item.state == ItemState.VERIFIED
    html = client.get(url("label_item", project, item.pk)).content.decode()  # the second annotator
    order = query_order(item=item, annotator_id=users[1].pk)
    assert 'id="label-form"' not in html and f"<strong>pick {order.index('1') + 1}</strong>" in html


# --- escaping -------------------------------------------------------------------------------


def test_hostile_text_renders_as_text(client, tmp_path):
    project = one_item_project(
        tmp_path,
        overlap=2,
        id=f"id-{HOSTILE}",
        environment="<b>env</b>",
        candidates=[f"C0 {HOSTILE}", "C1 <img src=x onerror=alert(1)>", "C2 </textarea><script>x</script>"],
        source={"model": f"m {HOSTILE}"},
        tool_env={"id": "t", "tools": [{"name": f"T {HOSTILE}", "description": "<i>d</i>"}]},
    )
    annotator = login(client, project)
    item = take(client, project).item
    page = client.get(url("label_item", project, item.pk)).content.decode()
    edited = f"E {HOSTILE}"
    assert (
        post(
            client, item, annotator, edits={2: edited}, decision="edit", chosen="2", note=HOSTILE
        ).status_code
        == 302
    )
    edit_page = client.get(url("label_item", project, item.pk)).content.decode()
    login(client, project, Role.MANAGER)
    staff_page = client.get(url("label_item", project, item.pk)).content.decode()
    labels_page = client.get(url("my_labels", project)).content.decode()
    for html in (page, edit_page, staff_page, labels_page):
        assert "<script>alert" not in html and "<img src=x" not in html and "<b>env" not in html
        assert "</textarea><script>" not in html and "<i>d</i>" not in html
    for html in (page, edit_page, staff_page):
        assert "C0 &lt;script&gt;alert(&#x27;x&#x27;)&lt;/script&gt;" in html
        assert "C2 &lt;/textarea&gt;&lt;script&gt;" in html and "&lt;b&gt;env&lt;/b&gt;" in html
    assert "T &lt;script&gt;" in page and "m &lt;script&gt;" in staff_page
    assert "E &lt;script&gt;" in edit_page and "E &lt;script&gt;" in staff_page
