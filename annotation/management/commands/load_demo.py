"""`python manage.py load_demo`: demo users, a pair project filled with synthetic pairs, and one
small project per other item kind (steps, traces, P/C/A, query refinement) from annotation/demo_data.

Safe to run again: users, the project and memberships are reused, and the pairs file goes
through the importer, which skips ids it already holds. Passwords are random per install,
kept in var/demo-passwords.txt (readable by the owner only) and printed on every run.
"""

from __future__ import annotations

import os
import secrets
from pathlib import Path

from django.conf import settings
from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand, CommandError, CommandParser
from django.db import transaction

from annotation.importers import import_jsonl
from annotation.models import Membership, Project, Role
from annotation.services.projects import membership_set
from annotation.synthetic import generate_pairs, write_jsonl

SLUG = "pairs-demo"
DEMO_JUDGE = "Dev judge (pairwise)"
PROJECT_NAME = "Plan preference audit"
PAIRS_PER_BUCKET = 6
SEED = 2026
# username → project role (admin has none: staff are not implicitly members)
USERS: dict[str, str | None] = {
    "annotator1": Role.ANNOTATOR,
    "annotator2": Role.ANNOTATOR,
    "reviewer1": Role.REVIEWER,
    "manager1": Role.MANAGER,
    "admin": None,
}
GUIDELINES = Path(__file__).resolve().parents[2] / "synthetic" / "guidelines.md"
DEMO_DATA = Path(__file__).resolve().parents[2] / "demo_data"
# slug, name, kind, file in DEMO_DATA, guidelines: one small project per other item kind.
KIND_PROJECTS = [
    (
        "steps-demo",
        "Web steps: best next action",
        "step",
        "steps.jsonl",
        "Pick the candidate action that best advances the task; mark equally good ones as "
        "equivalent, broken ones as invalid, and judge each checklist item.",
    ),
    (
        "traces-demo",
        "Tool-use traces: verify and correct",
        "trace",
        "traces.jsonl",
        "Check every step (tool choice, argument format, step order, output/answer alignment, "
        "evidence). Correct what is wrong, or discard the trace with a reason.",
    ),
    (
        "pca-demo",
        "Embodied decisions: P/C/A",
        "pca",
        "pca.jsonl",
        "Score perception, cognition and action 0 or 1 against the rubric, with a one-line reason each.",
    ),
    (
        "queries-demo",
        "Query refinement",
        "query",
        "queries.jsonl",
        "Pick the best candidate query for the image, edit it for clarity, or reject all of them "
        "(tool-hinting, trivially answerable, ambiguous).",
    ),
]


def passwords_path() -> Path:
    return Path(settings.VAR_DIR) / "demo-passwords.txt"


def load_passwords(path: Path) -> dict[str, str]:
    """username → password from earlier runs, new random ones for users not in the file."""
    known: dict[str, str] = {}
    if path.exists():
        for line in path.read_text(encoding="utf-8").splitlines():
            name, sep, password = line.partition(":")
            if sep and name.strip() in USERS and password.strip():
                known[name.strip()] = password.strip()
    for name in USERS:
        known.setdefault(name, secrets.token_urlsafe(9))
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(f"{name}: {known[name]}\n" for name in USERS), encoding="utf-8")
    path.chmod(0o600)
    return known


class Command(BaseCommand):
    help = "Create demo users and the 'pairs-demo' project with synthetic pairs (idempotent)."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument(
            "--per-bucket", type=int, default=PAIRS_PER_BUCKET, help="pairs per bucket (7 buckets)"
        )

    def handle(self, *args, **options) -> None:
        per_bucket = options["per_bucket"]
        if per_bucket < 1:
            raise CommandError("--per-bucket must be at least 1.")
        passwords = load_passwords(passwords_path())
        users = self._users(passwords)
        project, created = self._project(users)

        path = Path(settings.VAR_DIR) / "demo" / "pairs.jsonl"
        n = write_jsonl(
            generate_pairs(7 * per_bucket, seed=SEED, balanced=True, showcase=True, id_prefix="demo"), path
        )
        report = import_jsonl(project=project, path=path, actor=users["manager1"])
        if not report.ok:
            for line in report.error_lines():
                self.stderr.write(line)
            raise CommandError(f"The demo pairs in {path} were rejected; nothing was imported.")

        for slug, name, kind, filename, guidelines in KIND_PROJECTS:
            self._kind_project(
                users, slug=slug, name=name, kind=kind, filename=filename, guidelines=guidelines
            )

        judge = self._judge(project, users["manager1"])
        self.stdout.write(
            f"Project {project.name!r} (/p/{project.slug}/) {'created' if created else 'already there'}."
        )
        self.stdout.write(
            f"Judge {judge.name!r} asks the dev LLM server that `make demo` starts ({judge.base_url})."
        )
        self.stdout.write(f"{path}: {n} pairs. {report.summary()}")
        self._print_passwords(passwords)

    def _judge(self, project: Project, manager):
        """A pairwise judge on the dev LLM server, so a judge run works with no API key."""
        from workers.judging.protocols import DEFAULT_TEMPLATES
        from workers.models import JudgeConfig, JudgeProtocol
        from workers.services.judges import judge_config_create

        existing = JudgeConfig.objects.filter(project=project, name=DEMO_JUDGE).first()
        if existing is not None:
            return existing
        port = os.environ.get("DEVLLM_PORT", "8765")
        return judge_config_create(
            project=project,
            actor=manager,
            name=DEMO_JUDGE,
            protocol=JudgeProtocol.PAIRWISE,
            base_url=f"http://127.0.0.1:{port}/v1",
            model="dev-judge?latency_ms=40",
            api_key_env="DEVLLM_API_KEY",
            requests_per_minute=600,
            max_concurrency=4,
            prompt_template=DEFAULT_TEMPLATES[JudgeProtocol.PAIRWISE],
        )

    def _users(self, passwords: dict[str, str]) -> dict:
        model = get_user_model()
        users = {}
        for name in USERS:
            user, _ = model.objects.get_or_create(username=name)
            # The printed password always works, also after someone changed it in the admin.
            user.set_password(passwords[name])
            user.is_staff = user.is_superuser = name == "admin"
            user.save()
            users[name] = user
        return users

    def _project(self, users: dict) -> tuple[Project, bool]:
        return self._members(
            users,
            slug=SLUG,
            kind="pair",
            defaults={
                "name": PROJECT_NAME,
                "guidelines": GUIDELINES.read_text(encoding="utf-8"),
                "label_schema": {"allow_tie": True},
                # About 80 audited items per family, as in the published audit.
                "audit_policy": {"mode": "cap", "cap": 80, "seed": 0, "audit_overlap": 2},
            },
        )

    def _kind_project(self, users: dict, *, slug: str, name: str, kind: str, filename: str, guidelines: str):
        project, created = self._members(
            users, slug=slug, kind=kind, defaults={"name": name, "guidelines": guidelines}
        )
        path = DEMO_DATA / filename
        report = import_jsonl(project=project, path=path, actor=users["manager1"])
        if not report.ok:
            for line in report.error_lines():
                self.stderr.write(line)
            raise CommandError(f"The demo file {path} was rejected; nothing was imported.")
        self.stdout.write(
            f"Project {name!r} (/p/{slug}/) {'created' if created else 'already there'}: {report.summary()}"
        )

    @transaction.atomic
    def _members(self, users: dict, *, slug: str, kind: str, defaults: dict) -> tuple[Project, bool]:
        project, created = Project.objects.get_or_create(
            slug=slug, defaults={"kind": kind, "overlap": 2, **defaults}
        )
        if not created and project.kind != kind:
            raise CommandError(f"A project {slug!r} exists but holds {project.kind} items, not {kind}.")
        roles = dict(Membership.objects.filter(project=project).values_list("user__username", "role"))
        for name, role in USERS.items():
            if role is not None and roles.get(name) != role:
                membership_set(project=project, actor=users["manager1"], username=name, role=role)
        return project, created

    def _print_passwords(self, passwords: dict[str, str]) -> None:
        self.stdout.write("")
        self.stdout.write("Demo accounts (also in " + str(passwords_path()) + "):")
        for name, role in USERS.items():
            what = role or "superuser, /admin/ only (no project role)"
            self.stdout.write(f"  {name:<11} {passwords[name]:<14} {what}")
