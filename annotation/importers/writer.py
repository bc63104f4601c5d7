"""Batched writes of prepared records: tasks (deduplicated by content hash), trajectories and
items with bulk_create, duplicates skipped or (with replace) rewritten in place."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from django.db import DEFAULT_DB_ALIAS, connections
from django.db.backends.base.base import BaseDatabaseWrapper
from django.db.models import Exists, Field, JSONField, Model, OuterRef
from django.utils import timezone

from annotation.models import Annotation, Item, Project, Task, Trajectory
from annotation.trajectory_stats import trajectory_stats

from .records import Prepared
from .report import MAX_LISTED_DUPLICATES

BATCH_RECORDS = 500
BATCH_BYTES = 4 * 1024 * 1024  # flush early when lines are big, to keep memory flat
TASK_CACHE_LIMIT = 50_000


def _db_value(field: Field, conn: BaseDatabaseWrapper) -> Callable[[Model], Any]:
    if isinstance(field, JSONField):
        # COPY takes JSON as text; dumping it here skips a per-value adapter object.
        return lambda obj: json.dumps(field.get_prep_value(getattr(obj, field.attname)), cls=field.encoder)
    # pre_save fills auto_now_add stamps; get_db_prep_save adapts values like the ORM does.
    return lambda obj: field.get_db_prep_save(field.pre_save(obj, True), conn)


def insert_rows(objs: list[Model]) -> None:
    """bulk_create, but on PostgreSQL through COPY: several times faster for rows holding
    big JSON (bulk_create quotes each value in Python). Ids are taken from the table's sequence
    first, so the objects have their pks afterwards either way."""
    if not objs:
        return
    model = type(objs[0])
    conn = connections[DEFAULT_DB_ALIAS]
    if conn.vendor != "postgresql":
        model.objects.bulk_create(objs)
        return
    meta = model._meta
    fields = list(meta.concrete_fields)
    values = [_db_value(f, conn) for f in fields]
    quote = conn.ops.quote_name
    with conn.cursor() as cursor:
        cursor.execute(
            "SELECT nextval(pg_get_serial_sequence(%s, %s)) FROM generate_series(1, %s)",
            [meta.db_table, meta.pk.column, len(objs)],
        )
        for obj, (pk,) in zip(objs, cursor.fetchall(), strict=True):
            obj.pk = pk
        columns = ", ".join(quote(f.column) for f in fields)
        with cursor.cursor.copy(f"COPY {quote(meta.db_table)} ({columns}) FROM STDIN") as copy:
            for obj in objs:
                copy.write_row([value(obj) for value in values])
    for obj in objs:
        obj._state.adding = False
        obj._state.db = conn.alias


class BatchWriter:
    def __init__(self, *, project: Project, replace: bool):
        self.project = project
        self.replace = replace
        self.pending: list[Prepared] = []
        self.pending_bytes = 0
        self.task_ids: dict[str, int] = {}  # content hash → Task id, for this file
        self.counts = {"created": 0, "duplicates": 0, "replaced": 0, "tasks": 0, "trajectories": 0}
        self.duplicates: list[str] = []
        self.replaced: list[str] = []

    def add(self, prepared: Prepared) -> None:
        self.pending.append(prepared)
        self.pending_bytes += prepared.size
        if len(self.pending) >= BATCH_RECORDS or self.pending_bytes >= BATCH_BYTES:
            self.flush()

    def flush(self) -> None:
        batch, self.pending, self.pending_bytes = self.pending, [], 0
        if not batch:
            return
        existing = self._existing([p.external_id for p in batch])
        fresh: list[Prepared] = []
        rewrite: list[tuple[int, Prepared]] = []
        for prepared in batch:
            found = existing.get(prepared.external_id)
            if found is None:
                fresh.append(prepared)
            elif self.replace and not found[1]:
                rewrite.append((found[0], prepared))
            else:
                self.counts["duplicates"] += 1
                if len(self.duplicates) < MAX_LISTED_DUPLICATES:
                    self.duplicates.append(prepared.external_id)
        self._resolve_tasks([*fresh, *(p for _, p in rewrite)])
        trajectory_ids = self._write_trajectories([*fresh, *(p for _, p in rewrite)])
        items = [
            Item(
                project=self.project,
                kind=p.kind,
                external_id=p.external_id,
                overlap=self.project.overlap,
                **self._item_fields(p, trajectory_ids),
            )
            for p in fresh
        ]
        insert_rows(items)
        self.counts["created"] += len(items)
        for item_id, prepared in rewrite:
            self._rewrite(item_id, prepared, trajectory_ids)

    def _existing(self, external_ids: list[str]) -> dict[str, tuple[int, bool]]:
        annotated = Annotation.objects.filter(item=OuterRef("pk"))
        rows = (
            Item.objects.filter(project=self.project, external_id__in=external_ids)
            .annotate(annotated=Exists(annotated))
            .values_list("external_id", "pk", "annotated")
        )
        return {external_id: (pk, annotated) for external_id, pk, annotated in rows}

    def _resolve_tasks(self, batch: list[Prepared]) -> None:
        # Clear before deciding what this batch needs, so every task the batch refers to is
        # looked up again: bounded memory, and a miss only costs one query.
        if len(self.task_ids) > TASK_CACHE_LIMIT:
            self.task_ids.clear()
        wanted = {
            p.task["content_hash"]: p.task for p in batch if p.task["content_hash"] not in self.task_ids
        }
        if not wanted:
            return
        found = Task.objects.filter(project=self.project, content_hash__in=list(wanted)).values_list(
            "content_hash", "pk"
        )
        self.task_ids.update(found)
        new = [Task(project=self.project, **fields) for h, fields in wanted.items() if h not in self.task_ids]
        insert_rows(new)
        self.task_ids.update((task.content_hash, task.pk) for task in new)
        self.counts["tasks"] += len(new)

    def _write_trajectories(self, batch: list[Prepared]) -> dict[int, list[int]]:
        """id(prepared) → the new trajectory ids, in the record's order."""
        rows: list[Trajectory] = []
        owners: list[int] = []
        for prepared in batch:
            task_id = self.task_ids[prepared.task["content_hash"]]
            for messages, source in prepared.trajectories:
                rows.append(
                    Trajectory(
                        project=self.project,
                        task_id=task_id,
                        messages=messages,
                        source=source,
                        **trajectory_stats(messages),
                    )
                )
                owners.append(id(prepared))
        insert_rows(rows)
        self.counts["trajectories"] += len(rows)
        out: dict[int, list[int]] = {}
        for owner, row in zip(owners, rows, strict=True):
            out.setdefault(owner, []).append(row.pk)
        return out

    def _item_fields(self, prepared: Prepared, trajectory_ids: dict[int, list[int]]) -> dict[str, Any]:
        ids = trajectory_ids.get(id(prepared), [])
        return {
            "task_id": self.task_ids[prepared.task["content_hash"]],
            "trajectory_first_id": ids[0] if ids else None,
            "trajectory_second_id": ids[1] if len(ids) > 1 else None,
            **prepared.item,
        }

    def _rewrite(self, item_id: int, prepared: Prepared, trajectory_ids: dict[int, list[int]]) -> None:
        """--replace: new content in the same item row (its id and history stay)."""
        old = Item.objects.filter(pk=item_id).values_list("trajectory_first_id", "trajectory_second_id").get()
        Item.objects.filter(pk=item_id).update(
            kind=prepared.kind, updated_at=timezone.now(), **self._item_fields(prepared, trajectory_ids)
        )
        stale = [pk for pk in old if pk is not None]
        still_used = set(
            Item.objects.filter(trajectory_first_id__in=stale).values_list("trajectory_first_id", flat=True)
        ) | set(
            Item.objects.filter(trajectory_second_id__in=stale).values_list("trajectory_second_id", flat=True)
        )
        Trajectory.objects.filter(pk__in=[pk for pk in stale if pk not in still_used]).delete()
        self.counts["replaced"] += 1
        if len(self.replaced) < MAX_LISTED_DUPLICATES:
            self.replaced.append(prepared.external_id)
