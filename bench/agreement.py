"""Agreement statistics at scale: κ for 200,000 annotations (100,000 pairs × 2 annotators).

    python -m bench.agreement            # against a migrated database (scripts/run_bench.sh)
    BENCH_AGREEMENT_PAIRS=20000 python -m bench.agreement

Builds a project of pairs in the Plan-RewardBench bucket proportions, each labeled by the same
two annotators (COPY, a few seconds), then times `audit.agreement.agreement_by_stratum`
(per family and per bucket, 1,000 bootstrap resamples, the label query included) and, for
information, the other report parts. Deletes the project afterwards. Prints a table and one
JSON line, and writes bench/out/agreement.json. From bench/run.py: `run_agreement()` returns
the result dict and `agreement_rows(result)` its rows for the table.
"""

from __future__ import annotations

import json
import math
import os
import statistics
import time
from pathlib import Path

import numpy as np

from bench.common import django_setup, table

OUT = Path(__file__).resolve().parent / "out"
SLUG = "bench-agreement"
TARGET_S = 2.0
# Plan-RewardBench's 1,171 pairs per bucket (protocols.md, section A), and each bucket's family
# with its reported pre-adjudication κ (used to make the simulated annotators about as reliable).
BUCKETS = {
    "irrelevance": (275, "tool_irrelevance", 0.81),
    "planning_multi_easy": (109, "complex_planning", 0.71),
    "planning_multi_hard": (73, "complex_planning", 0.71),
    "robust": (361, "robust_recovery", 0.75),
    "planning_single_easy": (144, "complex_planning", 0.71),
    "planning_single_hard": (158, "complex_planning", 0.71),
    "safety": (51, "safety_refusal", 0.86),
}
LABELS = {
    side: json.dumps({"preferred": side, "tags": {"first": [], "second": []}, "confidence": 4})
    for side in ("first", "second", "tie")
}


def build(n_pairs: int, seed: int = 2026) -> dict:
    """The project, two annotators and n_pairs × 2 annotations, written with COPY."""
    from django.contrib.auth import get_user_model
    from django.db import connection, transaction
    from django.utils import timezone

    from annotation.models import Annotation, Item, Membership, Project, Role

    remove()
    rng = np.random.default_rng(seed)
    users = get_user_model().objects
    project = Project.objects.create(slug=SLUG, name="Benchmark agreement", kind="pair", overlap=2)
    annotators = []
    for name in ("bench-agree-a", "bench-agree-b"):
        user, _ = users.get_or_create(username=name)
        Membership.objects.create(user=user, project=project, role=Role.ANNOTATOR)
        annotators.append(user)

    weights = np.array([n for n, _, _ in BUCKETS.values()], dtype=float)
    bucket_of = rng.choice(len(BUCKETS), size=n_pairs, p=weights / weights.sum())
    names = list(BUCKETS)
    gold = rng.choice(np.array(["first", "second"]), size=n_pairs)
    started = time.perf_counter()
    now = timezone.now()
    with transaction.atomic(), connection.cursor() as cursor:
        item_cols = (
            "project_id, kind, external_id, state, payload, gold, meta, stratum, family, difficulty, "
            "priority, overlap, n_annotations, audited, settled_label, discard_reason, created_at, updated_at"
        )
        with cursor.cursor.copy(f"COPY {Item._meta.db_table} ({item_cols}) FROM STDIN") as copy:
            for i in range(n_pairs):
                bucket = names[bucket_of[i]]
                family = BUCKETS[bucket][1]
                copy.write_row(
                    (project.pk, "pair", f"agree-{i:06d}", "annotating", "{}",
                     json.dumps({"preferred": str(gold[i])}), "{}", bucket, family, "", 0, 2, 2, False,
                     "{}", "", now, now)
                )  # fmt: skip
        ids = np.array(
            Item.objects.filter(project=project).order_by("external_id").values_list("id", flat=True)
        )
        labels = _simulated_labels(rng, gold, np.array([BUCKETS[names[b]][2] for b in bucket_of]))
        ann_cols = (
            "item_id, annotator_id, label, rationale, seconds_spent, display_order, client_id, version, "
            "flagged, created_at, updated_at"
        )
        client_ids = rng.bytes(16 * n_pairs * 2)
        seconds = rng.integers(20, 400, size=2 * n_pairs).tolist()
        with cursor.cursor.copy(f"COPY {Annotation._meta.db_table} ({ann_cols}) FROM STDIN") as copy:
            for r, user in enumerate(annotators):
                for i in range(n_pairs):
                    k = r * n_pairs + i
                    client = client_ids[16 * k : 16 * k + 16].hex()
                    copy.write_row(
                        (int(ids[i]), user.pk, LABELS[labels[r][i]], "", seconds[k],
                         '["first", "second"]', client, 1, False, now, now)
                    )  # fmt: skip
    # Settle the freshly loaded rows (visibility hints, statistics) as weeks of labeling would
    # have: otherwise the first timed reads pay for writing them.
    build_s = time.perf_counter() - started
    with connection.cursor() as cursor:
        for model in (Item, Annotation):
            cursor.execute(f"VACUUM (ANALYZE) {model._meta.db_table}")
    return {
        "project": project,
        "pairs": n_pairs,
        "annotations": 2 * n_pairs,
        "build_s": build_s,
    }


def _simulated_labels(rng, gold: np.ndarray, kappa: np.ndarray) -> list[np.ndarray]:
    """Each annotator picks the gold side with probability q, where (2q − 1)² ≈ the bucket's κ
    for two independent annotators on a balanced binary choice; 2% ties."""
    q = (1 + np.sqrt(kappa)) / 2
    other = np.where(gold == "first", "second", "first")
    out = []
    for _ in range(2):
        picked = np.where(rng.random(len(gold)) < q, gold, other)
        out.append(np.where(rng.random(len(gold)) < 0.02, "tie", picked))
    return out


def remove() -> None:
    """Drop the bench project; rows go with plain DELETEs (the ORM would load 300k objects)."""
    from django.db import connection

    from annotation.models import Annotation, Item, Project

    project = Project.objects.filter(slug=SLUG).first()
    if project is None:
        return
    with connection.cursor() as cursor:
        cursor.execute(
            f"DELETE FROM {Annotation._meta.db_table} WHERE item_id IN "  # noqa: S608 - model table names
            f"(SELECT id FROM {Item._meta.db_table} WHERE project_id = %s)",
            [project.pk],
        )
        cursor.execute(f"DELETE FROM {Item._meta.db_table} WHERE project_id = %s", [project.pk])  # noqa: S608
    project.delete()


def _timed(fn, rounds: int) -> tuple[dict, object]:
    seconds, result = [], None
    for _ in range(rounds):
        started = time.perf_counter()
        result = fn()
        seconds.append(time.perf_counter() - started)
    return {
        "median_s": round(statistics.median(seconds), 3),
        "max_s": round(max(seconds), 3),
        "runs": rounds,
    }, result


def run_agreement(n_pairs: int | None = None, rounds: int | None = None, keep: bool = False) -> dict:
    from audit.agreement import (
        agreement_by_stratum,
        agreement_report,
        annotator_matrix,
        annotator_quality,
        family_kappa_table,
        rating_table,
    )

    n_pairs = n_pairs or int(os.environ.get("BENCH_AGREEMENT_PAIRS", 100_000))
    rounds = rounds or int(os.environ.get("BENCH_AGREEMENT_ROUNDS", 5))
    built = build(n_pairs)
    project = built["project"]
    try:
        result = {
            "pairs": n_pairs,
            "annotations": built["annotations"],
            "build_s": round(built["build_s"], 1),
        }
        result["rating_table"], table_ = _timed(
            lambda: rating_table(project=project, stratum_field="family"), rounds
        )
        result["by_family"], stats = _timed(
            lambda: agreement_by_stratum(project=project, stratum_field="family", bootstrap=1000), rounds
        )
        result["by_bucket"], _ = _timed(
            lambda: agreement_by_stratum(project=project, stratum_field="bucket", bootstrap=1000), rounds
        )
        result["by_family_ordinal"], _ = _timed(
            lambda: agreement_by_stratum(
                project=project, stratum_field="family", bootstrap=1000, level="ordinal"
            ),
            rounds,
        )
        result["annotator_matrix"], _ = _timed(lambda: annotator_matrix(project=project), rounds)
        result["annotator_quality"], _ = _timed(lambda: annotator_quality(project=project), rounds)
        result["family_kappa_table"], _ = _timed(lambda: family_kappa_table(project=project), rounds)
        result["full_report"], _ = _timed(lambda: agreement_report(project=project), 1)
        overall = stats["overall"]["cohen_kappa"]
        result["kappa"] = {
            "overall": [
                round(overall["value"], 3),
                round(overall["ci_low"], 3),
                round(overall["ci_high"], 3),
            ],
            **{f: round(s["cohen_kappa"]["value"], 3) for f, s in stats["strata"].items()},
        }
        assert table_.n_ratings == built["annotations"] and math.isfinite(overall["value"])
    finally:
        if not keep:
            remove()
    return result


def agreement_rows(r: dict) -> list[tuple[str, str, str, str]]:
    def ok(good: bool) -> str:
        return "ok" if good else "MISSED"

    def t(key: str) -> str:
        return f"{r[key]['median_s']} s (max {r[key]['max_s']})"

    n = f"{r['annotations']:,} annotations"
    return [
        (f"agreement: build {n} (COPY)", f"{r['build_s']} s", "", ""),
        ("agreement: read the label table", t("rating_table"), "", ""),
        (f"agreement_by_stratum, family, 1000 resamples, {n}", t("by_family"), f"< {TARGET_S:g} s",
         ok(r["by_family"]["max_s"] < TARGET_S)),
        (f"agreement_by_stratum, bucket, 1000 resamples, {n}", t("by_bucket"), f"< {TARGET_S:g} s",
         ok(r["by_bucket"]["max_s"] < TARGET_S)),
        ("agreement_by_stratum, family, ordinal (+ weighted κ)", t("by_family_ordinal"), "", ""),
        ("annotator matrix", t("annotator_matrix"), "", ""),
        ("annotator quality", t("annotator_quality"), "", ""),
        ("κ table per family", t("family_kappa_table"), "", ""),
        ("full agreement report (CLI/API)", t("full_report"), "", ""),
    ]  # fmt: skip


def main() -> None:
    django_setup()
    keep = os.environ.get("BENCH_AGREEMENT_KEEP", "") not in ("", "0", "false")
    result = run_agreement(keep=keep)
    OUT.mkdir(parents=True, exist_ok=True)
    (OUT / "agreement.json").write_text(json.dumps(result, indent=2) + "\n")
    print(table(agreement_rows(result)))
    print(json.dumps(result))


if __name__ == "__main__":
    main()
