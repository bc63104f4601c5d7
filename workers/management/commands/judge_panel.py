"""`python manage.py judge_panel SLUG --judges "judge a,judge b,judge c"`: aggregate pointwise
judges into panel suggestions (median score, majority tags, meta-review flag)."""

from __future__ import annotations

from django.core.management.base import BaseCommand, CommandError, CommandParser

from annotation.management.acting_manager import acting_manager
from annotation.models import Project
from workers.models import JudgeConfig
from workers.services.judges import JudgeError
from workers.services.panels import judge_panel_aggregate


class Command(BaseCommand):
    help = "Aggregate the scores of several pointwise judges into one panel suggestion per item."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("slug")
        parser.add_argument("--judges", required=True, help="comma-separated judge names")
        parser.add_argument("--user", help="manager recorded in the audit log (default: the first manager)")

    def handle(self, *args, **options) -> None:
        project = Project.objects.filter(slug=options["slug"]).first()
        if project is None:
            raise CommandError(f"No project {options['slug']!r}.")
        names = [n.strip() for n in options["judges"].split(",") if n.strip()]
        configs = list(JudgeConfig.objects.filter(project=project, name__in=names))
        missing = sorted(set(names) - {c.name for c in configs})
        if missing:
            raise CommandError(f"No judge named {', '.join(map(repr, missing))} in this project.")
        actor = acting_manager(project, options["user"], what="the one aggregating the panel")
        try:
            counts = judge_panel_aggregate(project=project, configs=configs, actor=actor)
        except JudgeError as exc:
            raise CommandError(str(exc)) from exc
        self.stdout.write(
            f"{counts['aggregated']} items aggregated ({counts['meta_review']} flagged for meta-review), "
            f"{counts['incomplete']} not yet scored by every judge."
        )
