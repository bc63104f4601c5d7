"""Judge configurations and judge runs as services (managers): create, edit (the prompt is
versioned), start a run (queued in a worker after commit), cancel it."""

from __future__ import annotations

import os
import re
from decimal import Decimal, InvalidOperation
from typing import Any
from urllib.parse import urlparse

from django.conf import settings
from django.db import transaction
from django.utils import timezone

from annotation.models import ItemState, Project
from review.lifecycle import audit_log_write
from workers.models import JudgeConfig, JudgeProtocol, JudgeRun, PromptRevision

__all__ = [
    "JudgeError",
    "judge_api_key",
    "judge_config_create",
    "judge_config_update",
    "judge_run_cancel",
    "judge_run_start",
]

EDITABLE = (
    "name",
    "protocol",
    "base_url",
    "model",
    "api_key_env",
    "temperature",
    "samples",
    "max_concurrency",
    "requests_per_minute",
    "tokens_per_minute",
    "timeout_seconds",
    "prompt_template",
    "price_in_per_mtok",
    "price_out_per_mtok",
)
ENV_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")
# (field, lowest, highest): limits a team would not exceed by accident.
BOUNDS: dict[str, tuple[float, float]] = {
    "temperature": (0.0, 2.0),
    "samples": (1, 50),
    "max_concurrency": (1, 256),
    "requests_per_minute": (1, 100_000),
    "tokens_per_minute": (0, 100_000_000),
    "timeout_seconds": (1.0, 600.0),
}


class JudgeError(Exception):
    """A request that cannot be done; `errors` maps field → reason. Nothing was written."""

    def __init__(self, errors: dict[str, str]):
        super().__init__("; ".join(f"{k}: {v}" for k, v in errors.items()))
        self.errors = errors


def judge_api_key(config: JudgeConfig) -> str | None:
    """The key, read at run time from ARBITER["JUDGE_KEYS"] or the environment; never stored."""
    name = config.api_key_env
    if not name:
        return None
    keys = getattr(settings, "ARBITER", {}).get("JUDGE_KEYS") or {}
    return keys.get(name) or os.environ.get(name) or None


def _clean(fields: dict[str, Any], *, partial: bool) -> dict[str, Any]:
    errors: dict[str, str] = {}
    unknown = set(fields) - set(EDITABLE)
    for name in sorted(unknown):
        errors[name] = "Unknown field."
    out: dict[str, Any] = {}
    required = () if partial else ("name", "protocol", "base_url", "model", "prompt_template")
    for name in required:
        if not str(fields.get(name) or "").strip():
            errors[name] = "This field is required."
    for name, value in fields.items():
        if name in unknown or name in errors:
            continue
        if name in ("name", "model", "prompt_template", "base_url", "api_key_env", "protocol"):
            value = str(value or "").strip()
        if name == "protocol" and value not in JudgeProtocol.values:
            errors[name] = f"Choose one of {', '.join(JudgeProtocol.values)}."
            continue
        if name == "base_url":
            url = urlparse(value)
            if url.scheme not in ("http", "https") or not url.netloc:
                errors[name] = "An http(s) URL of an OpenAI-compatible endpoint, e.g. http://host:8000/v1."
                continue
        if name == "api_key_env" and value and not ENV_NAME.match(value):
            errors[name] = "The NAME of an environment variable (letters, digits, _), not the key itself."
            continue
        if name in ("name", "model", "prompt_template") and not value:
            errors[name] = "This field may not be blank."
            continue
        if name in BOUNDS:
            low, high = BOUNDS[name]
            try:
                number = float(value) if isinstance(low, float) else int(value)
            except (TypeError, ValueError):
                errors[name] = "A number is required."
                continue
            if not low <= number <= high:
                errors[name] = f"Between {low} and {high}."
                continue
            value = number
        if name.startswith("price_"):
            try:
                value = Decimal(str(value))
            except InvalidOperation:
                errors[name] = "A number is required."
                continue
            if value < 0:
                errors[name] = "Not negative."
                continue
        out[name] = value
    if errors:
        raise JudgeError(errors)
    return out


@transaction.atomic
def judge_config_create(*, project: Project, actor, **fields: Any) -> JudgeConfig:
    """A new judge at prompt version 1 (its first PromptRevision); no template given: the
    protocol's default. Raises JudgeError."""
    if not str(fields.get("prompt_template") or "").strip():
        from workers.judging.protocols import DEFAULT_TEMPLATES

        fields["prompt_template"] = DEFAULT_TEMPLATES.get(str(fields.get("protocol")), "")
    clean = _clean(fields, partial=False)
    if JudgeConfig.objects.filter(project=project, name=clean["name"]).exists():
        raise JudgeError({"name": "This project already has a judge of that name."})
    config = JudgeConfig.objects.create(project=project, created_by=actor, prompt_version=1, **clean)
    PromptRevision.objects.create(config=config, version=1, template=config.prompt_template, created_by=actor)
    audit_log_write(
        project_id=project.pk,
        actor=actor,
        action="judge_created",
        data={"judge": config.pk, "name": config.name, "model": config.model, "protocol": config.protocol},
    )
    return config


@transaction.atomic
def judge_config_update(*, config: JudgeConfig, actor, **fields: Any) -> JudgeConfig:
    """Change a judge; a changed prompt template is a new prompt version (and PromptRevision),
    so earlier suggestions stay tied to the prompt that produced them. Raises JudgeError."""
    config = JudgeConfig.objects.select_for_update().get(pk=config.pk)
    clean = _clean(fields, partial=True)
    renamed = "name" in clean and clean["name"] != config.name
    if renamed and JudgeConfig.objects.filter(project_id=config.project_id, name=clean["name"]).exists():
        raise JudgeError({"name": "This project already has a judge of that name."})
    changed = {k: v for k, v in clean.items() if getattr(config, k) != v}
    if not changed:
        return config
    for name, value in changed.items():
        setattr(config, name, value)
    if "prompt_template" in changed:
        config.prompt_version += 1
        PromptRevision.objects.create(
            config=config, version=config.prompt_version, template=config.prompt_template, created_by=actor
        )
    config.save()
    audit_log_write(
        project_id=config.project_id,
        actor=actor,
        action="judge_updated",
        data={
            "judge": config.pk,
            "fields": sorted(changed),
            "prompt_version": config.prompt_version,
        },
    )
    return config


def _clean_filters(config: JudgeConfig, filters: dict[str, Any] | None) -> dict[str, Any]:
    filters = filters or {}
    errors: dict[str, str] = {}
    unknown = set(filters) - {"states", "strata", "item_ids"}
    if unknown:
        errors["filters"] = f"Unknown filters: {', '.join(sorted(unknown))} (states, strata, item_ids)."
    out: dict[str, Any] = {}
    states = [str(s) for s in filters.get("states") or []]
    bad = [s for s in states if s not in ItemState.values]
    if bad:
        errors["states"] = f"Unknown states: {', '.join(bad)}."
    elif states:
        out["states"] = sorted(set(states))
    strata = [str(s) for s in filters.get("strata") or [] if str(s).strip()]
    if strata:
        out["strata"] = sorted(set(strata))
    try:
        ids = sorted({int(i) for i in filters.get("item_ids") or []})
    except (TypeError, ValueError):
        errors["item_ids"] = "Item ids are whole numbers."
        ids = []
    if ids:
        found = set(config.project.items.filter(pk__in=ids).values_list("pk", flat=True))
        missing = [i for i in ids if i not in found]
        if missing:
            errors["item_ids"] = f"Not items of this project: {', '.join(map(str, missing[:10]))}."
        out["item_ids"] = ids
    if errors:
        raise JudgeError(errors)
    return out


@transaction.atomic
def judge_run_start(
    *, config: JudgeConfig, actor, filters: dict[str, Any] | None, force: bool = False
) -> JudgeRun:
    """Queue a run of `config` over the project's items matching `filters` (states, strata,
    item_ids; empty: all). One run of a judge at a time. Raises JudgeError."""
    config = JudgeConfig.objects.select_for_update().select_related("project").get(pk=config.pk)
    clean = _clean_filters(config, filters)
    active = config.runs.filter(status__in=[JudgeRun.Status.QUEUED, JudgeRun.Status.RUNNING])
    if active.exists():
        raise JudgeError({"run": f"Run {active.first().pk} of this judge is still going; cancel it or wait."})
    run = JudgeRun.objects.create(
        config=config,
        prompt_version=config.prompt_version,
        filters=clean,
        force=bool(force),
        created_by=actor,
    )
    audit_log_write(
        project_id=config.project_id,
        actor=actor,
        action="judge_run_queued",
        data={"run": run.pk, "judge": config.pk, "filters": clean, "force": run.force},
    )
    transaction.on_commit(lambda: _enqueue(run.pk))
    return run


def _enqueue(run_id: int) -> None:
    from workers.tasks.judges import judge_run_task  # the task module imports the runner

    judge_run_task.delay(run_id)


@transaction.atomic
def judge_run_cancel(*, run: JudgeRun, actor) -> JudgeRun:
    """Ask a run to stop: the runner checks between items. A queued run stops at once."""
    run = JudgeRun.objects.select_for_update().select_related("config").get(pk=run.pk)
    if run.status not in (JudgeRun.Status.QUEUED, JudgeRun.Status.RUNNING):
        raise JudgeError({"run": f"The run is {run.get_status_display().lower()}; nothing to cancel."})
    run.cancel_requested = True
    fields = ["cancel_requested"]
    if run.status == JudgeRun.Status.QUEUED:
        run.status = JudgeRun.Status.CANCELLED
        run.finished_at = timezone.now()
        fields += ["status", "finished_at"]
    run.save(update_fields=fields)
    audit_log_write(
        project_id=run.config.project_id,
        actor=actor,
        action="judge_run_cancel",
        data={"run": run.pk, "judge": run.config_id},
    )
    return run
