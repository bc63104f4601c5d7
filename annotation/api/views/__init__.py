from .annotations import AnnotationDetailView, AnnotationListView
from .checklists import ItemChecklistView
from .imports import ImportCreateView, ImportDetailView
from .items import ItemDetailView, ItemListView
from .projects import ProjectDetailView, ProjectListView
from .queue import QueueNextView, QueueSkipView
from .traces import ItemTraceView

__all__ = [
    "AnnotationDetailView",
    "AnnotationListView",
    "ImportCreateView",
    "ImportDetailView",
    "ItemChecklistView",
    "ItemDetailView",
    "ItemListView",
    "ItemTraceView",
    "ProjectDetailView",
    "ProjectListView",
    "QueueNextView",
    "QueueSkipView",
]
