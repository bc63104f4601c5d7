"""The annotator's queue: take the next item, skip one."""

from __future__ import annotations

from drf_spectacular.utils import OpenApiResponse, extend_schema
from rest_framework import status
from rest_framework.generics import get_object_or_404
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from annotation import selectors
from annotation.models import Assignment, Role
from annotation.services.queue import QueueError, assignment_skip, item_assign

from ..serializers import BlindItemSerializer, ErrorSerializer, SkipResultSerializer, SkipSerializer
from .base import Conflict, ProjectScoped
from .items import blind_item


class QueueNextView(ProjectScoped, APIView):
    project_roles = (Role.ANNOTATOR,)

    @extend_schema(
        summary="Take the next item (or get the one I hold).",
        description="Returns the blinded item with my A/B order and lease; 204 when nothing is left.",
        tags=["queue"],
        request=None,
        responses={
            200: BlindItemSerializer,
            204: OpenApiResponse(description="Nothing left for me in this project."),
            404: ErrorSerializer,
        },
    )
    def post(self, request: Request, slug: str) -> Response:
        assignment = item_assign(project=self.project, annotator=request.user)
        if assignment is None:
            return Response(status=status.HTTP_204_NO_CONTENT)
        item = selectors.item_for_labeling(project=self.project, item_id=assignment.item_id)
        return Response(blind_item(item, request.user))


class QueueSkipView(ProjectScoped, APIView):
    project_roles = (Role.ANNOTATOR,)

    @extend_schema(
        summary="Skip an item I hold, saying why.",
        tags=["queue"],
        request=SkipSerializer,
        responses={
            200: SkipResultSerializer,
            400: ErrorSerializer,
            404: ErrorSerializer,
            409: ErrorSerializer,
        },
    )
    def post(self, request: Request, slug: str, item_id: int) -> Response:
        form = SkipSerializer(data=request.data)
        form.is_valid(raise_exception=True)
        assignment = get_object_or_404(
            Assignment.objects.select_related("item"),
            item__project=self.project,
            item_id=item_id,
            annotator=request.user,
        )
        try:
            assignment = assignment_skip(
                assignment=assignment, actor=request.user, reason=form.validated_data["reason"]
            )
        except QueueError as exc:
            raise Conflict(str(exc)) from exc
        return Response(SkipResultSerializer(assignment).data)
