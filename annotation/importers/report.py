"""What an import tells its caller: counts, duplicates and every bad line."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

# A file with many bad lines is usually wrong everywhere; past this many errors the rest are
# counted, not listed, so that the report (and the job row holding it) stays small.
MAX_ERRORS = 1000
MAX_LISTED_DUPLICATES = 1000

LINE_FIELD = "(line)"  # the error concerns the whole line, not one field


class ImportRejected(ValueError):
    """Raised by services when a file cannot even be started on; carries line errors."""

    def __init__(self, errors: list[dict[str, Any]]):
        self.errors = errors
        super().__init__("; ".join(format_error(e) for e in errors))


def format_error(error: dict[str, Any]) -> str:
    where = f"line {error['line']}" if error.get("line") else "file"
    fld = error.get("field") or ""
    return f"{where}: {fld}: {error['reason']}" if fld else f"{where}: {error['reason']}"


class ErrorSink:
    """Collects line errors, keeping at most MAX_ERRORS of them."""

    def __init__(self) -> None:
        self.errors: list[dict[str, Any]] = []
        self.total = 0

    def add(self, line: int, field_path: str, reason: str) -> None:
        self.total += 1
        if len(self.errors) < MAX_ERRORS:
            self.errors.append({"line": line, "field": field_path, "reason": reason})

    def __bool__(self) -> bool:
        return self.total > 0

    def listed(self) -> list[dict[str, Any]]:
        if self.total <= len(self.errors):
            return list(self.errors)
        more = self.total - len(self.errors)
        return [*self.errors, {"line": 0, "field": "", "reason": f"… and {more} more errors not listed"}]


@dataclass
class ImportReport:
    ok: bool
    counts: dict[str, int] = field(default_factory=dict)
    errors: list[dict[str, Any]] = field(default_factory=list)
    # External ids already in the project (not updated); capped at MAX_LISTED_DUPLICATES.
    duplicates: list[str] = field(default_factory=list)
    lines_read: int = 0

    def error_lines(self) -> list[str]:
        return [format_error(e) for e in self.errors]

    def summary(self) -> str:
        if not self.ok:
            return f"Rejected: {len(self.errors)} error(s); nothing was imported."
        parts = [f"{n} {name.replace('_', ' ')}" for name, n in self.counts.items() if n]
        return "Imported: " + (", ".join(parts) or "nothing new")
