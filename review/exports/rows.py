"""The one read an export makes: a row per item with its task and trajectories joined in.

Rows, not model instances, and every JSON value as its JSON text: building 100,000
Item/Task/Trajectory objects and decoding every message list costs more than the whole rest of
an export. The interchange records splice that text in unchanged; only what has to be
reshaped (preference messages) or searched (media paths) is decoded, when it is needed.

On PostgreSQL the rows come through a server-side cursor that a helper thread reads ahead, so
the database produces the next chunk while this process writes the current one.
"""

from __future__ import annotations

import json
import queue
import threading
from collections.abc import Iterator
from typing import Any, NamedTuple

from django.db import connections
from django.db.models import IntegerField, OuterRef, QuerySet, Subquery, TextField, Value
from django.db.models.fields.json import KeyTextTransform
from django.db.models.functions import Cast, JSONObject

from annotation.models import ChecklistVersion, Item, Trajectory


def loads(text: str | None, default: Any) -> Any:
    # Most small values are empty: those skip the decoder.
    if text is None or text == "null":
        return default
    if text == "[]":
        return []
    if text == "{}":
        return {}
    return json.loads(text)


class Row(NamedTuple):
    id: int
    kind: str
    external_id: str
    stratum: str
    meta_text: str | None
    payload_text: str | None
    gold_text: str | None
    settled_text: str | None
    task_id: int | None
    task_hash: str | None
    instruction: str | None
    website: str | None
    start_url: str | None
    difficulty: str | None
    environment: str | None
    task_media_text: str | None
    task_metadata_text: str | None
    tool_env_id: int | None
    context_text: str | None
    first_text: str | None
    first_source_text: str | None
    second_text: str | None
    second_source_text: str | None
    # Only filled for the kinds that need them (see kind_columns), None otherwise.
    first_id: int | None = None
    first_version: int | None = None
    # The trace correction the settled label names: {id, messages, source, version, parent,
    # parent_version, edit_reasons} as JSON text.
    corrected_text: str | None = None
    # The checklist version the settled step label names: its items as JSON text.
    checklist_text: str | None = None

    @property
    def meta(self) -> dict:
        return loads(self.meta_text, {})

    @property
    def payload(self) -> dict:
        return loads(self.payload_text, {})

    @property
    def gold(self) -> dict:
        return loads(self.gold_text, {})

    @property
    def settled_label(self) -> dict:
        return loads(self.settled_text, {})

    @property
    def task_media(self) -> list:
        return loads(self.task_media_text, [])

    @property
    def task_metadata(self) -> dict:
        return loads(self.task_metadata_text, {})

    @property
    def context(self) -> list:
        return loads(self.context_text, [])

    def messages(self, side: str) -> list:
        return loads(self.first_text if side == "first" else self.second_text, [])

    def source(self, side: str) -> dict:
        return loads(self.first_source_text if side == "first" else self.second_source_text, {})

    @property
    def corrected(self) -> dict | None:
        return loads(self.corrected_text, None)

    @property
    def settled_checklist(self) -> list | None:
        return loads(self.checklist_text, None)

    def texts(self, side: str) -> tuple[str, str]:
        """(messages, source) of one trajectory as JSON text."""
        if side == "first":
            return self.first_text or "[]", self.first_source_text or "{}"
        return self.second_text or "[]", self.second_source_text or "{}"


def _text(field: str) -> Cast:
    return Cast(field, output_field=TextField())


COLUMNS = (
    "id",
    "kind",
    "external_id",
    "stratum",
    _text("meta"),
    _text("payload"),
    _text("gold"),
    _text("settled_label"),
    "task_id",
    "task__content_hash",
    "task__instruction",
    "task__website",
    "task__start_url",
    "task__difficulty",
    "task__environment",
    _text("task__media"),
    _text("task__metadata"),
    "task__tool_env_id",
    _text("task__context"),
    _text("trajectory_first__messages"),
    _text("trajectory_first__source"),
    _text("trajectory_second__messages"),
    _text("trajectory_second__source"),
)


def _label_int(key: str) -> Cast:
    # A key of the outer item's settled label. Label schemas make these integers; the cast
    # lets the lookup use the primary key index.
    return Cast(KeyTextTransform(key, OuterRef("settled_label")), output_field=IntegerField())


def _corrected() -> Cast:
    """The corrected trajectory of a settled trace label, in the same read (one subquery, one
    JSON object): a lookup per item would stop the streaming cursor."""
    trajectory = Trajectory.objects.filter(
        pk=_label_int("corrected_trajectory"), project=OuterRef("project_id")
    ).values(
        data=JSONObject(
            id="id",
            messages="messages",
            source="source",
            version="version",
            parent="parent_id",
            parent_version="parent__version",
            edit_reasons="edit_reasons",
        )
    )[:1]
    return Cast(Subquery(trajectory), output_field=TextField())


def _settled_checklist() -> Cast:
    version = ChecklistVersion.objects.filter(
        item=OuterRef("pk"), version=_label_int("checklist_version")
    ).values("items")[:1]
    return Cast(Subquery(version), output_field=TextField())


_NONE = Value(None, output_field=TextField())
_EXTRA = len(Row._fields) - len(COLUMNS)
assert _EXTRA == 4


def kind_columns(kind: str | None) -> tuple:
    """COLUMNS plus the extra columns of one kind (the others read as None)."""
    if kind == "trace":
        extra = ("trajectory_first_id", "trajectory_first__version", _corrected(), _NONE)
    elif kind == "step":
        extra = (_NONE, _NONE, _NONE, _settled_checklist())
    else:
        extra = (_NONE,) * _EXTRA
    return (*COLUMNS, *extra)


def item_rows(items: QuerySet[Item], chunk_size: int, kind: str | None = None) -> Iterator[Row]:
    """The rows of `items` (its filters and order), streamed. Call it inside a transaction:
    on PostgreSQL the server-side cursor lives as long as the transaction. `kind` adds the
    columns only that kind needs."""
    rows = items.values_list(*kind_columns(kind))
    connection = connections[rows.db]
    if connection.vendor != "postgresql" or not connection.in_atomic_block:
        for values in rows.iterator(chunk_size=chunk_size):
            yield Row._make(values)
        return
    # Every column is a plain value (JSON comes as text), so the raw rows need no converters.
    sql, params = rows.query.get_compiler(using=rows.db).as_sql()
    with connection.chunked_cursor() as cursor:
        cursor.execute(sql, params)
        for values in _read_ahead(cursor.cursor, chunk_size):
            yield Row._make(values)


_DONE = object()


def _read_ahead(cursor, chunk_size: int) -> Iterator[tuple]:
    """Rows of an executed psycopg cursor; a thread fetches the next chunk meanwhile (the
    connection is not used by this thread until the iteration ends)."""
    chunks: queue.Queue = queue.Queue(maxsize=1)
    stop = threading.Event()

    def fetch() -> None:
        try:
            while not stop.is_set():
                chunk = cursor.fetchmany(chunk_size)
                chunks.put(chunk or _DONE)
                if not chunk:
                    return
        except BaseException as exc:  # handed to the reading thread
            chunks.put(exc)

    reader = threading.Thread(target=fetch, name="export-read-ahead", daemon=True)
    reader.start()
    try:
        while True:
            chunk = chunks.get()
            if chunk is _DONE:
                return
            if isinstance(chunk, BaseException):
                raise chunk
            yield from chunk
    finally:
        stop.set()
        while reader.is_alive():  # let a fetch in progress finish before the cursor closes
            try:
                chunks.get_nowait()
            except queue.Empty:
                reader.join(timeout=0.05)
