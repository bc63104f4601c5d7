"""A panel of pointwise judges: their 1-5 scores on each item, aggregated into one suggestion
(median score, majority tags, meta-review flag — protocols.md section A)."""

from __future__ import annotations

from collections import defaultdict

from django.db import transaction

from annotation.models import Project, Suggestion
from review.lifecycle import audit_log_write
from workers.judging.protocols import panel_aggregate
from workers.models import JudgeConfig, JudgeProtocol

from .judges import JudgeError

PANEL_PREFIX = "panel: "


def panel_source(configs: list[JudgeConfig]) -> str:
    return PANEL_PREFIX + ", ".join(sorted(c.name for c in configs))


@transaction.atomic
def judge_panel_aggregate(*, project: Project, configs: list[JudgeConfig], actor) -> dict[str, int]:
    """For every item that each panel judge scored (current prompt versions, no error), store or
    replace the panel's suggestion. Items some judge has not scored yet are left out and counted."""
    if len(configs) < 2:
        raise JudgeError({"judges": "A panel needs at least two judges."})
    for config in configs:
        if config.project_id != project.pk:
            raise JudgeError({"judges": f"{config.name!r} belongs to another project."})
        if config.protocol != JudgeProtocol.POINTWISE:
            raise JudgeError({"judges": f"{config.name!r} is not a pointwise judge."})
    current = {c.pk: str(c.prompt_version) for c in configs}
    verdicts: dict[int, dict[int, dict]] = defaultdict(dict)
    rows = Suggestion.objects.filter(judge_config__in=configs, error="").values_list(
        "item_id", "judge_config_id", "prompt_version", "scores"
    )
    for item_id, config_id, version, scores in rows.iterator():
        if version == current[config_id]:
            verdicts[item_id][config_id] = scores
    source = panel_source(configs)
    counts = {"aggregated": 0, "meta_review": 0, "incomplete": 0}
    for item_id, by_config in verdicts.items():
        if len(by_config) < len(configs):
            counts["incomplete"] += 1
            continue
        panel = panel_aggregate([by_config[c.pk] for c in configs])
        label = {"preferred": panel["preferred"]} if "preferred" in panel else {}
        Suggestion.objects.update_or_create(
            item_id=item_id,
            judge_config=None,
            source=source,
            defaults={
                "label": label,
                "scores": panel,
                "config": {"panel": sorted(current), "prompt_versions": current},
                "rationale": "; ".join(panel["reasons"]) or "The panel agrees.",
            },
        )
        counts["aggregated"] += 1
        counts["meta_review"] += bool(panel["meta_review"])
    audit_log_write(
        project_id=project.pk, actor=actor, action="judge_panel", data={"source": source, **counts}
    )
    return counts
