"""A step item's versioned checklist over the API: the same service and rules as the step page
(annotation.views.labeling.step.step_checklist_edit), with JSON in and out."""

from __future__ import annotations

from drf_spectacular.utils import extend_schema
from rest_framework import status
from rest_framework.exceptions import PermissionDenied
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from annotation.models import MAX_CHECKLIST_ITEMS, ItemKind
from annotation.rendering.step.checklist import who
from annotation.services.checklists import (
    ChecklistConflict,
    ChecklistError,
    checklist_edit,
    checklist_versions,
)
from annotation.views.labeling.access import Access

from ..serializers import ErrorSerializer
from ..serializers.kinds import (
    ChecklistConflictSerializer,
    ChecklistEditSerializer,
    ChecklistViewSerializer,
    FieldErrorSerializer,
)
from .base import ProjectScoped
from .traces import kind_access


def checklist_body(access: Access, viewer_id: int) -> dict:
    """Every version, oldest first; annotators see 'you' or 'another annotator', never a name."""
    versions = checklist_versions(item=access.item)
    latest = versions[-1]
    return {
        "scope": access.item.project.checklist_scope,
        "max_items": MAX_CHECKLIST_ITEMS,
        "latest": latest.number,
        "versions": [
            {
                "number": v.number,
                "parent": v.parent,
                "items": v.items,
                "reason": v.reason,
                "who": who(v, viewer_id=viewer_id, staff=access.staff),
                "created_at": v.created_at,
                "latest": v is latest,
            }
            for v in versions
        ],
    }


class ItemChecklistView(ProjectScoped, APIView):
    @extend_schema(
        summary="A step item's checklist versions (1 = imported).",
        description="Annotators: an item they hold or labeled; who edited a version is shown as "
        "'you' or 'another annotator'. Reviewers and managers see names.",
        tags=["checklists"],
        responses={200: ChecklistViewSerializer, 404: ErrorSerializer},
    )
    def get(self, request: Request, slug: str, item_id: int) -> Response:
        access = kind_access(self, request, item_id, ItemKind.STEP)
        return Response(checklist_body(access, request.user.pk))

    @extend_schema(
        summary="Save an edited checklist as a new version (with a reason).",
        description=(
            f"At most {MAX_CHECKLIST_ITEMS} items. `parent_version` is the version you edited; if "
            "another version was saved since, the answer is 409 with `latest` and nothing changes."
        ),
        tags=["checklists"],
        request=ChecklistEditSerializer,
        responses={
            201: ChecklistViewSerializer,
            400: FieldErrorSerializer,
            403: ErrorSerializer,
            404: ErrorSerializer,
            409: ChecklistConflictSerializer,
        },
    )
    def post(self, request: Request, slug: str, item_id: int) -> Response:
        access = kind_access(self, request, item_id, ItemKind.STEP)
        if access.staff:
            raise PermissionDenied("Reviewers and managers view items read only.")
        body = ChecklistEditSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        data = body.validated_data
        if access.mode == "readonly":
            message = "This item is settled; its checklist can no longer change."
            return Response({"detail": message, "errors": {}}, status=status.HTTP_409_CONFLICT)
        try:
            checklist_edit(
                item=access.item,
                author=request.user,
                items=[dict(row) for row in data["items"]],
                reason=data["reason"],
                parent_version=data["parent_version"],
            )
        except ChecklistConflict as exc:
            body = {"detail": str(exc), "errors": exc.errors, "latest": exc.latest}
            return Response(body, status=exc.status)
        except ChecklistError as exc:
            return Response({"detail": str(exc), "errors": exc.errors}, status=exc.status)
        return Response(checklist_body(access, request.user.pk), status=status.HTTP_201_CREATED)
