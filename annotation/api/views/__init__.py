from .annotations import AnnotationDetailView, AnnotationListView
from .imports import ImportCreateView, ImportDetailView
from .items import ItemDetailView, ItemListView
from .projects import ProjectDetailView, ProjectListView
from .queue import QueueNextView, QueueSkipView

__all__ = [
    "AnnotationDetailView",
    "AnnotationListView",
    "ImportCreateView",
    "ImportDetailView",
    "ItemDetailView",
    "ItemListView",
    "ProjectDetailView",
    "ProjectListView",
    "QueueNextView",
    "QueueSkipView",
]
