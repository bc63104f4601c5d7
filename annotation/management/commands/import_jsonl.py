"""`python manage.py import_jsonl FILE --project SLUG [--media DIR] [--replace]`"""

from __future__ import annotations

from pathlib import Path

from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand, CommandError, CommandParser
from django.db import transaction

from annotation.importers import ImportRejected, ImportReport, import_jsonl
from annotation.importers.schemas import RECORD_KINDS
from annotation.services.imports import project_get_or_create_for_import

LISTED_DUPLICATES = 20


class Command(BaseCommand):
    help = (
        "Import a JSONL file of records (formats/README.md) into a project, all or nothing. "
        "The project is created when missing, with the kind of the file's records."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("file", help="the JSONL file")
        parser.add_argument("--project", required=True, help="project slug")
        parser.add_argument(
            "--media", help="folder holding the media the records name (default: the file's folder)"
        )
        parser.add_argument(
            "--replace",
            action="store_true",
            help="replace records already imported, when they have no annotations yet",
        )
        parser.add_argument(
            "--kind", choices=RECORD_KINDS, help="kind of a new project (default: from the records)"
        )
        parser.add_argument("--name", default="", help="name of a new project (default: the slug)")
        parser.add_argument("--user", help="username recorded as the importer (and manager of a new project)")

    def handle(self, *args, **options) -> None:
        path = Path(options["file"])
        if not path.is_file():
            raise CommandError(f"{path} is not a file.")
        if options["media"] and not Path(options["media"]).is_dir():
            raise CommandError(f"{options['media']} is not a folder.")
        actor = None
        if options["user"]:
            actor = get_user_model().objects.filter(username=options["user"]).first()
            if actor is None:
                raise CommandError(f"No user named {options['user']!r}.")
        progress = self._progress if options["verbosity"] >= 2 else None
        try:
            # The project is created in the same transaction, so a rejected file leaves none.
            with transaction.atomic():
                project, created = project_get_or_create_for_import(
                    slug=options["project"],
                    actor=actor,
                    path=path,
                    kind=options["kind"],
                    name=options["name"],
                )
                report = import_jsonl(
                    project=project,
                    path=path,
                    actor=actor,
                    media_dir=options["media"],
                    replace=options["replace"],
                    on_progress=progress,
                )
                if not report.ok:
                    transaction.set_rollback(True)
        except ImportRejected as exc:
            report = ImportReport(ok=False, errors=exc.errors)
        if not report.ok:
            for line in report.error_lines():
                self.stderr.write(line)
            raise CommandError(f"{path.name} rejected: {len(report.errors)} error(s); nothing was imported.")
        if created:
            self.stdout.write(f"Created project {project.slug!r} ({project.kind}).")
        self.stdout.write(self.style.SUCCESS(f"{path.name}: {report.summary()}"))
        if report.duplicates:
            shown = ", ".join(report.duplicates[:LISTED_DUPLICATES])
            more = report.counts.get("duplicates", 0) - min(len(report.duplicates), LISTED_DUPLICATES)
            self.stdout.write(
                f"Already imported (not updated): {shown}" + (f" and {more} more" if more > 0 else "")
            )

    def _progress(self, lines_read: int, bytes_read: int) -> None:
        self.stderr.write(f"… {lines_read} lines")
