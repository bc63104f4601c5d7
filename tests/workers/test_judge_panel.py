"""A panel of pointwise judges: median score, majority tags, meta-review, one suggestion."""

from __future__ import annotations

import io

import pytest
from django.core.management import call_command

from annotation.models import Role, Suggestion
from tests.factories import MembershipFactory, PairItemFactory
from tests.workers.test_judge_config import make_config
from workers.judging.protocols import DEFAULT_TEMPLATES
from workers.services.judges import JudgeError
from workers.services.panels import judge_panel_aggregate, panel_source

pytestmark = pytest.mark.django_db


def score(config, item, first, second, first_tags=(), second_tags=()):
    Suggestion.objects.create(
        item=item,
        judge_config=config,
        source=config.name,
        prompt_version=str(config.prompt_version),
        scores={
            "first": {"score": first, "tags": list(first_tags)},
            "second": {"score": second, "tags": list(second_tags)},
        },
    )


@pytest.fixture
def panel():
    manager = MembershipFactory(role=Role.MANAGER)
    judges = [
        make_config(
            manager.project,
            manager.user,
            name=f"judge {n}",
            protocol="pointwise",
            prompt_template=DEFAULT_TEMPLATES["pointwise"],
        )
        for n in "abc"
    ]
    return manager, judges


def test_panel_medians_majority_tags_and_meta_review(panel):
    manager, (a, b, c) = panel
    calm, split, unscored = PairItemFactory.create_batch(3, project=manager.project)
    for judge in (a, b, c):
        score(judge, calm, 4 if judge is not c else 5, 2, second_tags=["numeric_error"])
    score(a, split, 5, 1)
    score(b, split, 2, 3)
    score(c, split, 4, 4)
    score(a, unscored, 3, 3)

    counts = judge_panel_aggregate(project=manager.project, configs=[a, b, c], actor=manager.user)
    assert counts == {"aggregated": 2, "meta_review": 1, "incomplete": 1}
    source = panel_source([a, b, c])
    calm_panel = Suggestion.objects.get(item=calm, source=source)
    assert calm_panel.label == {"preferred": "first"}
    assert calm_panel.scores["sides"]["second"]["median"] == 2
    assert calm_panel.scores["sides"]["first"]["median"] == 4  # 4, 4, 5
    assert calm_panel.scores["sides"]["second"]["tags"] == ["numeric_error"]
    assert calm_panel.scores["meta_review"] is False
    split_panel = Suggestion.objects.get(item=split, source=source)
    assert split_panel.scores["meta_review"] is True  # scores 5, 2, 4 on first: range 3
    assert split_panel.scores["sides"]["first"]["median"] == 4
    # Running it again replaces, never duplicates.
    judge_panel_aggregate(project=manager.project, configs=[a, b, c], actor=manager.user)
    assert Suggestion.objects.filter(source=source).count() == 2
    assert panel_critical_split(manager, a, b, c)


def test_panel_needs_two_pointwise_judges(panel):
    manager, (a, _, _) = panel
    pairwise = make_config(manager.project, manager.user, name="pairwise judge")
    with pytest.raises(JudgeError, match="at least two"):
        judge_panel_aggregate(project=manager.project, configs=[a], actor=manager.user)
    with pytest.raises(JudgeError, match="not a pointwise judge"):
        judge_panel_aggregate(project=manager.project, configs=[a, pairwise], actor=manager.user)


def test_panel_command(panel):
    manager, (a, b, _) = panel
    item = PairItemFactory(project=manager.project)
    score(a, item, 4, 2)
    score(b, item, 5, 2)
    out = io.StringIO()
    call_command("judge_panel", manager.project.slug, "--judges", "judge a,judge b", stdout=out)
    assert "1 items aggregated (0 flagged for meta-review)" in out.getvalue()


def panel_critical_split(manager, a, b, c) -> bool:
    """A critical tag given by some but not all judges also sends the item to meta-review."""
    item = PairItemFactory(project=manager.project)
    for judge, tags in ((a, ["numeric_error"]), (b, ["numeric_error"]), (c, [])):
        score(judge, item, 4, 2, second_tags=tags)
    judge_panel_aggregate(project=manager.project, configs=[a, b, c], actor=manager.user)
    panel = Suggestion.objects.get(item=item, source=panel_source([a, b, c])).scores
    return panel["meta_review"] and panel["sides"]["second"]["tags"] == ["numeric_error"]
