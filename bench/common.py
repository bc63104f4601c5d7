"""Shared helpers: Django setup, timing statistics, the result table."""

from __future__ import annotations

import os
import resource
import statistics
from collections.abc import Sequence


def django_setup() -> None:
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
    # Work the queue and imports in-process, as the tests do; no worker is part of these numbers.
    os.environ.setdefault("CELERY_TASK_ALWAYS_EAGER", "true")
    import django

    django.setup()


def peak_rss_mb() -> float:
    """Peak resident set size of this process so far (Linux reports KiB)."""
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def percentile(values: Sequence[float], q: float) -> float:
    """Nearest-rank percentile (q in 0..100) of a non-empty sample."""
    ordered = sorted(values)
    rank = max(1, min(len(ordered), round(q / 100 * len(ordered) + 0.5)))
    return ordered[rank - 1]


def summary_ms(seconds: Sequence[float]) -> dict[str, float]:
    ms = [s * 1000 for s in seconds]
    return {
        "n": len(ms),
        "p50_ms": round(statistics.median(ms), 2),
        "p95_ms": round(percentile(ms, 95), 2),
        "p99_ms": round(percentile(ms, 99), 2),
        "max_ms": round(max(ms), 2),
        "mean_ms": round(statistics.fmean(ms), 2),
    }


def table(rows: list[tuple[str, str, str, str]]) -> str:
    """Measurement | value | target | verdict, aligned for a terminal."""
    header = ("measurement", "value", "target", "")
    widths = [max(len(str(r[i])) for r in [header, *rows]) for i in range(4)]
    line = "  ".join(f"{{:<{w}}}" for w in widths)
    out = [line.format(*header), line.format(*("-" * w for w in widths))]
    out += [line.format(*map(str, r)) for r in rows]
    return "\n".join(out)


def run_annotators(work, n: int, *, think: float, what: str) -> dict:
    """Run `work(i) -> list[seconds]` for annotators 0..n-1 in threads at once; the summary of all
    their submit+next times. `work` raises to report a failure, returns [] when it had no work."""
    import threading
    import time

    per_thread: list[list[float]] = [[] for _ in range(n)]
    failures: list[str] = []

    def run(i: int) -> None:
        try:
            per_thread[i] = work(i)
        except Exception as exc:  # noqa: BLE001 - reported with the results, not swallowed
            failures.append(f"annotator {i}: {exc!r}")

    threads = [threading.Thread(target=run, args=(i,)) for i in range(n)]
    started = time.perf_counter()
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    wall = time.perf_counter() - started
    times = [t for ts in per_thread for t in ts]
    if failures or not times:
        raise RuntimeError(f"{what} failed: " + "; ".join(failures[:5] or ["no iterations"]))
    return {
        **summary_ms(times),
        "annotators": n,
        "iterations_per_s": round(len(times) / wall, 1),
        "think_s": think,
        "seconds": round(wall, 1),
    }
