"""Rows for LLM judges: judge configurations, runs, previews (HTML and API). Reviewers and
managers see them, only managers create, edit, run and cancel; annotators and outsiders 404;
objects of another project 404 even for its own project's manager."""

from __future__ import annotations

from tests.authorization.matrix import API_ANON, JSON, LOGIN, PATCH, POST, C, Case, P, pk_of
from workers.judging.protocols import DEFAULT_TEMPLATES
from workers.models import JudgeConfig, JudgeRun


def judge_form(w, user):
    return {
        "name": f"new judge {user.username if user else ''}",
        "protocol": "pairwise",
        "base_url": "http://127.0.0.1:9/v1",
        "model": "dev-judge",
        "api_key_env": "",
        "temperature": "0",
        "samples": "1",
        "max_concurrency": "4",
        "requests_per_minute": "60",
        "tokens_per_minute": "0",
        "timeout_seconds": "30",
        "price_in_per_mtok": "0",
        "price_out_per_mtok": "0",
        "prompt_template": "",
    }


def judge_edit(w, user):
    return {**judge_form(w, user), "name": "judge", "prompt_template": "Judge $candidate_a vs $candidate_b"}


def judge_body(w, user):
    return {k: v for k, v in judge_form(w, user).items() if v != ""}


def judge_patch(w, user):
    return {"temperature": 0.5}


def run_form(w, user):
    return {"config": str(w.idle_judge.pk)}


def run_body(w, user):
    return {"config": w.idle_judge.pk, "filters": {"states": ["new"]}}


def nothing(w, user):
    return {}


# fmt: off
CASES: list[Case] = [
    # --- pages                    anonymous outsider annotator reviewer manager
    C("judge_list",               (LOGIN, 404, 404, 200, 200), args=P),
    C("judge_list",               (LOGIN, 404, 404, 404, 302), "create", method=POST, args=P,
      data=judge_form),
    C("judge_detail",             (LOGIN, 404, 404, 200, 200), args=pk_of("judge")),
    C("judge_detail",             (LOGIN, 404, 404, 404, 302), "edit", method=POST, args=pk_of("judge"),
      data=judge_edit),
    C("judge_detail",             (LOGIN, 404, 404, 404, 404), "other project", args=pk_of("foreign_judge")),
    C("judge_preview",            (LOGIN, 404, 404, 200, 200), args=pk_of("judge")),
    C("judge_preview",            (LOGIN, 404, 404, 404, 404), "other project", args=pk_of("foreign_judge")),
    C("judge_run_list",           (LOGIN, 404, 404, 200, 200), args=P),
    C("judge_run_list",           (LOGIN, 404, 404, 404, 302), "start", method=POST, args=P, data=run_form),
    C("judge_run_detail",         (LOGIN, 404, 404, 200, 200), args=pk_of("judge_run")),
    C("judge_run_detail",         (LOGIN, 404, 404, 404, 404), "other project",
      args=pk_of("foreign_judge_run")),
    C("judge_run_cancel",         (LOGIN, 404, 404, 404, 302), method=POST, args=pk_of("judge_run"),
      data=nothing),
    C("judge_run_cancel",         (LOGIN, 404, 404, 404, 404), "other project", method=POST,
      args=pk_of("foreign_judge_run"), data=nothing),
    # --- API
    C("api:judge-list",           (API_ANON, 404, 404, 200, 200), args=P),
    C("api:judge-list",           (API_ANON, 404, 404, 404, 201), "create", method=POST, args=P,
      data=judge_body, fmt=JSON),
    C("api:judge-detail",         (API_ANON, 404, 404, 200, 200), args=pk_of("judge")),
    C("api:judge-detail",         (API_ANON, 404, 404, 404, 200), "edit", method=PATCH, args=pk_of("judge"),
      data=judge_patch, fmt=JSON),
    C("api:judge-detail",         (API_ANON, 404, 404, 404, 404), "other project",
      args=pk_of("foreign_judge")),
    C("api:judge-run-list",       (API_ANON, 404, 404, 200, 200), args=P),
    C("api:judge-run-list",       (API_ANON, 404, 404, 404, 202), "start", method=POST, args=P,
      data=run_body, fmt=JSON),
    C("api:judge-run-detail",     (API_ANON, 404, 404, 200, 200), args=pk_of("judge_run")),
    C("api:judge-run-detail",     (API_ANON, 404, 404, 404, 404), "other project",
      args=pk_of("foreign_judge_run")),
    C("api:judge-run-cancel",     (API_ANON, 404, 404, 404, 200), method=POST, args=pk_of("judge_run"),
      data=nothing, fmt=JSON),
]
# fmt: on


def _judge(project, user, name: str) -> JudgeConfig:
    return JudgeConfig.objects.create(
        project=project,
        name=name,
        protocol="pairwise",
        base_url="http://127.0.0.1:9/v1",
        model="dev-judge",
        api_key_env="",
        prompt_template=DEFAULT_TEMPLATES["pairwise"],
        created_by=user,
    )


def extend_world(w) -> None:
    """Add this area's objects to the shared test world `w` (see test_matrix.world)."""
    manager, outsider = w.users["manager"], w.users["outsider"]
    w.judge = _judge(w.project, manager, "judge")
    w.idle_judge = _judge(w.project, manager, "idle judge")
    w.judge_run = JudgeRun.objects.create(config=w.judge, prompt_version=1, created_by=manager)
    w.foreign_judge = _judge(w.other, outsider, "judge")
    w.foreign_judge_run = JudgeRun.objects.create(
        config=w.foreign_judge, prompt_version=1, created_by=outsider
    )
