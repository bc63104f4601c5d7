"""Rows for LLM judges: judge configurations, runs, previews (HTML and API).

Add `C(...)` rows to CASES; objects the rows need go on the world in `extend_world(w)`.
"""

from __future__ import annotations

from tests.authorization.matrix import Case

CASES: list[Case] = []


def extend_world(w) -> None:
    """Add this area's objects to the shared test world `w` (see test_matrix.world)."""
