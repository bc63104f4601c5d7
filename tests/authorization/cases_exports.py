"""Rows for exports of verified splits (HTML and API): managers only; everyone else 404, and
an export (or a file) of another project is 404 even for its own project's manager."""

from __future__ import annotations

import hashlib
from pathlib import Path

from django.conf import settings

from review.models import Export
from tests.authorization.matrix import API_ANON, JSON, LOGIN, POST, C, P, pk_of

FILE = "all.interchange.jsonl"


def export_request(w, user):
    return {"splits": "all=1", "seed": 3, "formats": ["interchange"]}


def export_form(w, user):
    return {"splits": "all=1", "seed": "3", "formats": ["interchange"], "states": ["verified"]}


def download(attr: str, filename: str = FILE):
    return lambda w: [w.project.slug, getattr(w, attr).pk, filename]


# fmt: off
CASES = [
    # --- pages                    anonymous outsider annotator reviewer manager
    C("export_list",              (LOGIN, 404, 404, 404, 200), args=P),
    C("export_list",              (LOGIN, 404, 404, 404, 302), "post", method=POST, args=P, data=export_form),
    C("export_detail",            (LOGIN, 404, 404, 404, 200), args=pk_of("export")),
    C("export_detail",            (LOGIN, 404, 404, 404, 404), "other project", args=pk_of("foreign_export")),
    C("export_download",          (LOGIN, 404, 404, 404, 200), args=download("export")),
    C("export_download",          (LOGIN, 404, 404, 404, 404), "not listed", args=download("export", "..")),
    C("export_download",          (LOGIN, 404, 404, 404, 404), "other project",
      args=download("foreign_export")),
    # --- API
    C("api:export-list",          (API_ANON, 404, 404, 404, 200), args=P),
    C("api:export-list",          (API_ANON, 404, 404, 404, 202), "create", method=POST, args=P,
      data=export_request, fmt=JSON),
    C("api:export-detail",        (API_ANON, 404, 404, 404, 200), args=pk_of("export")),
    C("api:export-detail",        (API_ANON, 404, 404, 404, 404), "other project",
      args=pk_of("foreign_export")),
]
# fmt: on


def _finished_export(project, user) -> Export:
    """A finished export with one real file, in the test's own folder (beside MEDIA_ROOT)."""
    export = Export.objects.create(
        project=project,
        created_by=user,
        filters={"states": ["verified"]},
        split_policy={"splits": [{"name": "all", "ratio": 1.0}], "seed": 0, "stratify": False},
        formats=["interchange"],
        status=Export.Status.DONE,
    )
    folder = Path(settings.MEDIA_ROOT).parent / "exports" / project.slug / str(export.pk)
    folder.mkdir(parents=True, exist_ok=True)
    data = b'{"kind": "pair", "id": "p-1"}\n'
    (folder / FILE).write_bytes(data)
    export.directory = str(folder)
    export.files = [
        {
            "name": FILE,
            "split": "all",
            "format": "interchange",
            "rows": 1,
            "sha256": hashlib.sha256(data).hexdigest(),
            "bytes": len(data),
        }
    ]
    export.save()
    return export


def extend_world(w) -> None:
    """Add this area's objects to the shared test world `w` (see test_matrix.world)."""
    w.export = _finished_export(w.project, w.users["manager"])
    w.foreign_export = _finished_export(w.other, w.users["outsider"])
