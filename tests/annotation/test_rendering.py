"""Preparing trajectories for the page: tool calls, long outputs, media, word diffs, escaping."""

from __future__ import annotations

import pytest
from django.http import QueryDict
from django.template import Context, Template

from annotation.rendering import (
    Limits,
    Links,
    apply_pair_diff,
    message_text,
    message_view,
    message_views,
    split_words,
    tool_specs,
    word_diff,
)
from annotation.rendering.label_form import (
    form_from_label,
    parse_pair_form,
    seconds_spent,
    service_errors,
    tag_groups,
)
from annotation.rendering.other import blinded
from tests.factories import long_messages

LIMITS = Limits(collapse=100, lazy=1000)
LINKS = Links(slug="demo", item_id=7)
TAGS = ["constraint_violation", "numeric_error"]


def view(message: dict, **kwargs):
    return message_view(message, index=3, part="B", links=LINKS, limits=LIMITS, **kwargs)


def render(value) -> str:
    """How a template prints a value: autoescaped."""
    return Template("{{ v }}").render(Context({"v": value}))


# --- messages ---------------------------------------------------------------------------


def test_tool_call_arguments_pretty_printed_keeping_unicode():
    m = view(
        {
            "role": "assistant",
            "content": None,
            "tool_calls": [{"id": "c1", "name": "lookup", "arguments": {"name": "éthanol", "n": 2}}],
        }
    )
    (call,) = m.tool_calls
    assert call.name == "lookup" and call.id == "c1"
    assert call.arguments == '{\n  "name": "éthanol",\n  "n": 2\n}'
    assert not call.malformed


def test_malformed_arguments_flagged_and_shown_verbatim():
    m = view(
        {"role": "assistant", "tool_calls": [{"id": "c", "name": "calc", "arguments": {"_raw": "{x: 1,,"}}]}
    )
    (call,) = m.tool_calls
    assert call.malformed and call.arguments == "{x: 1,,"
    assert m.has_malformed


def test_openai_nested_call_with_string_arguments():
    m = view(
        {"role": "assistant", "tool_calls": [{"id": "c", "function": {"name": "f", "arguments": '{"a": 1}'}}]}
    )
    assert (m.tool_calls[0].name, m.tool_calls[0].arguments, m.tool_calls[0].malformed) == (
        "f",
        '{\n  "a": 1\n}',
        False,
    )
    bad = view({"role": "assistant", "tool_calls": [{"name": "f", "arguments": "{a: 1"}]})
    assert bad.tool_calls[0].malformed and bad.tool_calls[0].arguments == "{a: 1"


def test_tool_not_in_registry_flagged():
    m = view(
        {"role": "assistant", "tool_calls": [{"name": "teleport", "arguments": {}}]},
        known_tools=frozenset({"search"}),
    )
    assert m.tool_calls[0].unknown_tool
    assert (
        not view({"role": "assistant", "tool_calls": [{"name": "x", "arguments": {}}]})
        .tool_calls[0]
        .unknown_tool
    )


def test_short_tool_output_shown_json_pretty_printed():
    m = view({"role": "tool", "name": "search", "content": '{"cheapest": 199}'})
    assert m.content.text == '{\n  "cheapest": 199\n}'
    assert m.content.is_json and not m.content.collapsed and not m.content.lazy_url


def test_long_tool_output_collapsed_but_on_the_page():
    m = view({"role": "tool", "content": "x" * 500})
    assert m.content.collapsed and m.content.text == "x" * 500 and not m.content.lazy_url


def test_long_assistant_text_is_not_collapsed():
    m = view({"role": "assistant", "content": "word " * 100})
    assert not m.content.collapsed


def test_huge_output_left_out_with_link_to_message_body():
    big = "start " + "y" * 5000 + " END-MARKER"
    m = view({"role": "tool", "content": big})
    assert m.content.text == "" and m.content.lazy_url == "/p/demo/items/7/message/B/3/"
    assert "END-MARKER" not in m.content.preview and len(m.content.preview) < 500
    assert message_text({"role": "tool", "content": big}, "content") == big


def test_huge_reasoning_and_axtree_lazy_with_field():
    m = view({"role": "tool", "reasoning": "r" * 2000, "observation": {"axtree": "[1] " * 600}})
    assert m.reasoning.lazy_url.endswith("/message/B/3/?field=reasoning")
    assert m.observation.axtree.lazy_url.endswith("/message/B/3/?field=axtree")


def test_observation_screenshots_served_from_project_media():
    m = view(
        {
            "role": "tool",
            "observation": {
                "url": "http://shop.example/",
                "axtree": "[1] button 'Buy'",
                "screenshot": "media/a.png",
                "screenshot_after": "media/b.png",
            },
        }
    )
    obs = m.observation
    assert obs.url == "http://shop.example/" and obs.axtree.text == "[1] button 'Buy'"
    assert [s.url for s in obs.screenshots] == ["/p/demo/media/media/a.png", "/p/demo/media/media/b.png"]


@pytest.mark.parametrize(
    "path", ["../etc/passwd", "/abs.png", "http://evil.example/x.png", "a//b.png", "javascript:x"]
)
def test_unsafe_media_paths_not_linked(path):
    m = view({"role": "user", "content": "see", "media": [path]})
    assert m.media[0].url is None


def test_video_media_detected():
    m = view({"role": "user", "content": "see", "media": ["media/clip.mp4", "media/f.jpg"]})
    assert [md.video for md in m.media] == [True, False]


def test_odd_messages_do_not_crash():
    views = message_views(
        ["just a string", {"role": "critic", "content": [{"type": "text", "text": "hi"}]}],
        part="A",
        links=LINKS,
        limits=LIMITS,
    )
    assert views[0].role_class == "other"
    assert views[1].role_class == "other" and views[1].content.text == "hi"


def test_tool_registry_pretty_printed():
    class Env:
        tools = [
            {
                "name": "search",
                "description": "Find flights.",
                "parameters": {"type": "object", "properties": {"from": {"type": "string"}}},
            }
        ]

    (spec,) = tool_specs(Env())
    assert spec.name == "search" and spec.description == "Find flights."
    assert spec.parameters.startswith('{\n  "type": "object"')


# --- word diff --------------------------------------------------------------------------


def test_split_words_keeps_whitespace():
    w = split_words("  a  b\nc ")
    assert (w.lead, w.words, w.spaces) == ("  ", ["a", "b", "c"], ["  ", "\n", " "])


def test_word_diff_marks_changed_words_each_side():
    d = word_diff("book the $199 flight now", "book the $450 flight now")
    assert str(d.a) == "book the <del>$199</del> flight now"
    assert str(d.b) == "book the <ins>$450</ins> flight now"
    assert d.ratio == pytest.approx(0.8)


def test_word_diff_escapes_every_token():
    d = word_diff("<b>bold</b> <script>x()</script>", "<b>bold</b> <img src=x onerror=alert(1)>")
    for html in (str(d.a), str(d.b)):
        assert "<script>" not in html and "<img" not in html and "<b>" not in html
    assert "&lt;script&gt;x()&lt;/script&gt;" in str(d.a)
    assert "<ins>&lt;img src=x onerror=alert(1)&gt;</ins>" in str(d.b)
    # The markup is safe to print as is, and printing does not escape it twice.
    assert render(d.b) == str(d.b)


def _views(messages):
    return message_views(messages, part="A", links=LINKS, limits=Limits(collapse=1200, lazy=20000))


def test_minimal_edit_pair_highlighted():
    a, b = _views(long_messages(8)), _views(long_messages(8, variant="DL"))
    similarity = apply_pair_diff(a, b)
    assert similarity > 0.9
    assert "<del>UA000</del>" in str(a[2].content_diff) and "<ins>DL000</ins>" in str(b[2].content_diff)
    # Identical messages are not marked.
    assert a[1].content_diff is None and b[1].content_diff is None


def test_tool_arguments_diffed_too():
    first = [
        {"role": "assistant", "tool_calls": [{"name": "book", "arguments": {"flight": "UA1", "seats": 2}}]},
        {"role": "assistant", "content": "Booked flight UA1 for two people, total 398 USD, confirmed."},
    ]
    second = [
        {"role": "assistant", "tool_calls": [{"name": "book", "arguments": {"flight": "UA1", "seats": 3}}]},
        {"role": "assistant", "content": "Booked flight UA1 for two people, total 398 USD, confirmed."},
    ]
    a, b = _views(first), _views(second)
    apply_pair_diff(a, b)
    assert "<del>2</del>" in str(a[0].tool_calls[0].diff) and "<ins>3</ins>" in str(b[0].tool_calls[0].diff)


def test_unrelated_pair_not_highlighted():
    a = _views([{"role": "assistant", "content": "I refuse to help with that request, sorry."}])
    b = _views([{"role": "assistant", "content": "Here are the flights: UA1 at 199, DL2 at 250 and AA3."}])
    assert apply_pair_diff(a, b) <= 0.6
    assert a[0].content_diff is None and b[0].content_diff is None


def test_diff_aligns_messages_when_one_side_has_an_extra_turn():
    base = long_messages(4)
    edited = [dict(m) for m in base]
    edited[5] = {"role": "assistant", "content": base[5]["content"].replace("199 USD", "250 USD")}
    retry = {"role": "tool", "content": "Error 503 " * 300}  # a long extra turn only B has
    b_messages = edited[:3] + [retry] + edited[3:]
    a, b = _views(base), _views(b_messages)
    assert apply_pair_diff(a, b) > 0.9
    # The edited reply is paired with its original; the extra turn and identical ones are unmarked.
    assert "<del>199</del>" in str(a[5].content_diff) and "<ins>250</ins>" in str(b[6].content_diff)
    assert b[3].content_diff is None and a[2].content_diff is None


# --- label form -------------------------------------------------------------------------


def qd(**fields) -> QueryDict:
    q = QueryDict(mutable=True)
    for key, value in fields.items():
        q.setlist(key, value if isinstance(value, list) else [value])
    return q


CLIENT = "2f6f1c36-4a4e-4c7a-9a37-1b8f3f5b9d10"


def test_form_maps_letters_to_canonical_sides():
    form = parse_pair_form(
        qd(
            preferred="A",
            tags_A=["numeric_error"],
            tags_B=[],
            confidence="4",
            rationale=" why ",
            client_id=CLIENT,
        ),
        allowed_tags=TAGS,
        allow_tie=True,
        editing=False,
    )
    assert form.valid
    assert form.label(["second", "first"]) == {
        "preferred": "second",
        "tags": {"second": ["numeric_error"], "first": []},
        "confidence": 4,
    }
    assert form.label(["first", "second"])["preferred"] == "first"


def test_form_tie_refused_when_not_allowed():
    form = parse_pair_form(
        qd(preferred="tie", client_id=CLIENT), allowed_tags=TAGS, allow_tie=False, editing=False
    )
    assert form.errors["preferred"] == "This project does not allow ties: choose A or B."


def test_form_unknown_tag_named_with_its_letter():
    form = parse_pair_form(
        qd(preferred="B", tags_B=["made_up", "numeric_error"], client_id=CLIENT),
        allowed_tags=TAGS,
        allow_tie=True,
        editing=False,
    )
    assert "Unknown critical tag for B: made_up" in form.errors["tags_B"]
    assert "first" not in form.errors["tags_B"] and "second" not in form.errors["tags_B"]


@pytest.mark.parametrize(
    "fields,error",
    [
        ({}, "preferred"),
        ({"preferred": "first"}, "preferred"),
        ({"preferred": "A", "confidence": "9"}, "confidence"),
        ({"preferred": "A", "confidence": "high"}, "confidence"),
    ],
)
def test_form_field_errors(fields, error):
    form = parse_pair_form(qd(client_id=CLIENT, **fields), allowed_tags=TAGS, allow_tie=True, editing=False)
    assert error in form.errors


def test_form_needs_client_id_to_submit_and_version_to_edit():
    assert (
        "client_id"
        in parse_pair_form(qd(preferred="A"), allowed_tags=TAGS, allow_tie=True, editing=False).errors
    )
    assert (
        "version"
        in parse_pair_form(qd(preferred="A"), allowed_tags=TAGS, allow_tie=True, editing=True).errors
    )


def test_saved_label_shown_back_in_the_annotators_letters():
    label = {"preferred": "second", "tags": {"first": [], "second": ["numeric_error"]}, "confidence": 2}
    form = form_from_label(label, ["second", "first"], rationale="r", flagged=True, version=3)
    assert (form.preferred, form.tags, form.confidence, form.version) == (
        "A",
        {"A": ["numeric_error"], "B": []},
        2,
        3,
    )
    groups = tag_groups(form, TAGS)
    assert [c["checked"] for c in groups[0]["choices"]] == [False, True]


def test_service_errors_translated_to_letters():
    errors = service_errors({"tags.first": "Unknown tag(s) for this project: x"}, ["second", "first"])
    assert errors == {"tags_B": "Unknown tag(s) for this project: x"}


def test_seconds_from_page_stamps_else_lease():
    from datetime import timedelta

    from django.utils import timezone

    assert seconds_spent(qd(page_loaded_at="1000000", submitted_at="1042400"), leased_at=None) == 42
    leased = timezone.now() - timedelta(seconds=90)
    assert 89 <= seconds_spent(qd(), leased_at=leased) <= 92
    assert 89 <= seconds_spent(qd(page_loaded_at="5", submitted_at="1"), leased_at=leased) <= 92


def test_blinded_payload_drops_answers_and_sources():
    payload = {
        "candidates": [{"id": "c0", "reference": True, "source": {"model": "m"}, "thought": "t"}],
        "reference_answer": "42",
        "checklist": [{"title": "x"}],
    }
    assert blinded(payload) == {"candidates": [{"id": "c0", "thought": "t"}], "checklist": [{"title": "x"}]}
