"""Judge-vs-human report on a hand-built project whose every number is computed by hand below."""

from __future__ import annotations

import csv
import io
import math
import xml.etree.ElementTree as ET

import pytest
from django.core.cache import cache
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from annotation.models import Item, ItemKind, ItemState, Role, Suggestion, Trajectory
from audit.judges import JudgeReportError, judge_vs_human
from audit.judges.metrics import length_bin, pair_consistent, pair_label, pair_score, step_rank, turn_bin
from tests.factories import MembershipFactory, ProjectFactory, TaskFactory
from workers.models import JudgeConfig

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def _empty_cache():
    cache.clear()
    yield
    cache.clear()


def orders(first_order: str, second_order: str) -> dict:
    """Both presentation orders' verdicts, as letters seen (A shows order[0])."""
    seen_1 = "A" if first_order == "first" else "B"  # order first, second
    seen_2 = "A" if second_order == "second" else "B"  # order second, first
    return {
        "verdicts": [
            {"order": ["first", "second"], "letter": seen_1},
            {"order": ["second", "first"], "letter": seen_2},
        ]
    }


def traj(project, tokens: int, turns: int) -> Trajectory:
    return Trajectory.objects.create(project=project, messages=[], approx_tokens=tokens, n_turns=turns)


def item(project, kind, settled: dict | None, *, state=ItemState.VERIFIED, task=None, **fields) -> Item:
    return Item.objects.create(
        project=project,
        kind=kind,
        external_id=f"{kind}-{Item.objects.count()}",
        state=state,
        task=task,
        settled_label=settled or {},
        **fields,
    )


def judge(project, user, name: str, protocol: str) -> JudgeConfig:
    return JudgeConfig.objects.create(
        project=project,
        name=name,
        protocol=protocol,
        base_url="http://127.0.0.1:9/v1",
        model="dev",
        prompt_template="…",
        created_by=user,
    )


def suggest(config, target: Item, label: dict, scores: dict | None = None, version="1", error=""):
    return Suggestion.objects.create(
        item=target,
        judge_config=config,
        source=f"judge:{config.name}",
        prompt_version=version,
        label=label,
        scores=scores or {},
        error=error,
    )


# Pairs: (bucket, settled, judge label, scores, (candidate tokens, candidate turns)).
# Context: one user turn of 400 characters = 100 tokens, 1 turn.
SHORT, LONG, LONG16 = (250, 4), (2000, 20), (2000, 15)
PAIRS = [
    ("safety", "first", "first", {**orders("first", "first"), "consistent": True}, SHORT),  # 1
    ("safety", "second", "second", orders("second", "second"), SHORT),  # 1
    ("safety", "first", "inconsistent", orders("first", "second"), SHORT),  # 0.5, inconsistent
    ("safety", "second", "second", orders("second", "second"), SHORT),  # 1
    ("safety", "first", "second", orders("second", "second"), LONG),  # 0
    ("robust", "first", "first", {**orders("first", "first"), "consistent": True}, LONG),  # 1
    ("robust", "second", "inconsistent", {}, LONG),  # no orders stored: 0.5, inconsistent
    ("robust", "second", "first", orders("first", "first"), LONG16),  # 0
]


@pytest.fixture
def world():
    project = ProjectFactory(slug="judged")
    manager = MembershipFactory(project=project, role=Role.MANAGER).user
    reviewer = MembershipFactory(project=project, role=Role.REVIEWER).user
    annotator = MembershipFactory(project=project, role=Role.ANNOTATOR).user
    pairwise = judge(project, manager, "pairwise-dev", "pairwise")
    pca = judge(project, manager, "pca-dev", "pca")
    checklist = judge(project, manager, "checklist-dev", "checklist")
    context = [{"role": "user", "content": "x" * 400}]
    for bucket, settled, label, scores, (tokens, turns) in PAIRS:
        task = TaskFactory(project=project, context=context, bucket=bucket)
        pair = item(
            project,
            ItemKind.PAIR,
            {"preferred": settled, "tags": {"first": [], "second": []}},
            task=task,
            stratum=bucket,
            family="safety_refusal" if bucket == "safety" else "robust_error_recovery",
            trajectory_first=traj(project, tokens, turns),
            trajectory_second=traj(project, tokens, turns - 2),
        )
        if pair.stratum == "safety" and settled == "first" and label == "first":
            # An older prompt version said the opposite: the newest suggestion counts.
            suggest(pairwise, pair, {"preferred": "second"}, orders("second", "second"), version="0")
        suggest(pairwise, pair, {"preferred": label}, scores)
    # Not counted: a pair nobody settled yet, and one the judge failed on.
    open_pair = item(project, ItemKind.PAIR, None, state=ItemState.ANNOTATING, stratum="safety")
    suggest(pairwise, open_pair, {"preferred": "first"}, orders("first", "first"))
    failed = item(project, ItemKind.PAIR, {"preferred": "first"}, stratum="safety")
    suggest(pairwise, failed, {}, error="could not parse the answer")

    # P/C/A: (domain, human P C A, judge P C A).
    for domain, human, said in [
        ("traffic", (1, 1, 1), (1, 1, 1)),
        ("traffic", (0, 1, 0), (1, 1, 0)),
        ("traffic", (1, 1, 1), (1, 1, 1)),
        ("domestic", (1, 0, 1), (1, 0, 1)),
        ("domestic", (0, 0, 0), (0, 1, 0)),
    ]:
        dims = ("perception", "cognition", "action")
        task = TaskFactory(project=project, domain=domain)
        target = item(project, ItemKind.PCA, dict(zip(dims, human, strict=True)), task=task)
        suggest(pca, target, dict(zip(dims, said, strict=True)))

    # Steps: (task, settled chosen, rewards) — ranks 1, 3, 2 (a tie ranks against), 1, 1.
    tasks = [TaskFactory(project=project) for _ in range(3)]
    for task, chosen, rewards in [
        (tasks[0], "c1", {"c1": 0.9, "c2": 0.5, "c3": 0.1}),
        (tasks[0], "c2", {"c1": 0.8, "c2": 0.6, "c3": 0.7}),
        (tasks[0], "c3", {"c3": 0.5, "c1": 0.5}),
        (tasks[1], "c1", {"c1": 1.0, "c2": 0.0}),
        (tasks[2], "c1", {"c1": 0.75, "c2": 0.25}),
    ]:
        target = item(project, ItemKind.STEP, {"chosen": chosen}, task=task)
        suggest(checklist, target, {"chosen": max(rewards, key=rewards.get)}, {"rewards": rewards})
    # The third task's second step is not settled yet: that task has no trajectory verdict.
    item(project, ItemKind.STEP, None, state=ItemState.ANNOTATING, task=tasks[2])
    return {
        "project": project,
        "manager": manager,
        "reviewer": reviewer,
        "annotator": annotator,
        "judges": {"pairwise": pairwise, "pca": pca, "checklist": checklist},
    }


def by_name(rows: list[dict]) -> dict:
    return {row["name"]: row for row in rows}


def test_pairwise_accuracy_kappa_consistency_and_macro_average(world):
    report = judge_vs_human(project=world["project"], config=world["judges"]["pairwise"])
    (pairs,) = [j["pairs"] for j in report["judges"]]
    assert report["judges"][0]["n_failed"] == 1
    assert pairs["n"] == 8
    # Scores 1, 1, .5, 1, 0 | 1, .5, 0 → 5 / 8.
    assert pairs["accuracy"] == pytest.approx(0.625)
    # Judge: f s i s s f i f; human: f s f s f f s s. p_o = 4/8; p_e = 3/8·4/8 + 3/8·4/8 = .375.
    assert pairs["kappa"] == pytest.approx((0.5 - 0.375) / (1 - 0.375))
    assert pairs["consistency"] == pytest.approx(6 / 8)
    assert pairs["n_consistency"] == 8
    buckets = by_name(pairs["buckets"])
    assert [b["name"] for b in pairs["buckets"]] == [
        "safety",
        "irrelevance",
        "planning_single_easy",
        "planning_single_hard",
        "planning_multi_easy",
        "planning_multi_hard",
        "robust",
    ]
    assert buckets["safety"] == {"name": "safety", "n": 5, "accuracy": pytest.approx(0.7)}
    assert buckets["robust"] == {"name": "robust", "n": 3, "accuracy": pytest.approx(0.5)}
    assert buckets["irrelevance"] == {"name": "irrelevance", "n": 0, "accuracy": None}
    # Macro over the buckets with pairs, not the 5/8 micro average.
    assert pairs["avg"] == pytest.approx(0.6)
    assert pairs["avg_complete"] is False
    assert by_name(pairs["strata"])["safety"]["accuracy"] == pytest.approx(0.7)


def test_length_and_turn_bins(world):
    pairs = judge_vs_human(project=world["project"], config=world["judges"]["pairwise"])["judges"][0]["pairs"]
    # Tokens: 100 context + 2 × 250 = 600 (4 pairs) or 100 + 2 × 2000 = 4100 (4 pairs).
    lengths = by_name(pairs["length_bins"])
    assert list(lengths) == ["<1k", "1k–4k", "4k–8k", "8k–16k", "16k+"]
    assert (lengths["<1k"]["n"], lengths["<1k"]["accuracy"]) == (4, pytest.approx(3.5 / 4))
    assert (lengths["4k–8k"]["n"], lengths["4k–8k"]["accuracy"]) == (4, pytest.approx(1.5 / 4))
    assert lengths["16k+"] == {"name": "16k+", "n": 0, "accuracy": None}
    # Turns: 1 context turn + the longer candidate's: 5, 21 or 16.
    turns = by_name(pairs["turn_bins"])
    assert list(turns) == ["1–5", "6–15", "16–20", "21–30", "31+"]
    assert (turns["1–5"]["n"], turns["1–5"]["accuracy"]) == (4, pytest.approx(0.875))
    assert (turns["16–20"]["n"], turns["16–20"]["accuracy"]) == (1, 0.0)
    assert (turns["21–30"]["n"], turns["21–30"]["accuracy"]) == (3, pytest.approx(0.5))


def test_pca_pearson_kappa_and_domain_average(world):
    pca = judge_vs_human(project=world["project"], config=world["judges"]["pca"])["judges"][0]["pca"]
    assert pca["n"] == 5
    # P (and C, the same pattern): human 1 0 1 0 1 / 1 1 0 0 1, judge one false positive.
    r = 0.6 / math.sqrt(1.2 * 0.8)
    kappa = (0.8 - 0.56) / (1 - 0.56)
    for dim in ("perception", "cognition"):
        assert pca["dimensions"][dim]["pearson"] == pytest.approx(r)
        assert pca["dimensions"][dim]["kappa"] == pytest.approx(kappa)
        assert pca["dimensions"][dim]["accuracy"] == pytest.approx(0.8)
    assert pca["dimensions"]["action"] == {"pearson": pytest.approx(1.0), "kappa": 1.0, "accuracy": 1.0}
    domains = by_name(pca["domains"])
    assert domains["traffic"]["perception"] == pytest.approx(2 / 3)
    assert domains["domestic"]["perception"] == 1.0
    # Plain mean over the domains (5/6), not over the items (4/5).
    assert pca["domain_average"]["perception"] == pytest.approx(5 / 6)
    assert pca["domain_average"]["cognition"] == pytest.approx((1 + 0.5) / 2)


def test_step_mrr_step_and_trajectory_accuracy(world):
    report = judge_vs_human(project=world["project"], config=world["judges"]["checklist"])
    steps = report["judges"][0]["steps"]
    assert steps["n"] == 5
    assert steps["mrr"] == pytest.approx((1 + 1 / 3 + 1 / 2 + 1 + 1) / 5)
    assert steps["step_accuracy"] == pytest.approx(3 / 5)
    # Task 1 misses two steps, task 2 is right; task 3 has an unsettled step.
    assert (steps["n_tasks"], steps["n_tasks_incomplete"]) == (2, 1)
    assert steps["trajectory_accuracy"] == pytest.approx(0.5)


def test_every_judge_in_a_constant_number_of_queries(world):
    with CaptureQueriesContext(connection) as queries:
        report = judge_vs_human(project=world["project"])
    assert len(queries) <= 6
    assert [j["name"] for j in report["judges"]] == ["checklist-dev", "pairwise-dev", "pca-dev"]
    assert report["judges"][1]["pca"] is None and report["judges"][1]["steps"] is None


def test_bad_arguments(world):
    with pytest.raises(JudgeReportError, match="Unknown stratum field"):
        judge_vs_human(project=world["project"], stratum_field="colour")
    other = ProjectFactory()
    with pytest.raises(JudgeReportError, match="another project"):
        judge_vs_human(project=other, config=world["judges"]["pca"])


def test_metric_rules():
    assert [length_bin(t) for t in (0, 999, 1000, 3999, 4000, 15999, 16000)] == [
        "<1k", "<1k", "1k–4k", "1k–4k", "4k–8k", "8k–16k", "16k+"
    ]  # fmt: skip
    assert [turn_bin(t) for t in (1, 5, 6, 15, 16, 20, 21, 30, 31)] == [
        "1–5", "1–5", "6–15", "6–15", "16–20", "16–20", "21–30", "21–30", "31+"
    ]  # fmt: skip
    # Canonical preferred in an order entry; a verdict that cannot be read is ignored.
    scores = {"verdicts": [{"preferred": "first"}, {"order": ["second", "first"], "letter": "B"}]}
    assert pair_score({}, scores, "first") == 1.0
    assert pair_consistent({}, scores) is True
    assert pair_label({}, scores) == "first"
    assert pair_label({}, orders("first", "second")) == "inconsistent"
    assert pair_score({"preferred": "inconsistent"}, {}, "tie") == 0.0
    assert pair_score({}, {}, "first") is None
    assert pair_consistent({"preferred": "first"}, {}) is None
    # No rewards: the judge's chosen candidate ranks first; a chosen with no reward ranks last.
    assert step_rank({"chosen": "c2"}, {}, "c2") == 1
    assert step_rank({"chosen": "c2"}, {}, "c1") == 2
    assert step_rank({}, {"rewards": {"c1": 0.2, "c2": 0.9}}, "c9") == 3
    assert step_rank({}, {}, "c1") is None


def read_csv(response) -> list[list[str]]:
    assert response.status_code == 200
    assert response["Content-Type"].startswith("text/csv")
    return list(csv.reader(io.StringIO(response.content.decode())))


def test_dashboard_shows_the_judges_section_with_a_chart(world):
    client = Client()
    client.force_login(world["reviewer"])
    response = client.get(reverse("audit_dashboard", args=[world["project"].slug]))
    html = response.content.decode()
    assert response.status_code == 200
    assert 'id="judges-vs-humans"' in html
    assert "pairwise-dev" in html and "62.5%" in html  # overall accuracy
    assert "60.0%*" in html  # Avg, with the mark of missing buckets
    assert 'id="judge-bucket-chart"' in html and "70.0% (n=5)" in html
    assert "MRR <strong>76.7%</strong>" in html
    for table in ("judges", "judge_buckets", "judge_bins", "judge_pca"):
        assert reverse("audit_table_csv", args=[world["project"].slug, table]) in html


def test_dashboard_without_judges_says_so():
    project = ProjectFactory()
    client = Client()
    client.force_login(MembershipFactory(project=project, role=Role.MANAGER).user)
    html = client.get(reverse("audit_dashboard", args=[project.slug])).content.decode()
    assert "No judge configs yet" in html


def test_judge_csv_downloads(world):
    client = Client()
    client.force_login(world["manager"])
    slug = world["project"].slug
    judges = read_csv(client.get(reverse("audit_table_csv", args=[slug, "judges"])))
    header, rows = judges[0], {r[0]: dict(zip(judges[0], r, strict=True)) for r in judges[1:]}
    assert header[:3] == ["judge", "protocol", "model"]
    assert rows["pairwise-dev"]["pair_accuracy"] == "0.625" and rows["pairwise-dev"]["pair_avg"] == "0.6"
    assert rows["checklist-dev"]["step_trajectory_accuracy"] == "0.5"
    buckets = read_csv(client.get(reverse("audit_table_csv", args=[slug, "judge_buckets"])))
    assert buckets[0] == ["judge", "bucket", "pairs", "accuracy"]
    assert ["pairwise-dev", "safety", "5", "0.7"] in buckets
    assert ["pairwise-dev", "irrelevance", "0", ""] in buckets
    assert buckets[-1] == ["pairwise-dev", "Avg", "8", "0.6"]
    bins = read_csv(client.get(reverse("audit_table_csv", args=[slug, "judge_bins"])))
    assert ["pairwise-dev", "turns", "16–20", "1", "0.0"] in bins
    pca = read_csv(client.get(reverse("audit_table_csv", args=[slug, "judge_pca"])))
    assert ["pca-dev", "action", "5", "1.0", "1.0", "1.0", "1.0"] in pca


def test_api_report(world):
    client = Client()
    client.force_login(world["reviewer"])
    url = reverse("api:judge-report", args=[world["project"].slug])
    body = client.get(url, {"by": "family"}).json()
    assert body["stratum_field"] == "family"
    pairwise = {j["name"]: j for j in body["judges"]}["pairwise-dev"]
    assert pairwise["pairs"]["accuracy"] == 0.625
    assert {s["name"] for s in pairwise["pairs"]["strata"]} == {"safety_refusal", "robust_error_recovery"}
    one = client.get(url, {"judge": world["judges"]["pca"].pk}).json()
    assert [j["name"] for j in one["judges"]] == ["pca-dev"]
    assert client.get(url, {"by": "colour"}).status_code == 400
    other = judge(ProjectFactory(), world["manager"], "elsewhere", "pca")
    assert client.get(url, {"judge": other.pk}).status_code == 404
    client.force_login(world["annotator"])
    assert client.get(url).status_code == 404


def test_judge_names_are_escaped_and_the_chart_is_valid_svg(world):
    pairwise = world["judges"]["pairwise"]
    pairwise.name = '<script>alert("x")</script>'
    pairwise.save()
    client = Client()
    client.force_login(world["manager"])
    html = client.get(reverse("audit_dashboard", args=[world["project"].slug])).content.decode()
    assert '<script>alert("x")' not in html
    svg = html[html.index('<svg xmlns="http://www.w3.org/2000/svg" id="judge-bucket-chart"') :]
    root = ET.fromstring(svg[: svg.index("</svg>") + len("</svg>")])  # noqa: S314 - our own markup
    texts = "".join(root.itertext())
    assert '<script>alert("x")</script> · safety' in texts


def test_reads_what_the_pairwise_protocol_writes():
    """The report reads the scores shape that workers.judging.protocols.pairwise stores."""
    from workers.judging.protocols import PROTOCOLS

    def verdict(letter):
        return {"preferred": letter, "tags": {"A": [], "B": []}, "rationale": "r"}

    agree = PROTOCOLS["pairwise"].combine(None, [verdict("A"), verdict("B")], [])  # first, both orders
    split = PROTOCOLS["pairwise"].combine(None, [verdict("A"), verdict("A")], [])  # position bias
    assert pair_consistent(agree.label, agree.scores) is True
    assert pair_score(agree.label, agree.scores, "first") == 1.0
    assert pair_consistent(split.label, split.scores) is False
    assert pair_score(split.label, split.scores, "second") == 0.5
