"""Which labeling page serves which item kind; a kind not listed is shown read-only."""

from annotation.models import ItemKind

from .common import KindPage
from .pair import PAIR_PAGE
from .pca import PCA_PAGE
from .query import QUERY_PAGE
from .step import STEP_PAGE
from .trace import TRACE_PAGE

KIND_PAGES: dict[str, KindPage] = {
    ItemKind.PAIR: PAIR_PAGE,
    ItemKind.PCA: PCA_PAGE,
    ItemKind.QUERY: QUERY_PAGE,
    ItemKind.STEP: STEP_PAGE,
    ItemKind.TRACE: TRACE_PAGE,
}
