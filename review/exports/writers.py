"""Files of an export, written in constant memory.

- Spool: the first pass writes each item's lines once, in item order, prefixed with the item's
  index, to a scratch file; the second pass copies them into the split files once every group
  has its split. The database is read once and no split's rows are held in memory.
- JsonlFile: one split file; counts rows and bytes and hashes them while writing.
- ParquetFile: the same rows as a Parquet table, flushed in bounded row groups.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterator
from pathlib import Path
from typing import IO, Any

from .records import parquet_row

BUFFER = 1 << 20
PARQUET_GROUP_ROWS = 2000
PARQUET_GROUP_BYTES = 8 << 20


def encode(line: str) -> bytes:
    # A lone surrogate (possible in SQLite data) becomes the JSON escape \udXXX: still valid JSON.
    return line.encode("utf-8", "backslashreplace")


class Spool:
    def __init__(self, path: Path):
        self.path = path
        self.fh: IO[bytes] | None = path.open("wb", buffering=BUFFER)

    def add(self, index: int, line: str) -> None:
        self.fh.write(b"%d\t" % index + encode(line) + b"\n")

    def close(self) -> None:
        if self.fh is not None:
            self.fh.close()
            self.fh = None

    def lines(self) -> Iterator[tuple[int, bytes]]:
        """(item index, line with its newline) in the order written."""
        self.close()
        with self.path.open("rb", buffering=BUFFER) as fh:
            for raw in fh:
                index, _, line = raw.partition(b"\t")
                yield int(index), line

    def remove(self) -> None:
        self.close()
        self.path.unlink(missing_ok=True)


class JsonlFile:
    def __init__(self, path: Path, *, split: str, fmt: str):
        self.path = path
        self.split = split
        self.format = fmt
        self.rows = 0
        self.bytes = 0
        self.sha = hashlib.sha256()
        self.fh: IO[bytes] = path.open("wb", buffering=BUFFER)

    def write_line(self, line: bytes, *, record: bool = True) -> None:
        """`line` ends with a newline; `record=False` for header lines (tool environments)."""
        self.fh.write(line)
        self.sha.update(line)
        self.bytes += len(line)
        self.rows += record

    def close(self) -> dict[str, Any]:
        self.fh.close()
        return file_entry(
            self.path,
            split=self.split,
            fmt=self.format,
            rows=self.rows,
            sha256=self.sha.hexdigest(),
            size=self.bytes,
        )


class ParquetFile:
    """Rows are JSON lines of a JsonlFile, turned into string columns (see records.parquet_row)."""

    def __init__(self, path: Path, *, split: str, fmt: str, columns: tuple[str, ...], meta: dict[str, str]):
        import pyarrow as pa
        import pyarrow.parquet as pq

        self.pa = pa
        self.path = path
        self.split = split
        self.format = fmt
        self.columns = columns
        self.schema = pa.schema([(c, pa.string()) for c in columns], metadata=meta)
        self.writer = pq.ParquetWriter(str(path), self.schema, compression="zstd")
        self.pending: list[dict[str, str | None]] = []
        self.pending_bytes = 0
        self.rows = 0

    def add(self, line: bytes) -> None:
        self.pending.append(parquet_row(json.loads(line), self.columns))
        self.pending_bytes += len(line)
        if len(self.pending) >= PARQUET_GROUP_ROWS or self.pending_bytes >= PARQUET_GROUP_BYTES:
            self.flush()

    def flush(self) -> None:
        if self.pending:
            self.writer.write_table(self.pa.Table.from_pylist(self.pending, schema=self.schema))
            self.rows += len(self.pending)
            self.pending, self.pending_bytes = [], 0

    def close(self) -> dict[str, Any]:
        self.flush()
        self.writer.close()
        return file_entry(self.path, split=self.split, fmt=self.format, rows=self.rows)


def sha256_of(path: Path) -> str:
    sha = hashlib.sha256()
    with path.open("rb") as fh:
        while chunk := fh.read(BUFFER):
            sha.update(chunk)
    return sha.hexdigest()


def file_entry(
    path: Path, *, split: str, fmt: str, rows: int, sha256: str | None = None, size: int | None = None
) -> dict[str, Any]:
    return {
        "name": path.name,
        "split": split,
        "format": fmt,
        "rows": rows,
        "sha256": sha256 or sha256_of(path),
        "bytes": size if size is not None else path.stat().st_size,
    }
