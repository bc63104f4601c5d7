"""Child process: import one JSONL file with the importer and report time and peak memory.

    python -m bench.import_step FILE --project SLUG --user NAME

Runs on its own so that its peak RSS is the import's, not the generator's. Prints one JSON line.
"""

from __future__ import annotations

import argparse
import json
import time

from bench.common import django_setup, peak_rss_mb


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("file")
    parser.add_argument("--project", required=True)
    parser.add_argument("--user", required=True)
    args = parser.parse_args()
    django_setup()

    from django.contrib.auth import get_user_model

    from annotation.importers import import_jsonl
    from annotation.models import Project

    project = Project.objects.get(slug=args.project)
    actor = get_user_model().objects.get(username=args.user)
    rss_before = peak_rss_mb()
    started = time.perf_counter()
    report = import_jsonl(project=project, path=args.file, actor=actor)
    seconds = time.perf_counter() - started
    print(
        json.dumps(
            {
                "ok": report.ok,
                "seconds": round(seconds, 2),
                "counts": report.counts,
                "errors": report.errors[:5],
                "rss_before_mb": round(rss_before, 1),
                "peak_rss_mb": round(peak_rss_mb(), 1),
            }
        )
    )


if __name__ == "__main__":
    main()
