"""Items: the list (reviewers and managers) and one item (blinded for annotators)."""

from __future__ import annotations

from django.db.models import QuerySet
from drf_spectacular.utils import PolymorphicProxySerializer, extend_schema
from rest_framework import generics
from rest_framework.exceptions import NotFound
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from annotation import selectors
from annotation.access import STAFF_ROLES
from annotation.models import Annotation, Assignment, AssignmentStatus, Item

from ..serializers import (
    BlindItemSerializer,
    ErrorSerializer,
    ItemDetailSerializer,
    ItemFilterSerializer,
    ItemSerializer,
)
from .base import ProjectScoped


def blind_item(item: Item, annotator) -> dict | None:
    """The item as its annotator sees it, with their own label if they gave one; None when
    they may not see it: only a live assignment or their own label opens an item (as on the
    labeling page), so a skipped or released item stays closed."""
    assignment = Assignment.objects.filter(item=item, annotator=annotator).first()
    annotation = Annotation.objects.filter(item=item, annotator=annotator).select_related("item").first()
    holds = assignment is not None and assignment.status == AssignmentStatus.ACTIVE
    if annotation is None and not holds:
        return None
    order = (annotation.display_order if annotation else None) or assignment.display_order
    context = {
        "order": order,
        "assignment": assignment,
        "annotation": annotation,
        "annotator_id": annotator.pk,
    }
    return BlindItemSerializer(item, context=context).data


@extend_schema(
    summary="Items of the project (reviewers and managers; includes the gold).",
    tags=["items"],
    parameters=[ItemFilterSerializer],
)
class ItemListView(ProjectScoped, generics.ListAPIView):
    # Annotators never list items: they would see what others are working on and the gold.
    project_roles = STAFF_ROLES
    serializer_class = ItemSerializer

    def get_queryset(self) -> QuerySet[Item]:
        if getattr(self, "swagger_fake_view", False):
            return Item.objects.none()
        filters = ItemFilterSerializer(data=self.request.query_params)
        filters.is_valid(raise_exception=True)
        return selectors.item_list(project=self.project, **filters.validated_data)


class ItemDetailView(ProjectScoped, APIView):
    @extend_schema(
        summary="One item: full for reviewers and managers, blinded for its annotators.",
        description=(
            "Annotators get the item only while they hold a lease on it or once they labeled it, "
            "with the candidates as A/B in their display order and without gold, sources or "
            "other people's labels."
        ),
        tags=["items"],
        responses={
            200: PolymorphicProxySerializer(
                component_name="ItemView",
                serializers=[ItemDetailSerializer, BlindItemSerializer],
                resource_type_field_name=None,
            ),
            404: ErrorSerializer,
        },
    )
    def get(self, request: Request, slug: str, item_id: int) -> Response:
        try:
            item = selectors.item_for_labeling(project=self.project, item_id=item_id)
        except Item.DoesNotExist as exc:
            raise NotFound("No such item in this project.") from exc
        if self.project_role in STAFF_ROLES:
            return Response(ItemDetailSerializer(item).data)
        blinded = blind_item(item, request.user)
        if blinded is None:
            raise NotFound("No such item in this project.")
        return Response(blinded)
