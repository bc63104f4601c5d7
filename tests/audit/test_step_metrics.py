"""Step audit numbers on a hand-built project (tests/audit/kind_worlds.py): strict and lenient
agreement on the best candidate, checklist κ / α, MRR, step and trajectory accuracy."""

from __future__ import annotations

import krippendorff
import numpy as np
import pytest
from django.core.cache import cache

from audit.judges.metrics import step_rank
from audit.kinds import kind_metrics, lenient_match
from audit.kinds.common import Rated
from audit.kinds.step import machine_metrics, mark_units, trajectory_key
from tests.audit.kind_worlds import step_world

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def _empty_cache():
    cache.clear()
    yield
    cache.clear()


def test_lenient_match_counts_an_equivalent_choice_either_way():
    assert lenient_match({"chosen": "c0"}, {"chosen": "c0"})
    assert lenient_match({"chosen": "c0"}, {"chosen": "c2", "equivalent": ["c0"]})
    assert lenient_match({"chosen": "c1", "equivalent": ["c0"]}, {"chosen": "c0"})
    assert not lenient_match({"chosen": "c0", "equivalent": ["c3"]}, {"chosen": "c1", "equivalent": ["c2"]})


def test_rank_of_the_best_ranked_correct_candidate():
    rewards = {"rewards": {"c0": 0.3, "c1": 0.5, "c2": 0.7}}
    assert step_rank({}, rewards, "c0") == 3
    assert step_rank({}, rewards, "c0", ["c2"]) == 1
    # A tie between two correct candidates is still first; a tie with a wrong one is not.
    assert step_rank({}, {"rewards": {"c0": 0.5, "c2": 0.5, "c1": 0.1}}, "c0", ["c2"]) == 1
    assert step_rank({}, {"rewards": {"c0": 0.5, "c1": 0.5}}, "c0") == 2
    assert step_rank({"chosen": "c2"}, {}, "c0", ["c2"]) == 1


def test_checklist_units_pair_only_marks_on_the_same_state_and_checklist_version():
    def units(label, scope):
        return [unit for unit, _ in mark_units(Rated(7, 1, "a", label), scope)]

    label = {"chosen": "c1", "checklist": ["yes", "no"]}
    assert units(label, "chosen") == [(7, 1, "c1", 0), (7, 1, "c1", 1)]
    assert units(label, "trajectory") == [(7, 1, "", 0), (7, 1, "", 1)]
    assert units({**label, "checklist_version": 2}, "trajectory")[0] == (7, 2, "", 0)
    per_candidate = {**label, "checklist_by_candidate": {"c1": ["yes"], "c0": ["no"]}}
    assert units(per_candidate, "per_candidate") == [(7, 1, "c0", 0), (7, 1, "c1", 0)]


def test_machine_metrics_on_a_known_ranking():
    # Ranks 1, 2 (trajectory A), 1, 1 (B), 3 (C, which has a second step not judged).
    rows = [
        ("A", {"chosen": "c0"}, {}, {"rewards": {"c0": 0.9, "c1": 0.1}}),
        ("A", {"chosen": "c1"}, {}, {"rewards": {"c0": 0.9, "c1": 0.1}}),
        ("B", {"chosen": "c0"}, {}, {"rewards": {"c0": 0.9}}),
        ("B", {"chosen": "c1", "equivalent": ["c0"]}, {}, {"rewards": {"c0": 0.9, "c1": 0.1}}),
        ("C", {"chosen": "c2"}, {}, {"rewards": {"c0": 0.9, "c1": 0.5, "c2": 0.1}}),
    ]
    result = machine_metrics(rows, {"A": 2, "B": 2, "C": 2})
    # MRR = (1 + 1/2 + 1 + 1 + 1/3) / 5 = 23/30.
    assert result["mrr"] == pytest.approx(23 / 30)
    assert result["step_accuracy"] == pytest.approx(3 / 5)
    assert (result["n_trajectories"], result["n_trajectories_incomplete"]) == (2, 1)
    assert result["trajectory_accuracy"] == pytest.approx(1 / 2)


def test_trajectory_key_prefers_the_record_trajectory_id():
    assert trajectory_key(1, 7, {"trajectory_id": "wpc-3"}) == "trajectory:wpc-3"
    assert trajectory_key(1, 7, {}) == "task:7"
    assert trajectory_key(1, None, None) == "item:1"


def test_step_project_numbers():
    world = step_world()
    report = kind_metrics(project=world["project"], bootstrap=0)
    assert report["pca"] is None and report["trace"] is None
    step = report["step"]
    # Strict: ann1 c0 c1 c0 c2 c0 c1, ann2 c0 c1 c2 c2 c1 c0 → p_o = 3/6. Margins ann1 c0 3,
    # c1 2, c2 1; ann2 2, 2, 2 → p_e = (3·2 + 2·2 + 1·2) / 36 = 1/3; κ = (1/2 − 1/3)/(2/3) = 0.25.
    best = step["best"]
    assert best["n_units"] == 6
    assert best["cohen_kappa"]["value"] == pytest.approx(0.25, abs=1e-3)
    # Lenient: items 3 and 6 agree too → 5/6. ann2 read as c0 c1 c0 c2 c1 c1 (margins 2, 3, 1):
    # p_e = (3·2 + 2·3 + 1·1)/36 = 13/36; κ = (5/6 − 13/36)/(1 − 13/36) = 17/23 = 0.739.
    lenient = step["best_lenient"]
    assert lenient["percent_agreement"] == pytest.approx(5 / 6)
    assert lenient["kappa"] == pytest.approx(17 / 23, abs=1e-3)
    # Checklist units (ann1, ann2): (y,y) (n,n) (y,ip) (ip,ip) (n,n) (n,y) → p_o = 4/6;
    # margins ann1 y2 ip1 n3, ann2 y2 ip2 n2 → p_e = (4 + 2 + 6)/36 = 1/3; κ = (2/3 − 1/3)/(2/3) = 0.5.
    checklist = step["checklist"]
    assert checklist["n_units"] == 6 and checklist["level"] == "ordinal"
    assert checklist["cohen_kappa"]["value"] == pytest.approx(0.5, abs=1e-3)
    # α: the same marks as reliability data (no=0, in_progress=1, yes=2), ordinal.
    data = np.array([[2, 0, 2, 1, 0, 0], [2, 0, 1, 1, 0, 2]], dtype=float)
    expected = krippendorff.alpha(
        reliability_data=data, level_of_measurement="ordinal", value_domain=[0, 1, 2]
    )
    assert checklist["krippendorff_alpha"]["value"] == pytest.approx(expected, abs=1e-6)

    machines = {m["name"]: m for m in step["machines"]}
    prm = machines["prm-8b"]
    # Ranks 1, 2, 1 (equivalent c2 counts), 1, 1, 1 → MRR = 5.5/6; step accuracy 5/6.
    assert prm["n"] == 6
    assert prm["mrr"] == pytest.approx(5.5 / 6, abs=1e-3)
    assert prm["step_accuracy"] == pytest.approx(5 / 6)
    # T1 (items 1–3) has a miss, T2 (4–5) is all right; the sixth item's task has an unsettled step.
    assert (prm["n_trajectories"], prm["n_trajectories_incomplete"]) == (2, 1)
    assert prm["trajectory_accuracy"] == pytest.approx(0.5)
    assert machines["checklist-judge"]["n"] == 0 and machines["checklist-judge"]["n_failed"] == 1
