"""Media files referenced by records: where they come from, where they go, who may fetch them.

A record names media by a path relative to its JSONL file (`media/ab12.png`). The importer
copies each one to MEDIA_ROOT/projects/<slug>/<that path>; the page URL of a stored file is
`reverse("media_file", args=[slug, path])` and is served to project members only.
"""

from __future__ import annotations

import os
import shutil
import tempfile
import zipfile
from collections.abc import Iterator
from pathlib import Path, PurePosixPath

from django.conf import settings

# Images and videos only (formats/README.md §4): anything else could be served as HTML or
# script from our own origin.
MEDIA_TYPES = {
    ".png": "image/png",
    ".jpg": "image/jpeg",
    ".jpeg": "image/jpeg",
    ".webp": "image/webp",
    ".gif": "image/gif",
    ".mp4": "video/mp4",
    ".webm": "video/webm",
}
MAX_ZIP_BYTES = 20 * 1024**3  # uncompressed; a guard against zip bombs


class MediaError(ValueError):
    pass


def project_media_root(slug: str) -> Path:
    return Path(settings.MEDIA_ROOT) / "projects" / slug


def clean_relative(path: str) -> PurePosixPath:
    """The path as a safe relative path, or MediaError saying why not."""
    if not path or "\x00" in path or "\\" in path:
        raise MediaError(f"{path!r} is not a usable media path")
    pure = PurePosixPath(path)
    if pure.is_absolute() or (len(path) > 1 and path[1] == ":"):
        raise MediaError(f"{path!r} is absolute; media paths are relative to the JSONL file")
    if ".." in pure.parts:
        raise MediaError(f"{path!r} leaves the media folder ('..' is not allowed)")
    if pure.suffix.lower() not in MEDIA_TYPES:
        allowed = ", ".join(sorted(MEDIA_TYPES))
        raise MediaError(f"{path!r} is not an image or video file ({allowed})")
    return pure


def stored_media_file(slug: str, path: str) -> Path | None:
    """The stored file for a request path, or None when missing or unsafe."""
    try:
        rel = clean_relative(path)
    except MediaError:
        return None
    root = project_media_root(slug).resolve()
    target = (root / rel).resolve()
    if not target.is_relative_to(root) or not target.is_file():
        return None
    return target


class MediaStore:
    """Checks and copies the media of one import; `discard()` removes what it copied when the
    import is rolled back."""

    def __init__(self, *, slug: str, source_dir: Path, explicit: bool):
        self.source_dir = source_dir.resolve()
        # A --media folder may be the folder holding `media/` or the `media/` folder itself.
        self.explicit = explicit
        self.dest_root = project_media_root(slug)
        self.copied: list[Path] = []
        self._seen: set[str] = set()

    def _source(self, rel: PurePosixPath) -> Path | None:
        candidates = [self.source_dir / rel]
        if self.explicit and len(rel.parts) > 1:
            candidates.append(self.source_dir.joinpath(*rel.parts[1:]))
        for candidate in candidates:
            resolved = candidate.resolve()
            if resolved.is_relative_to(self.source_dir) and resolved.is_file():
                return resolved
        return None

    def check(self, path: str) -> PurePosixPath:
        """MediaError unless `path` is safe and its file exists."""
        rel = clean_relative(path)
        if str(rel) not in self._seen and self._source(rel) is None:
            raise MediaError(f"{path!r} was not found next to the file (looked in {self.source_dir})")
        return rel

    def copy(self, rel: PurePosixPath) -> None:
        key = str(rel)
        if key in self._seen:
            return
        self._seen.add(key)
        dest = self.dest_root / rel
        if dest.exists():
            return  # stored by an earlier import; never overwritten
        source = self._source(rel)
        if source is None:
            raise MediaError(f"{key!r} disappeared during the import")
        dest.parent.mkdir(parents=True, exist_ok=True)
        # Copy to a temporary name first so a half-written file is never served.
        fd, tmp = tempfile.mkstemp(dir=dest.parent, prefix=".import-")
        with os.fdopen(fd, "wb") as out, source.open("rb") as src:
            shutil.copyfileobj(src, out, 1024 * 1024)
        os.replace(tmp, dest)
        self.copied.append(dest)

    def discard(self) -> None:
        for path in self.copied:
            path.unlink(missing_ok=True)
        self.copied.clear()


def message_media(messages: list[dict], where: str) -> Iterator[tuple[str, str]]:
    """(field path, media path) of the media attached to messages and their observations."""
    for i, message in enumerate(messages):
        for j, path in enumerate(message.get("media") or ()):
            yield f"{where}[{i}].media[{j}]", path
        observation = message.get("observation") or {}
        for key in ("screenshot", "screenshot_after"):
            if observation.get(key):
                yield f"{where}[{i}].observation.{key}", observation[key]


def extract_zip(archive: Path, dest: Path) -> None:
    """Unpack an uploaded media zip member by member, refusing unsafe names."""
    with zipfile.ZipFile(archive) as zf:
        members = [m for m in zf.infolist() if not m.is_dir()]
        if sum(m.file_size for m in members) > MAX_ZIP_BYTES:
            raise MediaError("the media zip is too large once unpacked")
        for member in members:
            name = member.filename
            pure = PurePosixPath(name)
            if not name or "\\" in name or pure.is_absolute() or ".." in pure.parts or ":" in pure.parts[0]:
                raise MediaError(f"the media zip holds an unsafe name {name!r}")
            target = dest.joinpath(*pure.parts)
            target.parent.mkdir(parents=True, exist_ok=True)
            with zf.open(member) as src, target.open("wb") as out:
                shutil.copyfileobj(src, out, 1024 * 1024)
