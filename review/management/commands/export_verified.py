"""`python manage.py export_verified SLUG --out DIR --splits train=0.8,dev=0.1,test=0.1 --seed N`

Runs the same export as the page and the API, in this process, and writes its files to DIR.
"""

from __future__ import annotations

from pathlib import Path

from django.core.management.base import BaseCommand, CommandError, CommandParser

from annotation.management.acting_manager import acting_manager
from annotation.models import Project
from review.exports.policy import DEFAULT_SPLITS, FORMATS, SOURCE_TYPES, ExportRequestError
from review.models import Export
from review.services.exports import export_create, export_run

# Request fields → the option that sets them, for error messages.
OPTIONS = {
    "splits": "--splits",
    "seed": "--seed",
    "stratify": "--stratify",
    "formats": "--format",
    "strata": "--strata",
    "states": "--states",
    "settled_from": "--settled-from",
    "settled_to": "--settled-to",
    "source": "--source",
}


class Command(BaseCommand):
    help = (
        "Export a project's verified items into named, leak-free splits (JSONL per split, "
        "manifest.json with counts and sha256 of every file)."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("slug", help="project slug")
        parser.add_argument("--out", required=True, help="folder for the files (created; must be empty)")
        parser.add_argument(
            "--splits", default=DEFAULT_SPLITS, help=f"name=ratio,... summing to 1 (default {DEFAULT_SPLITS})"
        )
        parser.add_argument("--seed", type=int, default=0, help="split seed (default 0)")
        parser.add_argument("--stratify", action="store_true", help="split every bucket in the same ratios")
        parser.add_argument(
            "--format",
            action="append",
            choices=FORMATS,
            dest="formats",
            help="repeat for several (default: every JSONL format of the project's kind, "
            "see review.exports.policy.KIND_FORMATS)",
        )
        parser.add_argument("--strata", default="", help="comma-separated strata to take (default: all)")
        parser.add_argument("--settled-from", help="settled on or after this date (YYYY-MM-DD)")
        parser.add_argument("--settled-to", help="settled on or before this date (YYYY-MM-DD)")
        parser.add_argument(
            "--source", choices=SOURCE_TYPES, help="items with a candidate of this source type"
        )
        parser.add_argument("--user", help="username recorded as the exporter (default: the first manager)")
        parser.add_argument("--overwrite", action="store_true", help="write into a folder that is not empty")

    def handle(self, *args, **options) -> None:
        project = Project.objects.filter(slug=options["slug"]).first()
        if project is None:
            raise CommandError(f"No project {options['slug']!r}.")
        actor = acting_manager(project, options["user"], what="the exporter")
        out = Path(options["out"])
        if out.exists() and not out.is_dir():
            raise CommandError(f"--out: {out} is a file, not a folder.")
        if out.is_dir() and any(out.iterdir()) and not options["overwrite"]:
            raise CommandError(f"--out: {out} is not empty; choose a new folder or pass --overwrite.")
        filters = {
            "strata": [s.strip() for s in options["strata"].split(",") if s.strip()],
            "settled_from": options["settled_from"],
            "settled_to": options["settled_to"],
            "source": options["source"] or "",
        }
        try:
            export = export_create(
                project=project,
                actor=actor,
                filters=filters,
                split_policy={
                    "splits": options["splits"],
                    "seed": options["seed"],
                    "stratify": options["stratify"],
                },
                formats=options["formats"],
                directory=out,
                enqueue=False,
            )
        except ExportRequestError as exc:
            raise CommandError(
                "; ".join(f"{OPTIONS.get(field, field)}: {reason}" for field, reason in exc.errors.items())
            ) from exc
        out.mkdir(parents=True, exist_ok=True)
        progress = self._progress if options["verbosity"] >= 2 else None
        export = export_run(export_id=export.pk, on_progress=progress)
        if export.status != Export.Status.DONE:
            raise CommandError(export.error or "The export failed.")
        self._report(export, out)

    def _progress(self, done: int, total: int) -> None:
        self.stderr.write(f"… {done} / {total} items")

    def _report(self, export: Export, out: Path) -> None:
        counts = export.manifest["counts"]
        self.stdout.write(
            self.style.SUCCESS(
                f"Export {export.pk} of {export.project.slug}: {counts['items']} verified items "
                f"in {counts['groups']} groups → {out}"
            )
        )
        for name, split in counts["per_split"].items():
            rows = ", ".join(f"{fmt} {n}" for fmt, n in split["rows"].items())
            self.stdout.write(f"  {name}: {split['items']} items, {split['groups']} groups ({rows})")
        for fmt, reasons in counts.get("left_out", {}).items():
            self.stdout.write(
                f"  left out of the {fmt} files: " + ", ".join(f"{n} {r}" for r, n in reasons.items())
            )
        for entry in export.files:
            self.stdout.write(f"{entry['name']}  {entry['bytes']} bytes  sha256 {entry['sha256']}")
