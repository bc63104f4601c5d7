"""The synthetic pair generator (demo and benchmarks): importable, deterministic, and shaped
like the published benchmark it imitates (protocols.md, section A)."""

from __future__ import annotations

import difflib
import json
import statistics
from collections import Counter

import pytest

from annotation.importers import import_jsonl
from annotation.models import Item, Project, ToolEnv
from annotation.synthetic import (
    BUCKET_COUNTS,
    generate_pairs,
    long_pair,
    pair_turns,
    tool_env_records,
    write_jsonl,
)
from tests.factories import ProjectFactory, UserFactory

N = 5000


@pytest.fixture(scope="module")
def sample() -> list[dict]:
    return list(generate_pairs(N, seed=42))


def _calls(messages):
    return [call for m in messages for call in (m.get("tool_calls") or ())]


def _words(messages) -> list[str]:
    parts = []
    for m in messages:
        parts += [m.get("content") or "", m.get("reasoning") or ""]
        parts += [json.dumps(c["arguments"]) for c in m.get("tool_calls") or ()]
    return " ".join(parts).split()


@pytest.mark.django_db
def test_generated_pairs_import_through_the_importer(tmp_path):
    project = ProjectFactory(kind="pair")
    path = tmp_path / "pairs.jsonl"
    records = list(generate_pairs(200, seed=1))
    assert write_jsonl(records, path) == 200

    report = import_jsonl(project=project, path=path, actor=UserFactory())

    assert report.ok, report.errors[:5]
    assert report.counts["created"] == 200
    items = Item.objects.filter(project=project)
    assert items.count() == 200
    assert {i.stratum for i in items} == {r["meta"]["bucket"] for r in records}
    envs_used = {r["tool_env"]["id"] if isinstance(r["tool_env"], dict) else r["tool_env"] for r in records}
    assert set(ToolEnv.objects.filter(project=project).values_list("name", flat=True)) == envs_used
    # A second import of the same file changes nothing.
    again = import_jsonl(project=project, path=path, actor=UserFactory())
    assert again.ok and again.counts["created"] == 0 and again.counts["duplicates"] == 200


@pytest.mark.django_db
def test_the_64_turn_pair_imports(tmp_path):
    project = ProjectFactory(kind="pair")
    path = tmp_path / "long.jsonl"
    write_jsonl([long_pair(64, seed=3)], path)
    report = import_jsonl(project=project, path=path, actor=UserFactory())
    assert report.ok, report.errors
    assert Item.objects.get(project=project).external_id == "long-64-3"


def test_same_seed_same_records_and_shorter_runs_are_prefixes():
    first = list(generate_pairs(60, seed=7))
    assert first == list(generate_pairs(60, seed=7))
    assert first[:25] == list(generate_pairs(25, seed=7))
    other = list(generate_pairs(60, seed=8))
    assert [r["context"] for r in first] != [r["context"] for r in other]
    assert len({r["id"] for r in first}) == 60


def test_bucket_proportions_follow_the_benchmark(sample):
    total = sum(BUCKET_COUNTS.values())
    seen = Counter(r["meta"]["bucket"] for r in sample)
    for bucket, count in BUCKET_COUNTS.items():
        assert seen[bucket] / N == pytest.approx(count / total, abs=0.025), bucket
    families = {(r["meta"]["bucket"], r["meta"]["family"]) for r in sample}
    assert {f for _, f in families} == {
        "safety_refusal",
        "tool_irrelevance",
        "complex_planning",
        "robust_recovery",
    }


def test_balanced_mode_gives_equal_buckets():
    seen = Counter(r["meta"]["bucket"] for r in generate_pairs(42, seed=0, balanced=True))
    assert set(seen.values()) == {6} and len(seen) == 7


def test_conversation_lengths(sample):
    turns = [pair_turns(r) for r in sample]
    assert 7 <= statistics.median(turns) <= 11
    assert 9 <= statistics.mean(turns) <= 12.5
    assert max(turns) == 64
    assert min(turns) >= 2
    longest = long_pair(64, seed=0)
    assert pair_turns(longest) == 64
    # The longest inputs reach tens of thousands of tokens.
    assert len(json.dumps(longest)) > 60_000


def test_candidate_sources_mix(sample):
    kinds = Counter()
    for r in sample:
        kinds[r["chosen"]["source"]["type"]] += 1
        kinds[r["rejected"]["source"]["type"]] += 1
    assert kinds["natural"] / (2 * N) == pytest.approx(0.70, abs=0.03)
    assert kinds["llm_minimal_edit"] / (2 * N) == pytest.approx(0.22, abs=0.03)
    assert kinds["rule_perturbation"] / (2 * N) == pytest.approx(0.08, abs=0.02)
    perturbations = {r["rejected"]["source"]["perturbation"] for r in sample}
    assert perturbations == {
        "constraint_drop", "constraint_swap", "dependency_corruption", "numeric_mistake",
        "entity_substitution", "unavailable_tool_hallucination", "unnecessary_tool_call",
        "blind_retry", "premature_surrender", "late_refusal", "unsafe_compliance",
    }  # fmt: skip


def test_minimal_edits_share_most_of_their_text(sample):
    edited = [r for r in sample if r["rejected"]["source"]["type"] == "llm_minimal_edit"][:300]
    ratios = [
        difflib.SequenceMatcher(
            None, _words(r["chosen"]["messages"]), _words(r["rejected"]["messages"]), autojunk=False
        ).ratio()
        for r in edited
    ]
    assert statistics.median(ratios) > 0.75
    assert sum(x > 0.9 for x in ratios) >= 50
    assert all(r["rejected"]["source"]["parent"] == f"{r['id']}/chosen" for r in edited)


def test_every_call_is_answered_and_uses_a_known_tool(sample):
    tools = {env["id"]: {t["name"] for t in env["tools"]} for env in tool_env_records()}
    for env in tool_env_records():
        assert all(t["parameters"]["type"] == "object" for t in env["tools"])
    for r in sample[:1500]:
        env_id = r["tool_env"] if isinstance(r["tool_env"], str) else r["tool_env"]["id"]
        for side in ("chosen", "rejected"):
            messages = r["context"] + r[side]["messages"]
            call_ids = [c["id"] for c in _calls(messages)]
            answered = [m["tool_call_id"] for m in messages if m["role"] == "tool"]
            assert call_ids == answered and len(set(call_ids)) == len(call_ids)
            unknown = {c["name"] for c in _calls(messages)} - tools[env_id]
            if unknown:
                assert side == "rejected"
                assert r["rejected"]["source"]["perturbation"] == "unavailable_tool_hallucination"


def test_awkward_content_is_present(sample):
    args = [c["arguments"] for r in sample for c in _calls(r["rejected"]["messages"])]
    malformed = [a for a in args if isinstance(a, str)]
    assert malformed
    for raw in malformed:
        with pytest.raises(json.JSONDecodeError):
            json.loads(raw)
    outputs = [m["content"] for r in sample for m in r["chosen"]["messages"] if m["role"] == "tool"]
    assert any("<script>" in o for o in outputs)
    assert any("ignore all previous instructions" in o for o in outputs)
    assert all(json.loads(o) is not None for o in outputs[:2000])


def test_demo_showcase_has_every_oddity_and_a_very_large_output():
    records = list(generate_pairs(42, seed=0, balanced=True, showcase=True))
    tool_outputs = [
        m["content"]
        for r in records
        for part in ("chosen", "rejected")
        for m in r[part]["messages"]
        if m["role"] == "tool"
    ]
    assert any(len(o) > 250_000 for o in tool_outputs)
    assert any("<script>" in o or "onerror" in o or "<iframe" in o or "ignore all" in o for o in tool_outputs)
    assert any(isinstance(c["arguments"], str) for r in records for c in _calls(r["rejected"]["messages"]))
    assert max(pair_turns(r) for r in records) == 64


@pytest.mark.django_db
def test_load_demo_is_idempotent_and_prints_working_passwords(settings, tmp_path):
    from io import StringIO

    from django.contrib.auth import authenticate
    from django.core.management import call_command

    from annotation.models import Membership

    settings.VAR_DIR = tmp_path
    first, second = StringIO(), StringIO()
    call_command("load_demo", stdout=first)
    call_command("load_demo", stdout=second)

    project = Project.objects.get(slug="pairs-demo")
    assert project.name == "Plan preference audit" and project.kind == "pair" and project.overlap == 2
    assert "critical" in project.guidelines.lower()
    assert Item.objects.filter(project=project).count() == 42
    assert Counter(Item.objects.filter(project=project).values_list("stratum", flat=True)) == {
        bucket: 6 for bucket in BUCKET_COUNTS
    }
    # One judge on the dev LLM server that `make demo` starts, created once.
    judge = project.judge_configs.get()
    assert (judge.protocol, judge.api_key_env) == ("pairwise", "DEVLLM_API_KEY")
    assert judge.base_url == "http://127.0.0.1:8765/v1"
    roles = dict(Membership.objects.filter(project=project).values_list("user__username", "role"))
    assert roles == {
        "annotator1": "annotator",
        "annotator2": "annotator",
        "reviewer1": "reviewer",
        "manager1": "manager",
    }
    assert "42 duplicates" in second.getvalue()
    # One small project per other item kind, with the same members, imported once.
    kinds = dict(Project.objects.exclude(slug="pairs-demo").values_list("slug", "kind"))
    assert kinds == {"steps-demo": "step", "traces-demo": "trace", "pca-demo": "pca", "queries-demo": "query"}
    for slug, n in {"steps-demo": 12, "traces-demo": 10, "pca-demo": 12, "queries-demo": 7}.items():
        assert Item.objects.filter(project__slug=slug, kind=kinds[slug]).count() == n
        assert Membership.objects.filter(project__slug=slug).count() == 4
    stored = dict(line.split(": ") for line in (tmp_path / "demo-passwords.txt").read_text().splitlines())
    assert set(stored) == {"annotator1", "annotator2", "reviewer1", "manager1", "admin"}
    for name, password in stored.items():
        assert password in first.getvalue() and password in second.getvalue()
        user = authenticate(username=name, password=password)
        assert user is not None and user.is_superuser == (name == "admin")
