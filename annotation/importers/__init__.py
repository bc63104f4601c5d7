"""Import of JSONL records (formats/README.md) into a project.

Entry point::

    import_jsonl(*, project, path, actor, media_dir=None, replace=False, on_progress=None) -> ImportReport

- Every record kind: `pair`, `step`, `trace` (also the native Agent-X shape), `pca`,
  `recording`, `query` (our addition, docs/formats.md), plus `tool_env` lines (typed
  `inputs`/`outputs` registries become JSON Schema).
  Lines of another kind than the project's are errors.
- All or nothing: one transaction; any bad line rolls everything back (and removes media
  copied so far). `ImportReport.errors` lists every bad line as
  {"line": 3, "field": "chosen.messages[0].role", "reason": "..."} (line 0: the file itself).
- Idempotent by record `id`: ids already in the project are counted as duplicates and left
  alone; with `replace=True` an item without annotations gets the new content in place.
- Media named by records (`media/x.png`, relative to the file, or to `media_dir`) are copied to
  MEDIA_ROOT/projects/<slug>/<path>; a missing file or an unsafe path is an error of its line.
- Streams: the file is read line by line and written in bounded batches.
- `on_progress(lines_read, bytes_read)` is called every 1,000 lines and at the end.
- Writes one AuditLog row (action "import", counts in data) when the import succeeds.

Services that create projects and background jobs around it: annotation.services.imports.
"""

from .pipeline import import_jsonl
from .report import ImportRejected, ImportReport, format_error

__all__ = ["ImportRejected", "ImportReport", "format_error", "import_jsonl"]
