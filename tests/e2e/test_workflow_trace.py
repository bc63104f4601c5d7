"""Trace correction end to end in real Chromium: one annotator corrects an Agent-X trace in the
editor (malformed JSON is caught inline first), the other says it is correct as is; a reviewer
takes the correction; the manager's export carries the corrected text in the corrected-trace
(SFT, interchange) and preference files."""

from __future__ import annotations

import json

import pytest

from annotation.models import Annotation, Item, ItemState, Role, Trajectory
from tests.annotation.import_helpers import fixture_lines, run, write_jsonl
from tests.e2e.conftest import (
    assert_hostile_shown_as_text,
    collect_dialogs,
    export_in_browser,
    exported_records,
    focus_page,
    hostile,
    hostile_members,
    open_adjudication,
    open_next,
    submit_label,
    switch_user,
    take_label_of,
    wait_saved,
)
from tests.factories import MembershipFactory, ProjectFactory
from tests.fixtures_path import SHARED_FIXTURES

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]

ORIGINAL_ARGS = "2*25.197"
FIXED_ARGS = '{"expression": "4*25.197"}'
MALFORMED_ARGS = '{"expression": "4*25.197"'
NEW_THOUGHT = "Two bottles on each of the two shelves: four bottles at $25.197."
NEW_ANSWER = "$100.788"
NEW_JUSTIFICATION = "4 bottles times $25.197."
CHECKS = ("tool_choice", "argument_format", "step_order", "output_alignment", "evidence")


def import_traces(project) -> None:
    media = SHARED_FIXTURES / "media"
    assert run(project, SHARED_FIXTURES / "tool_envs.jsonl", media_dir=media).ok
    assert run(project, SHARED_FIXTURES / "traces.jsonl", media_dir=media).ok


def steps_on_page(page) -> int:
    return int(page.locator("#label-page").get_attribute("data-steps"))


def correct_as_is(page, slug: str, username: str) -> int:
    """Log in, open the next trace: verdict 1 (correct as is), `y` on every step, Enter."""
    switch_user(page, username)
    item_id = open_next(page, slug)
    focus_page(page)
    page.keyboard.press("1")
    for _ in range(steps_on_page(page)):
        page.keyboard.press("y")
    assert page.locator('#label-form input[name="verdict"][value="correct"]').is_checked()
    page.keyboard.press("Enter")
    wait_saved(page, item_id)
    return item_id


def correct_in_editor(page, slug: str, username: str) -> int:
    """Log in, open the next trace and correct step 2 in the editor with the keyboard."""
    switch_user(page, username)
    item_id = open_next(page, slug)
    focus_page(page)
    page.keyboard.press("2")  # verdict: corrected; opens the editor
    for _ in range(steps_on_page(page)):
        page.keyboard.press("y")  # all five checks pass, next step (stays on the last)
    page.keyboard.press("7")  # flips the last step's output/answer alignment to fail
    assert page.locator('input[name="check_1_output_alignment"][value="fail"]').is_checked()
    assert page.locator("#trace-editor").get_attribute("data-open") == "1"

    step = page.locator('#trace-editor-mount [data-edit-step="2"]')
    args = step.locator('textarea[data-field="args"]')
    assert ORIGINAL_ARGS in args.input_value()
    save = page.locator("#save")
    # Malformed JSON: shown inline, and the save button is off.
    args.click()
    page.keyboard.press("Control+a")
    page.keyboard.type(MALFORMED_ARGS)
    errors = step.locator(".arg-errors")
    errors.get_by_text("Not valid JSON").wait_for()
    assert save.is_disabled()
    assert "Fix 1 problem" in page.locator("#save-hint").inner_text()
    page.keyboard.press("Control+s")  # refused while the JSON is broken
    page.wait_for_load_state("networkidle")
    assert f"/items/{item_id}/label/" in page.url and save.is_disabled()
    assert not Annotation.objects.filter(item_id=item_id, annotator__username=username).exists()
    # Fixed: the error goes, saving is possible again.
    page.keyboard.press("Control+a")
    page.keyboard.type(FIXED_ARGS)
    errors.wait_for(state="hidden")
    assert save.is_enabled()
    thought = step.locator('textarea[data-field="thought"]')
    thought.click()
    page.keyboard.press("Control+a")
    page.keyboard.type(NEW_THOUGHT)
    page.locator("#final-value-input").click()
    page.keyboard.press("Control+a")
    page.keyboard.type(NEW_ANSWER)
    page.locator("#final-justification-input").click()
    page.keyboard.press("Control+a")
    page.keyboard.type(NEW_JUSTIFICATION)
    page.locator('input[name="edit_reason"][value="malformed_arguments"]').check()
    page.locator('input[name="edit_reason"][value="final_answer"]').check()
    page.keyboard.press("Control+s")
    # A correction is shown back as a diff before moving on.
    diff = page.locator("#trace-diff")
    diff.wait_for()
    assert "4*25.197" in diff.inner_text() and "four bottles" in diff.inner_text()
    page.wait_for_load_state("networkidle")
    return item_id


def test_trace_correction_adjudicated_and_exported(page):
    project = ProjectFactory(slug="trace-flow", name="Trace flow", kind="trace", overlap=2)
    import_traces(project)
    for name, role in (
        ("ann1", Role.ANNOTATOR),
        ("ann2", Role.ANNOTATOR),
        ("rev", Role.REVIEWER),
        ("boss", Role.MANAGER),
    ):
        MembershipFactory(project=project, role=role, user__username=name)
    disputed = Item.objects.get(project=project, external_id="ax-0000")
    agreed = Item.objects.get(project=project, external_id="ax-0002")
    Item.objects.filter(pk=disputed.pk).update(priority=20)
    Item.objects.filter(pk=agreed.pk).update(priority=10)

    assert correct_in_editor(page, project.slug, "ann1") == disputed.pk
    assert correct_as_is(page, project.slug, "ann1") == agreed.pk
    assert correct_as_is(page, project.slug, "ann2") == disputed.pk
    assert correct_as_is(page, project.slug, "ann2") == agreed.pk
    disputed.refresh_from_db()
    agreed.refresh_from_db()
    assert disputed.state == ItemState.ADJUDICATION
    assert agreed.state == ItemState.VERIFIED and agreed.settled_label["verdict"] == "correct"
    corrected = Trajectory.objects.get(parent=disputed.trajectory_first)
    assert corrected.version == 2

    # The reviewer takes ann1's correction; step 2's answer alignment failed in the original.
    switch_user(page, "rev")
    open_adjudication(page, project.slug, disputed.external_id)
    correction = page.locator(".trace-correction")
    assert correction.count() == 1 and "4*25.197" in correction.inner_text()
    page.locator(".trace-board tr[data-row='verdict'][data-differs='true']").wait_for()
    # Start from ann1's label with the keyboard: their correction and their checks.
    take_label_of(page, "ann1")
    assert page.locator(".trace-outcome label[data-annotator] input[name=outcome]").is_checked()
    grid = page.locator(".checks-grid")
    for index in range(2):
        for check in CHECKS:
            value = "fail" if (index, check) == (1, "output_alignment") else "pass"
            select = grid.locator(f'select[form="adjudicate-form"][name="check_{index}_{check}"]')
            assert select.input_value() == value, (index, check)
    page.locator("#adjudicate-form textarea[name=reason]").fill(
        "Both shelves hold two bottles: ann1 is right."
    )
    url = page.url
    page.keyboard.press("Control+Enter")
    page.wait_for_url(lambda u: u != url)
    disputed.refresh_from_db()
    assert disputed.state == ItemState.VERIFIED
    assert disputed.settled_label["verdict"] == "corrected"
    assert disputed.settled_label["corrected_trajectory"] == corrected.pk
    assert disputed.settled_label["checks"][1]["output_alignment"] == "fail"

    # The manager exports: the edited text is in the corrected trace and the preference record.
    switch_user(page, "boss")
    files = export_in_browser(page, project.slug)
    (sft,) = exported_records(files, "sft")[disputed.external_id]
    text = json.dumps(sft["messages"])
    assert NEW_THOUGHT in text and "4*25.197" in text and ORIGINAL_ARGS not in text
    # The closing turn says the corrected answer (and its justification, as the reasoning).
    assert sft["messages"][-1] == {"role": "assistant", "content": f"{NEW_ANSWER}\n{NEW_JUSTIFICATION}"}
    (record,) = exported_records(files, "interchange")[disputed.external_id]
    calls = [c for m in record["trajectory"]["messages"] for c in m.get("tool_calls") or ()]
    assert calls[1]["arguments"] == {"expression": "4*25.197"}
    assert NEW_THOUGHT in [m.get("reasoning") for m in record["trajectory"]["messages"]]
    assert record["final_answer"] == {"value": NEW_ANSWER, "justification": NEW_JUSTIFICATION}
    (pref,) = exported_records(files, "preference")[disputed.external_id]
    chosen, rejected = json.dumps(pref["chosen"]), json.dumps(pref["rejected"])
    assert NEW_THOUGHT in chosen and "4*25.197" in chosen and NEW_ANSWER in chosen
    assert NEW_THOUGHT not in rejected and ORIGINAL_ARGS in rejected
    # Correct as is: the original in SFT, no preference record.
    assert agreed.external_id in exported_records(files, "sft")
    assert agreed.external_id not in exported_records(files, "preference")


def hostile_trace(tmp_path):
    env, line = fixture_lines("traces.jsonl")[:2]
    line["query"] = hostile("query")
    for n, step in enumerate(line["reasoning_steps"]):
        step["task"] = hostile(f"task-{n}")
        step["thought"] = hostile(f"thought-{n}")
        step["tool_output"] = hostile(f"output-{n}")
        step["arguments"] = {
            **step["arguments"],
            "text" if n == 0 else "expression": hostile(f"argument-{n}"),
        }
    line["final_answer"] = {"value": hostile("answer"), "justification": hostile("justification")}
    return write_jsonl(tmp_path / "traces.jsonl", [env, line])


def test_trace_hostile_content_is_text_on_labeling_and_adjudication_pages(page, tmp_path):
    project = ProjectFactory(slug="trace-hostile-flow", kind="trace", overlap=2)
    assert run(project, hostile_trace(tmp_path), media_dir=SHARED_FIXTURES / "media").ok
    users = hostile_members(project)
    fields = [
        "query",
        *[f"{name}-{n}" for name in ("task", "thought", "output", "argument") for n in range(2)],
        "answer",
        "justification",
    ]
    dialogs = collect_dialogs(page)

    switch_user(page, "h0")
    item_id = open_next(page, project.slug)
    assert_hostile_shown_as_text(page, fields, dialogs)
    # The editor holds the same text in its fields, as values.
    thought = page.locator('#trace-editor-mount [data-edit-step="1"] textarea[data-field="thought"]')
    assert thought.input_value() == hostile("thought-0")

    item = Item.objects.get(pk=item_id)
    checks = [{**dict.fromkeys(CHECKS, "pass"), "note": hostile("note")} for _ in range(2)]
    submit_label(item, users[0], {"verdict": "correct", "checks": checks}, rationale=hostile("rationale"))
    submit_label(
        item,
        users[1],
        {
            "verdict": "discard",
            "discard_reason": "other",
            "discard_note": hostile("discard-note"),
            "checks": checks,
        },
    )
    item.refresh_from_db()
    assert item.state == ItemState.ADJUDICATION
    switch_user(page, "hrev")
    open_adjudication(page, project.slug, item.external_id)
    assert_hostile_shown_as_text(page, [*fields, "note", "discard-note", "rationale"], dialogs)
