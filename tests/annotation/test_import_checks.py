"""Importer details: every problem of a record is named, step records know their trajectory."""

from __future__ import annotations

from annotation.importers.checks import schema_problems
from annotation.importers.records import _step_meta


def test_each_missing_field_is_named_once():
    problems = schema_problems("pca", {"kind": "pca", "id": "p-1"})
    missing = sorted(field for field, reason in problems if reason == "is required")
    assert missing == ["instance", "output"]


def test_step_ids_name_their_trajectory():
    assert _step_meta({"id": "wpc-00042-s3"}) == {"trajectory_id": "wpc-00042"}
    assert _step_meta({"id": "wpc-1-s0", "meta": {"trajectory_id": "t9"}}) == {"trajectory_id": "t9"}
    assert _step_meta({"id": "lonely"}) == {}
