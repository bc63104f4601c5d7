"""Judge pages: reviewers and managers see judges and runs; managers create, edit and run them.
Annotators (and outsiders) get 404. The API key itself never appears: only its variable's name."""

from __future__ import annotations

from typing import Any

from django.db.models import QuerySet
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.views.decorators.http import require_GET, require_http_methods, require_POST

from annotation.access import MANAGERS, STAFF_ROLES, project_role_required
from annotation.models import Item, Project
from workers.judging.runner import protocol_for
from workers.models import JudgeConfig, JudgeRun
from workers.services.judges import (
    JudgeError,
    judge_api_key,
    judge_config_create,
    judge_config_update,
    judge_run_cancel,
    judge_run_start,
)
from workers.views.judge_forms import JudgeConfigForm, JudgeRunForm

TEMPLATE = "workers/judges.html"
RUNS_TEMPLATE = "workers/judge_runs.html"
RECENT_RUNS = 50
ACTIVE = (JudgeRun.Status.QUEUED, JudgeRun.Status.RUNNING)


def _configs(project: Project) -> QuerySet[JudgeConfig]:
    return JudgeConfig.objects.filter(project=project).select_related("created_by").order_by("name")


def _config_or_404(project: Project, config_id: int) -> JudgeConfig:
    try:
        return _configs(project).get(pk=config_id)
    except JudgeConfig.DoesNotExist:
        raise Http404("No such judge.") from None


def _run_or_404(project: Project, run_id: int) -> JudgeRun:
    try:
        return JudgeRun.objects.select_related("config", "created_by").get(config__project=project, pk=run_id)
    except JudgeRun.DoesNotExist:
        raise Http404("No such run.") from None


def _manager_only(request: HttpRequest) -> None:
    # Reviewers see the pages; a write by anyone but a manager is as if the page were not there.
    if request.project_role not in MANAGERS:
        raise Http404("Only managers change judges.")


def _form_errors(form, exc: JudgeError) -> None:
    for field, reason in exc.errors.items():
        form.add_error(field if field in form.fields else None, reason)


def _context(request: HttpRequest, **extra: Any) -> dict[str, Any]:
    return {"project": request.project, "can_manage": request.project_role in MANAGERS, **extra}


@require_http_methods(["GET", "POST"])
@project_role_required(STAFF_ROLES)
def judge_list(request: HttpRequest) -> HttpResponse:
    form = JudgeConfigForm()
    status = 200
    if request.method == "POST":
        _manager_only(request)
        form = JudgeConfigForm(request.POST)
        if form.is_valid():
            try:
                config = judge_config_create(project=request.project, actor=request.user, **form.cleaned_data)
            except JudgeError as exc:
                _form_errors(form, exc)
            else:
                return redirect("judge_detail", request.project.slug, config.pk)
        status = 400
    configs = list(_configs(request.project))
    keys = {c.pk: (not c.api_key_env or bool(judge_api_key(c))) for c in configs}
    context = _context(request, configs=configs, key_set=keys, form=form)
    return render(request, TEMPLATE, context, status=status)


@require_http_methods(["GET", "POST"])
@project_role_required(STAFF_ROLES)
def judge_detail(request: HttpRequest, config_id: int) -> HttpResponse:
    config = _config_or_404(request.project, config_id)
    form = JudgeConfigForm(instance=config)
    status = 200
    if request.method == "POST":
        _manager_only(request)
        form = JudgeConfigForm(request.POST, instance=JudgeConfig.objects.get(pk=config.pk))
        if form.is_valid():
            try:
                judge_config_update(config=config, actor=request.user, **form.cleaned_data)
            except JudgeError as exc:
                _form_errors(form, exc)
            else:
                return redirect("judge_detail", request.project.slug, config.pk)
        status = 400
    context = _context(
        request,
        config=config,
        form=form,
        key_set=not config.api_key_env or bool(judge_api_key(config)),
        revisions=config.prompt_revisions.select_related("created_by").order_by("-version"),
        runs=config.runs.select_related("created_by")[:RECENT_RUNS],
    )
    return render(request, TEMPLATE, context, status=status)


@require_GET
@project_role_required(STAFF_ROLES)
def judge_preview(request: HttpRequest, config_id: int) -> HttpResponse:
    """The messages the judge would get for one real item (the first, or ?item=ID)."""
    config = _config_or_404(request.project, config_id)
    items = Item.objects.filter(project=request.project).select_related(
        "task", "trajectory_first", "trajectory_second"
    )
    raw = request.GET.get("item", "").strip()
    error = ""
    item = None
    if raw:
        item = items.filter(pk=int(raw)).first() if raw.isdigit() else None
        if item is None:
            error = f"Item {raw} is not an item of this project."
    else:
        item = items.order_by("pk").first()
        if item is None:
            error = "This project has no items yet."
    calls: list[list[dict]] = []
    if item is not None:
        try:
            calls = protocol_for(config).build(item, config.prompt_template)
        except Exception as exc:  # noqa: BLE001 - shown to the manager fixing the template
            error = f"The prompt could not be built for item {item.pk}: {exc}"
    context = _context(
        request,
        config=config,
        item=item,
        item_value=raw or (item.pk if item else ""),
        calls=calls,
        error=error,
        preview=True,
    )
    status = 400 if error and raw else 200
    if request.htmx:
        return render(request, f"{TEMPLATE}#preview_messages", context, status=status)
    return render(request, TEMPLATE, context, status=status)


@require_http_methods(["GET", "POST"])
@project_role_required(STAFF_ROLES)
def run_list(request: HttpRequest) -> HttpResponse:
    configs = list(_configs(request.project))
    form = JudgeRunForm(
        project=request.project, configs=configs, initial={"config": request.GET.get("config")}
    )
    status = 200
    if request.method == "POST":
        _manager_only(request)
        form = JudgeRunForm(request.POST, project=request.project, configs=configs)
        if form.is_valid():
            config = next(c for c in configs if str(c.pk) == form.cleaned_data["config"])
            try:
                run = judge_run_start(
                    config=config,
                    actor=request.user,
                    filters=form.filters(),
                    force=form.cleaned_data["force"],
                )
            except JudgeError as exc:
                _form_errors(form, exc)
            else:
                return redirect("judge_run_detail", request.project.slug, run.pk)
        status = 400
    runs = JudgeRun.objects.filter(config__project=request.project).select_related("config", "created_by")
    context = _context(request, form=form, configs=configs, runs=runs[:RECENT_RUNS])
    return render(request, RUNS_TEMPLATE, context, status=status)


@require_GET
@project_role_required(STAFF_ROLES)
def run_detail(request: HttpRequest, run_id: int) -> HttpResponse:
    run = _run_or_404(request.project, run_id)
    context = _context(request, run=run, active=run.status in ACTIVE)
    if request.htmx:
        return render(request, f"{RUNS_TEMPLATE}#run_status", context)
    return render(request, RUNS_TEMPLATE, context)


@require_POST
@project_role_required(MANAGERS)
def run_cancel(request: HttpRequest, run_id: int) -> HttpResponse:
    run = _run_or_404(request.project, run_id)
    try:
        run = judge_run_cancel(run=run, actor=request.user)
    except JudgeError as exc:
        context = _context(request, run=run, active=run.status in ACTIVE, cancel_error=str(exc.errors["run"]))
        return render(request, RUNS_TEMPLATE, context, status=409)
    if request.htmx:
        return render(
            request, f"{RUNS_TEMPLATE}#run_status", _context(request, run=run, active=run.status in ACTIVE)
        )
    return redirect("judge_run_detail", request.project.slug, run.pk)
