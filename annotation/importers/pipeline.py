"""`import_jsonl`: one streaming pass over a JSONL file that validates every line and writes
valid records in batches inside one transaction, rolled back when any line is bad.

Writing stops at the first bad line; validation goes on to the end so that every bad line is
reported. The file is read line by line (never whole), batches are bounded in records and
bytes, and the per-file caches hold ids and hashes only, so memory stays flat on big files.
"""

from __future__ import annotations

import codecs
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

from django.db import transaction

from annotation.models import Project, ToolEnv
from review.lifecycle import audit_log_write

from .adapters import AdapterError, tool_env_tools
from .checks import schema_problems, semantic_problems, tool_problems, trace_schema_name
from .media import MediaError, MediaStore
from .records import BUILDERS, Env, record_media
from .report import LINE_FIELD, ErrorSink, ImportReport
from .schemas import ALL_KINDS
from .writer import BatchWriter

ProgressCallback = Callable[[int, int], None]  # (lines read, bytes read)
PROGRESS_EVERY = 1000


class _Rollback(Exception):
    pass


def _has_nul(value: Any) -> bool:
    """PostgreSQL's jsonb refuses \\u0000 in strings (and keys)."""
    if isinstance(value, str):
        return "\x00" in value
    if isinstance(value, dict):
        return any(_has_nul(k) or _has_nul(v) for k, v in value.items())
    if isinstance(value, list):
        return any(_has_nul(v) for v in value)
    return False


def import_jsonl(
    *,
    project: Project,
    path: str | Path,
    actor,
    media_dir: str | Path | None = None,
    replace: bool = False,
    on_progress: ProgressCallback | None = None,
) -> ImportReport:
    """Import one JSONL file into `project`, all or nothing. See the package docstring."""
    path = Path(path)
    if not path.is_file():
        return ImportReport(
            ok=False, errors=[{"line": 0, "field": "", "reason": f"{path} is not a readable file"}]
        )
    media = MediaStore(
        slug=project.slug,
        source_dir=Path(media_dir) if media_dir else path.parent,
        explicit=media_dir is not None,
    )
    run = _Run(project=project, replace=replace, media=media, on_progress=on_progress)
    try:
        with transaction.atomic():
            run.execute(path)
            if run.sink:
                raise _Rollback
            audit_log_write(
                project_id=project.pk,
                actor=actor,
                action="import",
                reason=path.name,
                data={
                    "file": path.name,
                    "replace": replace,
                    "counts": run.counts(),
                    "duplicates": run.writer.duplicates[:100],
                    "replaced": run.writer.replaced[:100],
                },
            )
    except _Rollback:
        media.discard()
        return ImportReport(ok=False, errors=run.sink.listed(), lines_read=run.lines_read)
    except BaseException:
        media.discard()
        raise
    return ImportReport(
        ok=True, counts=run.counts(), duplicates=list(run.writer.duplicates), lines_read=run.lines_read
    )


class _Run:
    def __init__(
        self, *, project: Project, replace: bool, media: MediaStore, on_progress: ProgressCallback | None
    ):
        self.project = project
        self.replace = replace
        self.media = media
        self.on_progress = on_progress
        self.sink = ErrorSink()
        self.writer = BatchWriter(project=project, replace=replace)
        self.lines_read = 0
        self.records = 0
        self.env_counts = {"tool_envs": 0, "tool_envs_existing": 0, "tool_envs_replaced": 0}
        self.envs: dict[str, Env] = {}
        self.envs_in_file: dict[str, tuple[int, list]] = {}  # name → (line, tools) defined here
        self.seen_ids: dict[str, int] = {}  # record id → line, for duplicates inside the file

    def counts(self) -> dict[str, int]:
        return {
            "records": self.records,
            **self.writer.counts,
            **self.env_counts,
            "media": len(self.media.copied),
        }

    def execute(self, path: Path) -> None:
        # Imports into one project queue up here, so duplicate checks see each other's rows.
        # NO KEY UPDATE: rows that merely point at the project (audit log, leases) never wait.
        list(Project.objects.select_for_update(no_key=True).filter(pk=self.project.pk).values_list("pk"))
        self.envs = {name: Env(pk, name) for pk, name in self.project.tool_envs.values_list("pk", "name")}
        bytes_read = 0
        with path.open("rb") as fh:
            for lineno, raw in enumerate(fh, 1):
                bytes_read += len(raw)
                self.lines_read = lineno
                self.line(lineno, raw)
                if self.on_progress and lineno % PROGRESS_EVERY == 0:
                    self.on_progress(lineno, bytes_read)
        if not self.sink:
            self.writer.flush()
        if not self.sink and not self.records and not any(self.env_counts.values()):
            self.sink.add(0, "", "the file holds no records")
        if self.on_progress:
            self.on_progress(self.lines_read, bytes_read)

    def line(self, lineno: int, raw: bytes) -> None:
        if lineno == 1 and raw.startswith(codecs.BOM_UTF8):
            raw = raw[len(codecs.BOM_UTF8) :]
        raw = raw.strip()
        if not raw:
            return
        try:
            record = json.loads(raw)
        except json.JSONDecodeError as exc:
            self.sink.add(lineno, LINE_FIELD, f"not valid JSON at column {exc.colno}: {exc.msg}")
            return
        except ValueError as exc:  # bytes that are not UTF-8
            self.sink.add(lineno, LINE_FIELD, f"not valid UTF-8 text: {exc}")
            return
        if not isinstance(record, dict):
            self.sink.add(lineno, LINE_FIELD, "a line must hold one JSON object")
            return
        if b"\\u0000" in raw and _has_nul(record):
            self.sink.add(lineno, LINE_FIELD, "holds a NUL character (\\u0000), which cannot be stored")
            return
        kind = record.get("kind")
        if kind not in ALL_KINDS:
            reason = (
                "is required"
                if "kind" not in record
                else f"unknown kind {kind!r}; use one of {', '.join(ALL_KINDS)}"
            )
            self.sink.add(lineno, "kind", reason)
            return
        if kind != "tool_env" and kind != self.project.kind:
            self.sink.add(lineno, "kind", f"this project holds {self.project.kind} records, not {kind}")
            return
        problems = schema_problems(trace_schema_name(record) if kind == "trace" else kind, record)
        if not problems:
            problems = list(semantic_problems(kind, record))
        record_id = record.get("id")
        if kind != "tool_env" and isinstance(record_id, str):
            if record_id in self.seen_ids:
                problems.append(
                    ("id", f"duplicate id {record_id!r} (first on line {self.seen_ids[record_id]})")
                )
            else:
                self.seen_ids[record_id] = lineno
        for field_path, reason in problems:
            self.sink.add(lineno, field_path, reason)
        if problems:
            return
        if kind == "tool_env":
            self.tool_env_line(lineno, record)
        else:
            self.record(lineno, kind, record, len(raw))

    def register_env(self, lineno: int, name: str, tools: list, where: str) -> Env | None:
        """A new environment (from a tool_env line or embedded in a record); None when bad."""
        problems = list(tool_problems(tools, where))
        converted: list[dict] = []
        try:
            converted = tool_env_tools(tools, where)
        except AdapterError as exc:
            problems.append((exc.field, exc.reason))
        for field_path, reason in problems:
            self.sink.add(lineno, field_path, reason)
        if problems:
            return None
        # After a bad line nothing is written, but later lines may still name this environment.
        env_id = (
            None if self.sink else ToolEnv.objects.create(project=self.project, name=name, tools=converted).pk
        )
        self.envs[name] = Env(env_id, name)
        self.envs_in_file[name] = (lineno, converted)
        self.env_counts["tool_envs"] += 1
        return self.envs[name]

    def tool_env_line(self, lineno: int, record: dict) -> None:
        name = record["id"]
        if name not in self.envs:
            self.register_env(lineno, name, record["tools"], "tools")
            return
        try:
            converted = tool_env_tools(record["tools"])
        except AdapterError as exc:
            self.sink.add(lineno, exc.field, exc.reason)
            return
        if name in self.envs_in_file:
            first_line, tools = self.envs_in_file[name]
            if tools != converted:
                self.sink.add(
                    lineno, "id", f"tool environment {name!r} is defined differently on line {first_line}"
                )
            return
        self.envs_in_file[name] = (lineno, converted)
        # Registered by an earlier import: kept as is unless --replace.
        self.env_counts["tool_envs_existing"] += 1
        if self.replace and not self.sink:
            stored = ToolEnv.objects.get(project=self.project, name=name)
            if stored.tools != converted:
                stored.tools = converted
                stored.save(update_fields=["tools"])
                self.env_counts["tool_envs_replaced"] += 1

    def record(self, lineno: int, kind: str, record: dict, size: int) -> None:
        ref: Any = record.get("tool_env")
        env = None
        if isinstance(ref, str):
            env = self.envs.get(ref)
            if env is None:
                self.sink.add(
                    lineno, "tool_env", f"unknown tool environment {ref!r}; import its tool_env line first"
                )
                return
        elif isinstance(ref, dict):
            env = self.envs.get(ref["id"]) or self.register_env(
                lineno, ref["id"], ref["tools"], "tool_env.tools"
            )
            if env is None:
                return
        media, bad = [], False
        for field_path, media_path in record_media(kind, record):
            try:
                media.append(self.media.check(media_path))
            except MediaError as exc:
                self.sink.add(lineno, field_path, str(exc))
                bad = True
        if bad:
            return
        prepared = BUILDERS[kind](record, env)
        self.records += 1
        if self.sink:
            return  # validating only, from the first bad line on
        for rel in media:
            self.media.copy(rel)
        prepared.size = size
        self.writer.add(prepared)
