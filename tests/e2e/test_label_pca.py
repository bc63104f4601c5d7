"""An annotator labels a P/C/A item with the keyboard alone, in real Chromium."""

from __future__ import annotations

import pytest

from annotation.models import Annotation, Assignment, AssignmentStatus
from tests.annotation.import_helpers import fixture_lines, run, write_jsonl
from tests.e2e.conftest import log_in
from tests.factories import MembershipFactory, ProjectFactory
from tests.fixtures_path import SHARED_FIXTURES

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]


def test_annotator_labels_a_pca_item_with_keyboard(page):
    project = ProjectFactory(slug="pca", name="PCA", kind="pca", overlap=2)
    assert run(project, SHARED_FIXTURES / "pca.jsonl", media_dir=SHARED_FIXTURES / "media").ok
    user = MembershipFactory(project=project, user__username="ann").user
    log_in(page, "ann")

    page.goto(f"/p/{project.slug}/next/")
    page.wait_for_url("**/label/")
    labeled_url = page.url
    assert page.locator("img[src*='/media/']").count() == 1
    assert page.locator(".pca-rubric").is_visible()
    page.locator("body").click(position={"x": 5, "y": 5})  # focus the page, not a field
    page.keyboard.press("q")  # P = 1
    page.keyboard.press("s")  # C = 0
    page.keyboard.press("z")  # A = 1 (confirms or overrides the pre-filled value)
    page.get_by_placeholder("one line: what in the answer shows it").nth(1).fill("reason skips the sign")
    page.keyboard.press("Control+Enter")
    page.wait_for_url(lambda url: url != labeled_url)
    page.get_by_text("Label saved. Here is the next item.").wait_for()

    annotation = Annotation.objects.get(annotator=user)
    assert annotation.label["perception"] == 1
    assert annotation.label["cognition"] == 0
    assert annotation.label["action"] == 1
    assert annotation.label["evidence"]["cognition"] == "reason skips the sign"
    assert page.url.endswith("/label/") and f"/items/{annotation.item_id}/" not in page.url


def test_hostile_content_renders_as_text_in_the_browser(page, tmp_path):
    project = ProjectFactory(slug="pca-hostile", kind="pca", overlap=1)
    line = fixture_lines("pca.jsonl")[0]
    hostile = "<img src=x onerror=alert(1)><script>alert(2)</script>"
    line["instance"] |= {
        "question": f"Q {hostile}",
        "reason": f"R {hostile}",
        "candidates": ["Keep driving", hostile],
    }
    line["output"] = {"model": hostile, "text": f"I see clear road {hostile}. Final action: Keep driving"}
    assert run(project, write_jsonl(tmp_path / "pca.jsonl", [line]), media_dir=SHARED_FIXTURES / "media").ok
    MembershipFactory(project=project, user__username="ann2")
    dialogs = []
    page.on("dialog", lambda dialog: (dialogs.append(dialog.message), dialog.dismiss()))
    log_in(page, "ann2")
    page.goto(f"/p/{project.slug}/next/")
    page.wait_for_url("**/label/")
    assert page.get_by_text(f"Q {hostile}").is_visible()
    assert page.locator(".pca-answer mark.concept").first.inner_text() == "clear road"
    assert page.locator(".pca-page script").count() == 0 and page.locator("img[src='x']").count() == 0
    assert dialogs == []


def test_k_skips_with_a_reason(page):
    project = ProjectFactory(slug="pca-skip", kind="pca", overlap=1)
    assert run(project, SHARED_FIXTURES / "pca.jsonl", media_dir=SHARED_FIXTURES / "media").ok
    user = MembershipFactory(project=project, user__username="ann3").user
    page.on("dialog", lambda dialog: dialog.accept("image does not load"))
    log_in(page, "ann3")
    page.goto(f"/p/{project.slug}/next/")
    page.wait_for_url("**/label/")
    skipped_url = page.url
    page.locator("body").click(position={"x": 5, "y": 5})
    page.keyboard.press("k")
    page.wait_for_url(lambda url: url != skipped_url and url.endswith("/label/"))
    skipped = Assignment.objects.get(annotator=user, status=AssignmentStatus.SKIPPED)
    assert skipped.skip_reason == "image does not load"
    assert not Annotation.objects.filter(annotator=user).exists()
