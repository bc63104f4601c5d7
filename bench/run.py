"""Arbiter benchmarks: `python -m bench.run` against a migrated, empty PostgreSQL database
(scripts/run_bench.sh sets one up and tears it down). Prints a table and writes
bench/out/results.json.

Environment: BENCH_PAIRS (default 100000), BENCH_PAGE_ROUNDS (200), BENCH_ANNOTATORS (20),
BENCH_CONCURRENT_SECONDS (15), BENCH_THINK_S (0: annotators submit back to back),
BENCH_PACED_THINK_S (2: mean pause of the paced run),
BENCH_DIR (scratch folder for the JSONL files; default a new temporary folder).
"""

from __future__ import annotations

import json
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from bench.common import django_setup, table

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "bench" / "out"
SLUG = "bench"


def env_number(name: str, default: float) -> float:
    return float(os.environ.get(name, default))


def machine_info() -> dict:
    from django import get_version
    from django.db import connection

    model = ""
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                model = line.split(":", 1)[1].strip()
                break
        mem_kb = next(
            int(line.split()[1])
            for line in Path("/proc/meminfo").read_text().splitlines()
            if line.startswith("MemTotal")
        )
    except OSError:
        mem_kb = 0
    with connection.cursor() as cursor:
        cursor.execute("SHOW server_version")
        pg = cursor.fetchone()[0]
    return {
        "cpu": model or platform.processor(),
        "cores": os.cpu_count(),
        "memory_gib": round(mem_kb / 1024 / 1024, 1),
        "python": platform.python_version(),
        "django": get_version(),
        "postgresql": pg,
        "date": time.strftime("%Y-%m-%d %H:%M %Z"),
        # Other work on the machine skews every number; keep a record of it.
        "load_average_at_start": [round(x, 2) for x in os.getloadavg()],
    }


def generate(n: int, path: Path) -> tuple[dict, str]:
    """Write n pairs; returns timing and the id of a pair of median length."""
    from annotation.synthetic import generate_pairs, pair_turns, write_jsonl

    turns: list[int] = []

    def counted():
        for record in generate_pairs(n, seed=2026, id_prefix="bench"):
            turns.append(pair_turns(record))
            yield record

    started = time.perf_counter()
    write_jsonl(counted(), path)
    seconds = time.perf_counter() - started
    median = int(statistics.median(turns))
    median_id = f"bench-{turns.index(median):06d}"
    return {
        "pairs": n,
        "seconds": round(seconds, 1),
        "pairs_per_s": round(n / seconds),
        "file_mb": round(path.stat().st_size / 2**20, 1),
        "turns_median": median,
        "turns_mean": round(statistics.fmean(turns), 2),
        "turns_max": max(turns),
    }, median_id


def setup(n_annotators: int) -> dict:
    """Bench users and the project, made directly: fixtures, not a product path."""
    from django.contrib.auth import get_user_model

    from annotation.models import Membership, Project, Role

    users = get_user_model().objects
    project = Project.objects.create(slug=SLUG, name="Benchmark pairs", kind="pair", overlap=2)
    manager = users.create(username="bench-manager")
    Membership.objects.create(user=manager, project=project, role=Role.MANAGER)
    made = {
        "manager": manager,
        "page": users.create(username="bench-page"),
        "html": [],
        "api": [],
        "http": [],
    }
    Membership.objects.create(user=made["page"], project=project, role=Role.ANNOTATOR)
    for flow in ("html", "api"):
        made[f"solo-{flow}"] = [users.create(username=f"bench-solo-{flow}")]
        Membership.objects.create(user=made[f"solo-{flow}"][0], project=project, role=Role.ANNOTATOR)
    for flow in ("html", "api", "http"):
        for i in range(n_annotators):
            user = users.create(username=f"bench-{flow}-{i:02d}")
            Membership.objects.create(user=user, project=project, role=Role.ANNOTATOR)
            made[flow].append(user)
    return {"project": project, **made}


def import_in_child(path: Path) -> dict:
    proc = subprocess.run(  # noqa: S603 - our own module, fixed arguments
        [sys.executable, "-m", "bench.import_step", str(path), "--project", SLUG, "--user", "bench-manager"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=False,
    )
    if proc.returncode != 0:
        raise RuntimeError(f"import failed:\n{proc.stderr[-3000:]}")
    result = json.loads(proc.stdout.strip().splitlines()[-1])
    if not result["ok"]:
        raise RuntimeError(f"import rejected: {result['errors']}")
    created = result["counts"].get("created", 0)
    result["pairs_per_s"] = round(created / result["seconds"]) if result["seconds"] else None
    return result


def database_size() -> str:
    from django.db import connection

    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_size_pretty(pg_database_size(current_database()))")
        return cursor.fetchone()[0]


def vacuum_analyze() -> None:
    from django.db import connection

    with connection.cursor() as cursor:
        cursor.execute("VACUUM (ANALYZE)")


def main() -> None:
    django_setup()
    from annotation.importers import import_jsonl
    from annotation.models import Item
    from annotation.synthetic import long_pair, write_jsonl
    from bench.concurrency import submit_next
    from bench.pages import label_page

    n = int(env_number("BENCH_PAIRS", 100_000))
    rounds = int(env_number("BENCH_PAGE_ROUNDS", 200))
    n_annotators = int(env_number("BENCH_ANNOTATORS", 20))
    seconds = env_number("BENCH_CONCURRENT_SECONDS", 15)
    think = env_number("BENCH_THINK_S", 0)
    paced = env_number("BENCH_PACED_THINK_S", 2)
    work = Path(os.environ.get("BENCH_DIR") or tempfile.mkdtemp(prefix="arbiter-bench-"))
    work.mkdir(parents=True, exist_ok=True)
    results: dict = {"machine": machine_info()}
    print(f"Arbiter bench: {n:,} pairs, scratch in {work}", flush=True)

    results["generate"], median_id = generate(n, work / "pairs.jsonl")
    print(f"generated: {results['generate']}", flush=True)
    people = setup(n_annotators)
    project = people["project"]

    results["import"] = import_in_child(work / "pairs.jsonl")
    results["import"]["database_size"] = database_size()
    # Steady state: fresh statistics, as autovacuum would have them a little later.
    vacuum_analyze()
    print(f"imported: {results['import']}", flush=True)
    write_jsonl([long_pair(64, seed=0)], work / "long.jsonl")
    if not import_jsonl(project=project, path=work / "long.jsonl", actor=people["manager"]).ok:
        raise RuntimeError("the 64-turn pair was rejected")

    items = {
        "median_pair": Item.objects.get(project=project, external_id=median_id),
        "turns_64": Item.objects.get(project=project, external_id="long-64-0"),
    }
    results["label_page"] = label_page(project=project, annotator=people["page"], items=items, rounds=rounds)
    for name, item in items.items():
        results["label_page"][name]["turns"] = _turns(item)
    print(f"label page: {results['label_page']}", flush=True)

    results["submit_next"] = runs = {}
    for flow in ("html", "api"):
        # One annotator alone first: the service time without queueing behind the others.
        runs[f"{flow}_single"] = submit_next(
            project=project, annotators=people[f"solo-{flow}"], flow=flow, seconds=min(seconds, 5)
        )
        runs[flow] = submit_next(
            project=project, annotators=people[flow], flow=flow, seconds=seconds, think=think
        )
        # The same annotators with a pause between submits: overlapping, not saturating.
        runs[f"{flow}_paced"] = submit_next(
            project=project, annotators=people[flow], flow=flow, seconds=seconds, think=paced
        )
        for key in (f"{flow}_single", flow, f"{flow}_paced"):
            print(f"submit+next {key}: {runs[key]}", flush=True)

    # The API flow again over real HTTP against gunicorn (bench/http_concurrency.py).
    from django.db import connection
    from rest_framework.authtoken.models import Token

    from bench.http_concurrency import gunicorn, submit_next_http

    http_people = people["http"]
    tokens = [Token.objects.get_or_create(user=user)[0].key for user in http_people]
    connection.close()  # the server's processes take the connections from here
    with gunicorn() as port:
        runs["api_http"] = submit_next_http(port=port, slug=SLUG, tokens=tokens, seconds=seconds, think=think)
        runs["api_http_paced"] = submit_next_http(
            port=port, slug=SLUG, tokens=tokens, seconds=seconds, think=paced
        )
    for key in ("api_http", "api_http_paced"):
        print(f"submit+next {key}: {runs[key]}", flush=True)

    results["machine"]["load_average_at_end"] = [round(x, 2) for x in os.getloadavg()]
    OUT.mkdir(parents=True, exist_ok=True)
    (OUT / "results.json").write_text(json.dumps(results, indent=2) + "\n")
    print()
    print(table(_rows(results)))
    print(f"\nwritten: {OUT / 'results.json'}")


def _turns(item) -> int:
    def count(messages) -> int:
        return sum(1 for m in messages or () if m.get("role") in ("user", "assistant"))

    return count(item.task.context) + max(
        count(item.trajectory_first.messages), count(item.trajectory_second.messages)
    )


def _rows(r: dict) -> list[tuple[str, str, str, str]]:
    def ok(good: bool) -> str:
        return "ok" if good else "MISSED"

    def p50_95(m: dict) -> str:
        return f"{m['p50_ms']} / {m['p95_ms']} ms"

    gen, imp, page, sub = r["generate"], r["import"], r["label_page"], r["submit_next"]
    median, long = page["median_pair"], page["turns_64"]
    n = sub["html"]["annotators"]
    rows = [
        (
            f"generate {gen['pairs']:,} pairs",
            f"{gen['seconds']} s ({gen['pairs_per_s']:,}/s)",
            "< 120 s",
            ok(gen["seconds"] < 120),
        ),
        (
            "import pairs/s",
            f"{imp['pairs_per_s']:,} ({imp['seconds']} s)",
            ">= 1,000/s",
            ok(imp["pairs_per_s"] >= 1000),
        ),
        ("import peak RSS", f"{imp['peak_rss_mb']} MB", "flat", ""),
        (f"label page, median pair ({median['turns']} turns) p50/p95", p50_95(median), "", ""),
        ("label page, 64 turns p50/p95", p50_95(long), "p95 < 150 ms", ok(long["p95_ms"] < 150)),
        (
            "SQL queries per label page (median / 64)",
            f"{median['queries']} / {long['queries']}",
            "equal",
            ok(median["queries"] == long["queries"]),
        ),
        ("submit+next, 1 annotator, page (htmx) p50/p95", p50_95(sub["html_single"]), "", ""),
        ("submit+next, 1 annotator, API p50/p95", p50_95(sub["api_single"]), "", ""),
    ]
    for flow, what in (("html", "page (htmx)"), ("api", "API"), ("api_http", "API over HTTP (gunicorn)")):
        for key, how in (
            (flow, "back to back"),
            (f"{flow}_paced", f"~{sub[f'{flow}_paced']['think_s']:g} s apart"),
        ):
            rows.append(
                (
                    f"submit+next, {n} annotators {how}, {what} p50/p95",
                    p50_95(sub[key]),
                    "p95 < 50 ms",
                    ok(sub[key]["p95_ms"] < 50),
                )
            )
    return rows


if __name__ == "__main__":
    main()
