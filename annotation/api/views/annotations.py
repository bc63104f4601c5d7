"""Labels: list, submit (idempotent by client id), edit (optimistic lock)."""

from __future__ import annotations

from django.db.models import QuerySet
from drf_spectacular.utils import OpenApiResponse, extend_schema
from rest_framework import generics, status
from rest_framework.exceptions import ValidationError
from rest_framework.generics import get_object_or_404
from rest_framework.request import Request
from rest_framework.response import Response

from annotation import selectors
from annotation.labels import errors_to_seen, label_from_seen
from annotation.models import Annotation, Assignment, Item, ItemKind
from annotation.rendering.query import query_order
from annotation.rendering.step.view import candidate_order
from annotation.services.annotations import SubmitError, annotation_edit, annotation_submit

from ..serializers import (
    AnnotationEditSerializer,
    AnnotationFilterSerializer,
    AnnotationSerializer,
    AnnotationSubmitSerializer,
    ErrorSerializer,
    LabelErrorSerializer,
)
from .base import Conflict, ReadAnyWriteAnnotator

NOT_ASSIGNED = "This item is not assigned to you; take it from the queue."
# Trace labels carry the page's checks and may create a corrected trace version: one way in.
TRACE_ELSEWHERE = "Trace labels are saved at items/<id>/trace/ (api:item-trace), as on the trace page."


def refuse_trace(item: Item) -> None:
    if item.kind == ItemKind.TRACE:
        raise ValidationError({"label": [TRACE_ELSEWHERE]})


def canonical_label(*, item: Item, data: dict, order: list[str] | None) -> dict:
    """`label` as sent, or `label_seen` mapped through the annotator's display order."""
    if "label" in data:
        return data["label"]
    if item.kind != ItemKind.PAIR:
        raise ValidationError({"label_seen": ["A/B labels exist only for pair items; send `label`."]})
    return label_from_seen(order, data["label_seen"])


def submit_error_response(exc: SubmitError, *, field: str, order: list[str] | None) -> Response:
    """A refused label: 400 names the fields (in A/B terms when the client sent A/B)."""
    if exc.status == status.HTTP_400_BAD_REQUEST and exc.errors:
        errors = errors_to_seen(order, exc.errors) if field == "label_seen" else exc.errors
        detail = "The label is not valid: " + "; ".join(f"{k}: {v}" for k, v in errors.items())
        return Response({"detail": detail, field: errors}, status=exc.status)
    return Response({"detail": str(exc)}, status=exc.status)


def shown_order(*, item: Item, annotator) -> list[str] | None:
    """Step and query items: the candidate order the annotator was shown (item-detail `options`,
    as on their page), kept with the label for blinding audits; None for the other kinds."""
    if item.kind == ItemKind.STEP:
        return candidate_order(item=item, annotator_id=annotator.pk)
    if item.kind == ItemKind.QUERY:
        return query_order(item=item, annotator_id=annotator.pk)
    return None


def label_field(data: dict) -> str:
    return "label" if "label" in data else "label_seen"


class AnnotationListView(ReadAnyWriteAnnotator, generics.ListAPIView):
    serializer_class = AnnotationSerializer

    def get_queryset(self) -> QuerySet[Annotation]:
        if getattr(self, "swagger_fake_view", False):
            return Annotation.objects.none()
        filters = AnnotationFilterSerializer(data=self.request.query_params)
        filters.is_valid(raise_exception=True)
        qs = selectors.annotation_list(project=self.project, user=self.request.user, role=self.project_role)
        if "item" in filters.validated_data:
            qs = qs.filter(item_id=filters.validated_data["item"])
        return qs

    @extend_schema(
        summary="Labels: annotators see their own, reviewers and managers all.",
        tags=["annotations"],
        parameters=[AnnotationFilterSerializer],
    )
    def get(self, request: Request, *args, **kwargs) -> Response:
        return super().get(request, *args, **kwargs)

    @extend_schema(
        summary="Submit a label for an item assigned to me.",
        description=(
            "Send `label` (canonical: first/second/tie) or `label_seen` (pairs, as seen: A/B/tie). "
            "Step labels name candidates by `id`, query labels by record `index` (see the item's "
            "`options`); trace labels go to items/<id>/trace/. "
            "A repeat with the same `client_id` answers 200 with the label already stored."
        ),
        tags=["annotations"],
        request=AnnotationSubmitSerializer,
        responses={
            201: AnnotationSerializer,
            200: OpenApiResponse(AnnotationSerializer, description="Repeat of an earlier submit."),
            400: LabelErrorSerializer,
            404: ErrorSerializer,
            409: ErrorSerializer,
        },
    )
    def post(self, request: Request, slug: str) -> Response:
        form = AnnotationSubmitSerializer(data=request.data)
        form.is_valid(raise_exception=True)
        data = form.validated_data
        item = get_object_or_404(
            Item.objects.select_related("project"), project=self.project, pk=data["item"]
        )
        assignment = Assignment.objects.filter(item=item, annotator=request.user).first()
        if assignment is None:
            raise Conflict(NOT_ASSIGNED)
        refuse_trace(item)
        order = assignment.display_order
        label = canonical_label(item=item, data=data, order=order)
        try:
            result = annotation_submit(
                item=item,
                annotator=request.user,
                label=label,
                client_id=data["client_id"],
                rationale=data["rationale"],
                seconds_spent=data["seconds_spent"],
                flagged=data["flagged"],
                display_order=shown_order(item=item, annotator=request.user),
            )
        except SubmitError as exc:
            return submit_error_response(exc, field=label_field(data), order=order)
        code = status.HTTP_201_CREATED if result.created else status.HTTP_200_OK
        return Response(AnnotationSerializer(result.annotation).data, status=code)


class AnnotationDetailView(ReadAnyWriteAnnotator, generics.RetrieveAPIView):
    serializer_class = AnnotationSerializer
    http_method_names = ["get", "patch", "head", "options"]

    def get_object(self) -> Annotation:
        qs = selectors.annotation_list(project=self.project, user=self.request.user, role=self.project_role)
        if self.request.method not in ("GET", "HEAD"):
            # Only one's own label is editable, whatever else one may read.
            qs = qs.filter(annotator=self.request.user)
        return get_object_or_404(qs, pk=self.kwargs["annotation_id"])

    @extend_schema(
        summary="One label.",
        tags=["annotations"],
        responses={200: AnnotationSerializer, 404: ErrorSerializer},
    )
    def get(self, request: Request, *args, **kwargs) -> Response:
        return super().get(request, *args, **kwargs)

    @extend_schema(
        summary="Edit my label while its item is still open.",
        description="Send the `version` you opened; if the label changed since, the answer is 409.",
        tags=["annotations"],
        request=AnnotationEditSerializer,
        responses={
            200: AnnotationSerializer,
            400: LabelErrorSerializer,
            404: ErrorSerializer,
            409: ErrorSerializer,
        },
    )
    def patch(self, request: Request, slug: str, annotation_id: int) -> Response:
        annotation = self.get_object()
        refuse_trace(annotation.item)
        form = AnnotationEditSerializer(data=request.data)
        form.is_valid(raise_exception=True)
        data = form.validated_data
        order = annotation.display_order
        label = canonical_label(item=annotation.item, data=data, order=order)
        try:
            annotation = annotation_edit(
                annotation=annotation,
                editor=request.user,
                label=label,
                rationale=data.get("rationale", annotation.rationale),
                expected_version=data["version"],
            )
        except SubmitError as exc:
            return submit_error_response(exc, field=label_field(data), order=order)
        return Response(AnnotationSerializer(annotation).data)
