"""Real Chromium (Debian's package) driven by Playwright against pytest-django's live server."""

from __future__ import annotations

import json
import os
import uuid

import pytest
from playwright.sync_api import sync_playwright

# Playwright's sync API runs an event loop in this thread; the ORM calls our tests make
# between browser steps are still plain synchronous code.
os.environ.setdefault("DJANGO_ALLOW_ASYNC_UNSAFE", "true")

CHROMIUM_ARGS = [
    "--no-sandbox",  # required as root
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]


# Module scope: while sync_playwright is open its event loop counts as running on this thread,
# and tests elsewhere that call asyncio.run() (the judge runner) must not see it.
@pytest.fixture(scope="module")
def browser():
    path = os.environ.get("CHROMIUM_PATH", "/usr/bin/chromium")
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=path, args=CHROMIUM_ARGS, headless=True)
        yield browser
        browser.close()


@pytest.fixture
def page(browser, live_server):
    context = browser.new_context(base_url=live_server.url, viewport={"width": 1400, "height": 1000})
    context.set_default_timeout(15_000)
    page = context.new_page()
    yield page
    context.close()


def log_in(page, username: str, password: str = "pw-for-tests") -> None:
    page.goto("/accounts/login/")
    page.get_by_label("Username").fill(username)
    page.get_by_label("Password").fill(password)
    page.get_by_role("button", name="Log in").click()
    page.wait_for_url(lambda url: "/accounts/login/" not in url)


# --- helpers for the per-kind workflow tests (tests/e2e/test_workflow_*.py) -------------------

HOSTILE_SCRIPT = "<script>window.__pwned=1</script>"
HOSTILE_IMG = '<img src=x onerror="window.__pwned=1">'
HOSTILE_TEMPLATE = "{{ 7*7 }}"


def hostile(field: str) -> str:
    """Hostile text tagged with the field it is put in, so a test can say which field broke."""
    return f"[{field}] {HOSTILE_SCRIPT} {HOSTILE_IMG} {HOSTILE_TEMPLATE}"


def hostile_members(project) -> list:
    """Two annotators (h0, h1) and a reviewer (hrev) for a hostile-content test; the annotators."""
    from annotation.models import Role
    from tests.factories import MembershipFactory

    users = [MembershipFactory(project=project, user__username=f"h{n}").user for n in range(2)]
    MembershipFactory(project=project, role=Role.REVIEWER, user__username="hrev")
    return users


def collect_dialogs(page) -> list[str]:
    """Messages of any alert/confirm the page opens (dismissed): a hostile test wants none."""
    dialogs: list[str] = []
    page.on("dialog", lambda dialog: (dialogs.append(dialog.message), dialog.dismiss()))
    return dialogs


def switch_user(page, username: str) -> None:
    # Leave the page first: a request still in flight would set the old user's cookies again.
    page.goto("about:blank")
    page.context.clear_cookies()
    log_in(page, username)


def focus_page(page) -> None:
    """Click an empty corner so that keys go to the page, not to a field."""
    page.locator("body").click(position={"x": 5, "y": 5})


def open_next(page, slug: str) -> int:
    """Ask the queue for the next item; returns the id of the item the labeling page shows."""
    page.goto(f"/p/{slug}/next/")
    page.wait_for_url("**/items/*/label/")
    return int(page.url.rstrip("/").split("/")[-2])


def wait_saved(page, item_id: int) -> None:
    """After a submit the page moves on to the next item (or the empty queue)."""
    page.wait_for_url(lambda url: f"/items/{item_id}/label/" not in url)
    page.wait_for_load_state("networkidle")


def open_adjudication(page, slug: str, external_id: str) -> None:
    """From the adjudication queue, open the item by its id as listed there."""
    page.goto(f"/p/{slug}/review/")
    page.get_by_role("link", name=external_id, exact=True).first.click()
    page.wait_for_url("**/review/items/*/")


def export_in_browser(
    page, slug: str, *, splits: str = "train=0.5,test=0.5", seed: int = 7
) -> dict[str, str]:
    """A manager starts an export on the page (its default formats) and downloads every JSONL file
    the finished export links to: {file name: text}. Tasks run eagerly in tests (tests/conftest.py)."""
    page.goto(f"/p/{slug}/exports/")
    page.get_by_label("Splits").fill(splits)
    page.get_by_label("Seed").fill(str(seed))
    page.get_by_role("button", name="Export").click()
    page.wait_for_url("**/exports/*/")
    page.locator(".export-status", has_text="Done").wait_for()
    files = {}
    for link in page.locator("table.export-files a").all():
        name = link.inner_text()
        if name.endswith(".jsonl"):
            response = page.request.get(link.get_attribute("href"))
            assert response.ok, f"{name}: {response.status}"
            files[name] = response.text()
    return files


def exported_records(files: dict[str, str], fmt: str) -> dict[str, list[dict]]:
    """The records of one format (`<split>.<fmt>.jsonl`) over all splits, by record id."""
    found: dict[str, list[dict]] = {}
    for name, text in files.items():
        if name.split(".")[1:] != [fmt, "jsonl"]:
            continue
        for line in text.splitlines():
            if line.strip():
                record = json.loads(line)
                found.setdefault(str(record.get("id")), []).append(record)
    return found


def assert_hostile_shown_as_text(page, fields: list[str], dialogs: list[str]) -> None:
    """Every field's hostile text is on the page as text (raw, or JSON-escaped where the page shows
    JSON), unchanged wherever it shows (no `49` from `{{ 7*7 }}`, no tag stripped); nothing ran."""
    page.wait_for_load_state("networkidle")
    # Open every collapsed block so nothing hides the text.
    page.evaluate("document.querySelectorAll('details').forEach(d => { d.open = true; })")
    body = page.locator("body").inner_text()
    for field in fields:
        marker = hostile(field)
        forms = {marker, json.dumps(marker)[1:-1]}
        shown = sum(body.count(form) for form in forms)
        assert shown, f"{field}: its text is not shown on {page.url}"
        assert body.count(f"[{field}] ") == shown, f"{field}: shown altered somewhere on {page.url}"
    assert page.evaluate("typeof window.__pwned") == "undefined", page.url
    assert page.locator("img[onerror]").count() == 0, page.url
    assert page.locator("img[src='x']").count() == 0, page.url
    assert dialogs == [], page.url


def submit_label(item, user, label: dict, **kwargs) -> None:
    """A label given outside the browser (through the same services as the page)."""
    from annotation.services.annotations import annotation_submit
    from annotation.services.queue import item_assign

    assignment = item_assign(project=item.project, annotator=user)
    assert assignment is not None and assignment.item_id == item.pk, "the queue gave another item"
    annotation_submit(item=item, annotator=user, label=label, client_id=uuid.uuid4(), **kwargs)


def take_label_of(page, username: str) -> None:
    """On a kind's adjudication page: press the number of `username`'s column to start the settled
    label from their label (the page reloads with ?take=N)."""
    n = page.locator("th[data-annotator]", has_text=username).first.get_attribute("data-annotator")
    focus_page(page)
    page.keyboard.press(n)
    page.wait_for_url(lambda url: f"take={n}" in url)
    page.wait_for_load_state("networkidle")
