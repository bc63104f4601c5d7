"""Export benchmark: 100,000 verified pairs → JSONL splits (preference + interchange).

    python -m bench.export [--pairs N] [--formats preference,interchange] [--keep-files]

Against a migrated, empty PostgreSQL database (DATABASE_URL), as scripts/run_bench.sh sets up.
Builds the data fast: generated pairs (annotation.synthetic) through the importer, then one
UPDATE marks them verified with settled labels (one in ten against the source gold, one in
fifty a tie). The export then runs in a child process, so that its time and peak memory are
its own: export_create + export_run, exactly what a worker does. Prints one table and writes
bench/out/export.json. Target: under 30 s for 100,000 pairs.

Environment: BENCH_DIR (scratch folder; default a new temporary folder).
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from itertools import islice
from pathlib import Path

from bench.common import django_setup, peak_rss_mb, table

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "bench" / "out"
SLUG = "bench-export"
MANAGER = "bench-export-manager"
TARGET_SECONDS = 30.0
# Imported in parts: one file of more than 50,000 distinct tasks trips the importer's task
# cache (annotation/importers/writer.py, BatchWriter._resolve_tasks clears it mid-batch).
PART = 25_000

# Settled labels in one statement: the gold side, the other side for every tenth pair, a tie
# for every fiftieth.
VERIFY_SQL = """
UPDATE annotation_item SET
  state = 'verified',
  settled_at = now(),
  settled_label = CASE
    WHEN id %% 50 = 0 THEN '{"preferred": "tie"}'::jsonb
    WHEN id %% 10 = 0 THEN jsonb_build_object(
      'preferred', CASE gold->>'preferred' WHEN 'first' THEN 'second' ELSE 'first' END,
      'tags', '{"first": [], "second": []}'::jsonb)
    ELSE jsonb_build_object('preferred', gold->>'preferred', 'tags', '{"first": [], "second": []}'::jsonb)
  END
WHERE project_id = %s
"""


def prepare(n: int, work: Path) -> dict:
    """Generate, import and verify `n` pairs in a new project; returns timings."""
    from django.contrib.auth import get_user_model
    from django.db import connection

    from annotation.importers import import_jsonl
    from annotation.models import Membership, Project, Role
    from annotation.synthetic import generate_pairs, write_jsonl

    if Project.objects.filter(slug=SLUG).exists():
        raise SystemExit(f"project {SLUG!r} exists already: run against an empty database")
    started = time.perf_counter()
    records = generate_pairs(n, seed=2027, id_prefix="bexp")
    paths = []
    while True:
        path = work / f"export-pairs-{len(paths):02d}.jsonl"
        if not write_jsonl(islice(records, PART), path):
            path.unlink()
            break
        paths.append(path)
    generated = time.perf_counter() - started

    project = Project.objects.create(slug=SLUG, name="Export benchmark", kind="pair", overlap=2)
    manager = get_user_model().objects.create(username=MANAGER)
    Membership.objects.create(user=manager, project=project, role=Role.MANAGER)
    started = time.perf_counter()
    for path in paths:
        report = import_jsonl(project=project, path=path, actor=manager)
        if not report.ok:
            raise RuntimeError(f"import rejected: {report.errors[:5]}")
        path.unlink()
    imported = time.perf_counter() - started
    started = time.perf_counter()
    with connection.cursor() as cursor:
        cursor.execute(VERIFY_SQL, [project.pk])
        verified = cursor.rowcount
        cursor.execute("ANALYZE")
    marked = time.perf_counter() - started
    return {
        "pairs": n,
        "generate_s": round(generated, 1),
        "import_s": round(imported, 1),
        "verify_update_s": round(marked, 2),
        "verified": verified,
    }


def reused() -> dict:
    from annotation.models import Item

    n = Item.objects.filter(project__slug=SLUG, state="verified").count()
    if not n:
        raise SystemExit(f"no verified items in {SLUG!r} to reuse; run without --reuse first")
    return {"pairs": n, "reused": True}


def run_child(formats: list[str], out_dir: Path) -> dict:
    proc = subprocess.run(  # noqa: S603 - our own module, fixed arguments
        [
            sys.executable,
            "-m",
            "bench.export",
            "--child",
            "--formats",
            ",".join(formats),
            "--out",
            str(out_dir),
        ],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=False,
    )
    if proc.returncode != 0:
        raise RuntimeError(f"export failed:\n{proc.stderr[-3000:]}")
    return json.loads(proc.stdout.strip().splitlines()[-1])


def child(formats: list[str], out_dir: Path) -> None:
    """The measured part: what the worker does for one export request."""
    django_setup()
    from django.contrib.auth import get_user_model

    from annotation.models import Project
    from review.models import Export
    from review.services.exports import export_create, export_run

    project = Project.objects.get(slug=SLUG)
    manager = get_user_model().objects.get(username=MANAGER)
    # A worker imports the statistics libraries once, not per export: timed on their own.
    started = time.perf_counter()
    import audit.agreement  # noqa: F401

    stats_import = time.perf_counter() - started
    rss_before = peak_rss_mb()
    started = time.perf_counter()
    export = export_create(
        project=project,
        actor=manager,
        filters={},
        split_policy={"splits": "train=0.8,dev=0.1,test=0.1", "seed": 13},
        formats=formats,
        directory=out_dir,
        enqueue=False,
    )
    export = export_run(export_id=export.pk)
    seconds = time.perf_counter() - started
    if export.status != Export.Status.DONE:
        raise RuntimeError(export.error)
    counts = export.manifest["counts"]
    print(
        json.dumps(
            {
                "seconds": round(seconds, 2),
                "stats_import_s": round(stats_import, 2),
                "items": counts["items"],
                "items_per_s": round(counts["items"] / seconds) if seconds else None,
                "groups": counts["groups"],
                "per_split": {name: s["items"] for name, s in counts["per_split"].items()},
                "preference_left_out": counts["preference_left_out"],
                "files": len(export.files),
                "written_mb": round(sum(f["bytes"] for f in export.files) / 2**20, 1),
                "agreement_error": export.manifest["agreement"].get("error"),
                "rss_before_mb": round(rss_before, 1),
                "peak_rss_mb": round(peak_rss_mb(), 1),
            }
        )
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pairs", type=int, default=int(os.environ.get("BENCH_EXPORT_PAIRS", 100_000)))
    parser.add_argument("--formats", default="preference,interchange")
    parser.add_argument("--keep-files", action="store_true", help="leave the exported files in BENCH_DIR")
    parser.add_argument(
        "--reuse",
        action="store_true",
        help="export the data an earlier run prepared instead of making it again",
    )
    parser.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--out", help=argparse.SUPPRESS)
    args = parser.parse_args()
    formats = [f for f in args.formats.split(",") if f]
    if args.child:
        child(formats, Path(args.out))
        return

    django_setup()
    work = Path(os.environ.get("BENCH_DIR") or tempfile.mkdtemp(prefix="arbiter-bench-export-"))
    work.mkdir(parents=True, exist_ok=True)
    print(f"Export bench: {args.pairs:,} pairs, scratch in {work}", flush=True)
    results = {"prepare": reused() if args.reuse else prepare(args.pairs, work)}
    print(f"prepared: {results['prepare']}", flush=True)
    out_dir = work / "export"
    results["export"] = run_child(formats, out_dir)
    results["export"]["formats"] = formats
    print(f"exported: {results['export']}", flush=True)
    if not args.keep_files:
        shutil.rmtree(out_dir, ignore_errors=True)

    OUT.mkdir(parents=True, exist_ok=True)
    (OUT / "export.json").write_text(json.dumps(results, indent=2) + "\n")
    e = results["export"]
    print()
    print(
        table(
            [
                (
                    f"export {e['items']:,} verified pairs ({'+'.join(formats)})",
                    f"{e['seconds']} s",
                    f"< {TARGET_SECONDS:g} s",
                    "ok" if e["seconds"] < TARGET_SECONDS else "MISSED",
                ),
                ("  written", f"{e['written_mb']} MiB in {e['files']} files", "", ""),
                ("  peak RSS of the export process", f"{e['peak_rss_mb']} MiB", "", ""),
            ]
        )
    )
    print(f"\nwritten: {OUT / 'export.json'}")


if __name__ == "__main__":
    main()
