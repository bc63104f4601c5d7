"""Audit sampling: a manager draws a stratified sample of a project's items for the audit.

Sampled items are annotated by `audit_overlap` people (so agreement can be measured on them),
every other item by one. The draw is deterministic for a seed: items are ordered by
sha256(f"{seed}:{external_id}") and the first k of each stratum are taken. The key depends
only on the seed and the item's external id (unique within a project), never on row ids or
on the order the database returns rows in, so the same seed gives the same sample after a
dump/restore, on another database, or with items of other strata added; adding items to a
stratum only adds or displaces items at their hash position instead of reshuffling it.

Discarded items are not part of the population (agreement leaves them out as well).
Overlap changes only for items still being annotated (new/annotating): settled items
(adjudication, verified, discarded) are never re-opened. An open item's overlap is never set
below the labels it already has plus the live leases on it, so no accepted or in-hand label
is wasted; an item that thereby already has all the labels it now wants is settled at once
through the item lifecycle (review.lifecycle.item_settle), as if its last label had just come in.
"""

from __future__ import annotations

import hashlib
from collections import defaultdict
from dataclasses import dataclass
from decimal import ROUND_HALF_UP, Decimal

from django.db import transaction
from django.db.models import Count
from django.utils import timezone

from annotation.models import Assignment, AssignmentStatus, Item, ItemState, Project
from annotation.models.work import OPEN_STATES
from audit.models import AuditSample
from review.lifecycle import audit_log_write, item_settle

# The stratum fields a sample (and the dashboard) can be drawn by → the Item lookup holding it.
STRATUM_FIELDS: dict[str, str] = {
    "family": "family",
    "bucket": "stratum",  # the importer stores meta.bucket in Item.stratum
    "difficulty": "difficulty",
    "domain": "task__domain",
}
MODES = ("cap", "rate")
MIN_AUDIT_OVERLAP, MAX_AUDIT_OVERLAP = 2, 10
MAX_SEED = 2**63 - 1  # AuditSample.seed is a BigIntegerField
CHUNK = 5000  # ids per UPDATE ... WHERE id IN (...)


class SamplingError(ValueError):
    """A policy that cannot be drawn; nothing was changed."""


@dataclass(frozen=True)
class _Row:
    pk: int
    external_id: str
    stratum: str
    state: str
    n_annotations: int
    overlap: int
    audited: bool


def sample_key(seed: int, external_id: str) -> str:
    return hashlib.sha256(f"{seed}:{external_id}".encode()).hexdigest()


def sample_size(*, population: int, mode: str, cap: int | None, rate: float | None) -> int:
    """Items to take from a stratum of `population`: min(cap, population), or the rate
    rounded half-up (exact decimal arithmetic), at least one from a non-empty stratum."""
    if population == 0:
        return 0
    if mode == "cap":
        return min(int(cap), population)
    k = int((Decimal(str(rate)) * population).quantize(Decimal(1), rounding=ROUND_HALF_UP))
    return min(population, max(1, k))


def validate_policy(
    *, stratum_field: str, mode: str, cap: int | None, rate: float | None, seed: int, audit_overlap: int
) -> None:
    if stratum_field not in STRATUM_FIELDS:
        raise SamplingError(
            f"Unknown stratum field {stratum_field!r}; choose one of {', '.join(STRATUM_FIELDS)}."
        )
    if mode not in MODES:
        raise SamplingError(f"Unknown mode {mode!r}; choose 'cap' (items per stratum) or 'rate'.")
    if mode == "cap" and (cap is None or isinstance(cap, bool) or int(cap) != cap or cap < 1):
        raise SamplingError("The cap must be a whole number of items per stratum, at least 1.")
    if mode == "rate" and (rate is None or not 0 < float(rate) <= 1):
        raise SamplingError("The rate must be a fraction above 0 and at most 1, e.g. 0.1 for 10%.")
    if isinstance(seed, bool) or not isinstance(seed, int) or not 0 <= seed <= MAX_SEED:
        raise SamplingError(f"The seed must be a whole number from 0 to {MAX_SEED}.")
    if not MIN_AUDIT_OVERLAP <= audit_overlap <= MAX_AUDIT_OVERLAP:
        raise SamplingError(
            f"The audit overlap must be from {MIN_AUDIT_OVERLAP} to {MAX_AUDIT_OVERLAP} annotators "
            "per item: agreement needs at least two."
        )


def _population(project: Project, stratum_field: str) -> list[_Row]:
    """Every item except discarded ones, which agreement leaves out too (audit.agreement)."""
    lookup = STRATUM_FIELDS[stratum_field]
    qs = (
        Item.objects.filter(project=project)
        .exclude(state=ItemState.DISCARDED)
        .values_list("id", "external_id", lookup, "state", "n_annotations", "overlap", "audited")
    )
    return [_Row(pk, ext, stratum or "", *rest) for pk, ext, stratum, *rest in qs.iterator(chunk_size=CHUNK)]


def _chunked_update(ids: list[int], **fields) -> int:
    changed = 0
    ids = sorted(ids)
    for start in range(0, len(ids), CHUNK):
        changed += Item.objects.filter(pk__in=ids[start : start + CHUNK]).update(**fields)
    return changed


def _live_leases(project: Project, now) -> dict[int, int]:
    rows = (
        Assignment.objects.filter(item__project=project, status=AssignmentStatus.ACTIVE, expires_at__gt=now)
        .values("item_id")
        .annotate(n=Count("id"))
    )
    return {row["item_id"]: row["n"] for row in rows}


@transaction.atomic
def audit_sample_draw(
    *,
    project: Project,
    actor,
    stratum_field: str = "family",
    mode: str = "cap",
    cap: int | None = 80,
    rate: float | None = None,
    seed: int,
    audit_overlap: int = 2,
) -> AuditSample:
    """Draw (or re-draw, replacing the previous one) the project's stratified audit sample."""
    validate_policy(
        stratum_field=stratum_field, mode=mode, cap=cap, rate=rate, seed=seed, audit_overlap=audit_overlap
    )
    # One draw at a time per project: a concurrent one waits here and then replaces this one.
    project = Project.objects.select_for_update().get(pk=project.pk)
    rows = _population(project, stratum_field)
    if not rows:
        raise SamplingError("This project has no items to sample yet; import some first.")

    strata: dict[str, list[_Row]] = defaultdict(list)
    for row in rows:
        strata[row.stratum].append(row)
    sampled: set[int] = set()
    counts: dict[str, dict[str, int]] = {}
    for name in sorted(strata):
        members = sorted(strata[name], key=lambda r: (sample_key(seed, r.external_id), r.external_id))
        k = sample_size(population=len(members), mode=mode, cap=cap, rate=rate)
        sampled.update(r.pk for r in members[:k])
        counts[name] = {"population": len(members), "sampled": k}

    # Audited flag: only rows whose flag changes are written; discarded items leave the sample.
    now = timezone.now()
    newly_in = [r.pk for r in rows if r.pk in sampled and not r.audited]
    newly_out = [r.pk for r in rows if r.pk not in sampled and r.audited]
    _chunked_update(newly_in, audited=True, updated_at=now)
    _chunked_update(newly_out, audited=False, updated_at=now)
    Item.objects.filter(project=project, audited=True, state=ItemState.DISCARDED).update(
        audited=False, updated_at=now
    )

    # Overlap of open items, grouped by the new value so a few UPDATEs cover 100k items.
    leases = _live_leases(project, now)
    by_overlap: dict[int, list[int]] = defaultdict(list)
    to_settle: list[int] = []
    for r in rows:
        if r.state not in OPEN_STATES:
            continue
        target = audit_overlap if r.pk in sampled else 1
        floor = r.n_annotations + leases.get(r.pk, 0)
        new = max(target, floor)
        if new != r.overlap:
            by_overlap[new].append(r.pk)
            if r.n_annotations and new <= r.n_annotations:
                to_settle.append(r.pk)
    changed = sum(_chunked_update(ids, overlap=value, updated_at=now) for value, ids in by_overlap.items())
    settled = 0
    for item in Item.objects.filter(pk__in=to_settle).order_by("pk").iterator(chunk_size=500):
        item_settle(item=item, actor=actor)
        settled += 1

    policy = {
        "stratum_field": stratum_field,
        "mode": mode,
        "cap": int(cap) if mode == "cap" else None,
        "rate": float(rate) if mode == "rate" else None,
        "audit_overlap": audit_overlap,
    }
    sample = AuditSample.objects.create(
        project=project, created_by=actor, policy=policy, seed=seed, counts=counts
    )
    project.audit_policy = {**policy, "seed": seed, "sample_id": sample.pk}
    project.save(update_fields=["audit_policy"])
    audit_log_write(
        project_id=project.pk,
        actor=actor,
        action="audit_sample",
        reason=f"audit sample by {stratum_field}, seed {seed}",
        data={
            "sample": sample.pk,
            "policy": policy,
            "seed": seed,
            "counts": counts,
            "sampled": len(sampled),
            "population": len(rows),
            "overlap_changed": changed,
            "settled": settled,
        },
    )
    return sample
