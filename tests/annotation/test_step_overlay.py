"""Element ids over the step screenshot: boxes from observation["elements"] are placed in percent
of the screenshot, carry the element id that its accessibility-tree line carries, and every
name is shown as text."""

from __future__ import annotations

import re

import pytest

from annotation.rendering.step.elements import ax_lines, element_boxes
from tests.annotation.import_helpers import fixture_lines
from tests.annotation.labeling_helpers import login, take, url
from tests.annotation.test_step_checklists import one_step_project

pytestmark = pytest.mark.django_db

HOSTILE = "<img src=x onerror=alert(1)>"


def page_with(client, tmp_path, **observation):
    """The annotator's page for the first fixture step, its current observation extended."""
    line = fixture_lines("steps.jsonl")[0]
    line["prefix"][-1]["observation"].update(observation)
    project = one_step_project(tmp_path, lines=[line])
    login(client, project)
    item = take(client, project).item
    return client.get(url("label_item", project, item.pk)).content.decode()


def boxes(html):
    return re.findall(r'<span class="el-box[^"]*" data-bid="([^"]*)" data-bbox="([^"]*)"([^>]*)>', html)


def test_boxes_are_placed_in_percent_of_the_stated_screenshot_size(client, tmp_path):
    html = page_with(
        client,
        tmp_path,
        screenshot_size=[640, 480],
        elements=[
            {"id": "20", "bbox": [64, 48, 128, 96], "role": "searchbox", "name": "Search products"},
            {"id": 31, "bbox": [0, 240, 320, 24], "role": "link", "name": "Ridge 2P Tent"},
        ],
    )
    found = boxes(html)
    assert [(bid, bbox) for bid, bbox, _ in found] == [("20", "64 48 128 96"), ("31", "0 240 320 24")]
    assert 'style="left:10.000%;top:10.000%;width:20.000%;height:20.000%"' in found[0][2]
    assert 'style="left:0.000%;top:50.000%;width:50.000%;height:5.000%"' in found[1][2]
    assert 'title="[20] searchbox Search products"' in found[0][2]
    # The tree line of element 20 carries the same id, so box and line find each other.
    assert '<span class="ax-line" data-bid="20">  [20] searchbox \'Search products\'' in html.replace(
        "&#x27;", "'"
    )
    assert 'id="obs-shot" data-overlay="on"' in html and "<kbd>o</kbd> hides or shows them" in html


def test_without_a_stated_size_the_png_header_gives_it(client, tmp_path):
    # media/shop-000.png is 64 x 48 pixels.
    html = page_with(client, tmp_path, elements=[{"id": "12", "bbox": [32, 12, 16, 24]}])
    ((bid, _, attrs),) = boxes(html)
    assert bid == "12" and 'style="left:50.000%;top:25.000%;width:25.000%;height:50.000%"' in attrs


def test_names_are_escaped_and_bad_boxes_left_out(client, tmp_path):
    html = page_with(
        client,
        tmp_path,
        screenshot_size={"width": 100, "height": 100},
        elements=[
            {"id": "1", "bbox": [1, 2, 3, 4], "role": HOSTILE, "name": f"n {HOSTILE}"},
            {"id": '7" onmouseover="alert(1)', "bbox": [1, 1, 1, 1]},
            {"id": "2", "bbox": [1, 2, 0, 4]},
            {"bbox": [1, 2, 3, 4]},
            {"id": "3", "bbox": "1,2,3,4"},
            "not an element",
        ],
    )
    assert HOSTILE not in html and "&lt;img src=x onerror=alert(1)&gt;" in html
    assert 'onmouseover="alert(1)' not in html and 'data-bid="7&quot; onmouseover=&quot;alert(1)"' in html
    assert len(boxes(html)) == 2 and "4 boxes could not be drawn" in html


def test_no_elements_no_overlay(client, tmp_path):
    html = page_with(client, tmp_path)
    assert 'class="el-box' not in html and 'data-overlay="none"' in html
    assert "el-legend" not in html and "element ids on the screenshot" not in html


def test_boxes_wait_for_the_image_when_its_size_is_unknown():
    found, skipped = element_boxes({"elements": [{"id": "9", "bbox": [1.5, 2, 3, 4]}]}, None)
    assert skipped == 0 and found[0].style == "" and found[0].bbox == "1.5 2 3 4"


def test_tree_lines_name_their_element():
    lines = ax_lines("[1] RootWebArea 'Shop'\n  [a-12] link 'Home'\n  StaticText 'hi'")
    assert [(line.bid, line.text) for line in lines] == [
        ("1", "[1] RootWebArea 'Shop'"),
        ("a-12", "  [a-12] link 'Home'"),
        ("", "  StaticText 'hi'"),
    ]
