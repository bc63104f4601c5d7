from .annotations import (
    AnnotationEditSerializer,
    AnnotationFilterSerializer,
    AnnotationSerializer,
    AnnotationSubmitSerializer,
    SeenLabelSerializer,
)
from .common import ErrorSerializer, LabelErrorSerializer, SkipResultSerializer, SkipSerializer
from .imports import ImportAcceptedSerializer, ImportJobSerializer, ImportUploadSerializer
from .items import BlindItemSerializer, ItemDetailSerializer, ItemFilterSerializer, ItemSerializer
from .projects import ProjectDetailSerializer, ProjectSerializer

__all__ = [
    "AnnotationEditSerializer",
    "AnnotationFilterSerializer",
    "AnnotationSerializer",
    "AnnotationSubmitSerializer",
    "BlindItemSerializer",
    "ErrorSerializer",
    "ImportAcceptedSerializer",
    "ImportJobSerializer",
    "ImportUploadSerializer",
    "ItemDetailSerializer",
    "ItemFilterSerializer",
    "ItemSerializer",
    "LabelErrorSerializer",
    "ProjectDetailSerializer",
    "ProjectSerializer",
    "SeenLabelSerializer",
    "SkipResultSerializer",
    "SkipSerializer",
]
