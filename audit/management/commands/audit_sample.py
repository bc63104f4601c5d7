"""`python manage.py audit_sample SLUG --seed N [--by family] [--cap 80 | --rate 0.1] [--overlap 2]`"""

from __future__ import annotations

from django.core.management.base import BaseCommand, CommandError, CommandParser

from annotation.management.acting_manager import acting_manager
from annotation.models import Project
from audit.services.sampling import STRATUM_FIELDS, SamplingError, audit_sample_draw


class Command(BaseCommand):
    help = (
        "Draw a project's stratified audit sample (replacing the current one) and print how many "
        "items were sampled per stratum. The same seed draws the same sample."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("slug", help="project slug")
        parser.add_argument("--seed", type=int, required=True, help="recorded with the sample")
        parser.add_argument("--by", default="family", choices=list(STRATUM_FIELDS), help="stratum field")
        size = parser.add_mutually_exclusive_group()
        size.add_argument(
            "--cap", type=int, help="items per stratum (default 80; the whole stratum when smaller)"
        )
        size.add_argument("--rate", type=float, help="share of each stratum, e.g. 0.1")
        parser.add_argument("--overlap", type=int, default=2, help="annotators per sampled item (default 2)")
        parser.add_argument(
            "--user", help="username recorded as drawing the sample (default: the project's first manager)"
        )

    def handle(self, *args, **options) -> None:
        project = Project.objects.filter(slug=options["slug"]).first()
        if project is None:
            raise CommandError(f"No project with the slug {options['slug']!r}.")
        actor = acting_manager(project, options["user"], what="the one drawing the sample")
        mode = "rate" if options["rate"] is not None else "cap"
        try:
            sample = audit_sample_draw(
                project=project,
                actor=actor,
                stratum_field=options["by"],
                mode=mode,
                cap=options["cap"] if options["cap"] is not None else 80,
                rate=options["rate"],
                seed=options["seed"],
                audit_overlap=options["overlap"],
            )
        except SamplingError as exc:
            raise CommandError(str(exc)) from exc
        width = max([len(options["by"]), *(len(name or "(none)") for name in sample.counts)])
        self.stdout.write(f"{options['by']:<{width}}  sampled  items")
        for name, c in sample.counts.items():
            self.stdout.write(f"{name or '(none)':<{width}}  {c['sampled']:>7}  {c['population']:>5}")
        sampled = sum(c["sampled"] for c in sample.counts.values())
        population = sum(c["population"] for c in sample.counts.values())
        self.stdout.write(f"{'total':<{width}}  {sampled:>7}  {population:>5}")
        self.stdout.write(
            f"Audit sample {sample.pk} of {project.slug}: seed {sample.seed}, drawn as {actor.username}."
        )
