"""Which kinds have their own side-by-side adjudication view. A kind not listed (recording)
gets the generic view: its content read-only, and one annotator's label accepted as is."""

from __future__ import annotations

from annotation.models import ItemKind

from .board import Composer
from .pca import PCA
from .query import QUERY
from .step import STEP
from .trace import TRACE

COMPOSERS: dict[str, Composer] = {
    ItemKind.STEP: STEP,
    ItemKind.PCA: PCA,
    ItemKind.TRACE: TRACE,
    ItemKind.QUERY: QUERY,
}
