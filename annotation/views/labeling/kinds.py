"""Which labeling page serves which item kind; a kind not listed is shown read-only."""

from annotation.models import ItemKind

from .common import KindPage
from .pair import PAIR_PAGE
from .pca import PCA_PAGE
from .step import STEP_PAGE

KIND_PAGES: dict[str, KindPage] = {
    ItemKind.PAIR: PAIR_PAGE,
    ItemKind.PCA: PCA_PAGE,
    ItemKind.STEP: STEP_PAGE,
}
