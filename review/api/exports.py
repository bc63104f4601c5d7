"""Exports of verified splits (managers): ask for one, follow it, find its files."""

from __future__ import annotations

from django.db.models import QuerySet
from drf_spectacular.utils import extend_schema, extend_schema_field
from rest_framework import generics, serializers, status
from rest_framework.exceptions import NotFound, ValidationError
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.reverse import reverse

from annotation.access import MANAGERS
from annotation.api.serializers import ErrorSerializer
from annotation.api.views.base import ProjectScoped
from review.exports.policy import DEFAULT_SPLITS, EXPORTABLE_STATES, FORMATS, SOURCE_TYPES, ExportRequestError
from review.exports.selectors import export_for, exports_for
from review.models import Export
from review.services.exports import export_create


class ExportFiltersSerializer(serializers.Serializer):
    strata = serializers.ListField(
        child=serializers.CharField(), required=False, help_text="Strata (buckets) to take; none: all."
    )
    states = serializers.ListField(
        child=serializers.ChoiceField(choices=[s.value for s in EXPORTABLE_STATES]),
        required=False,
        help_text="Item states; only verified items are exported.",
    )
    settled_from = serializers.DateField(required=False, allow_null=True)
    settled_to = serializers.DateField(required=False, allow_null=True, help_text="Inclusive.")
    source = serializers.ChoiceField(
        choices=SOURCE_TYPES,
        required=False,
        allow_blank=True,
        help_text="Items with a candidate trajectory of this source type.",
    )


class ExportRequestSerializer(serializers.Serializer):
    filters = ExportFiltersSerializer(required=False)
    splits = serializers.CharField(
        default=DEFAULT_SPLITS, help_text="Named splits with ratios that sum to 1, in this order."
    )
    seed = serializers.IntegerField(default=0, min_value=0, help_text="Same seed, same data → same splits.")
    stratify = serializers.BooleanField(default=False, help_text="Split every bucket in the same ratios.")
    formats = serializers.ListField(
        child=serializers.ChoiceField(choices=FORMATS),
        required=False,
        help_text="Which files fit depends on the project's kind: pair: preference, interchange; "
        "trace: sft, preference (corrected vs original), interchange; step: preference (chosen vs "
        "each non-equivalent candidate), checklists, interchange; query: queries, interchange; "
        "pca, recording: interchange. Parquet copies any of them. Default: every JSONL format "
        "of the kind.",
    )


class ExportFileSerializer(serializers.Serializer):
    name = serializers.CharField()
    split = serializers.CharField()
    format = serializers.CharField()
    rows = serializers.IntegerField()
    bytes = serializers.IntegerField()
    sha256 = serializers.CharField()
    url = serializers.URLField(help_text="Download (same authentication).")


class ExportSerializer(serializers.ModelSerializer):
    # Text, not an enum: the import jobs' status has the same values, and two "status" enums
    # would collide in the schema.
    status = serializers.CharField(read_only=True, help_text="queued, running, done or failed")
    created_by = serializers.CharField(source="created_by.username", read_only=True)
    files = serializers.SerializerMethodField()
    manifest = serializers.JSONField(read_only=True)

    class Meta:
        model = Export
        fields = [
            "id",
            "status",
            "items_done",
            "items_total",
            "filters",
            "split_policy",
            "formats",
            "files",
            "manifest",
            "error",
            "created_by",
            "created_at",
            "finished_at",
        ]
        read_only_fields = fields

    @extend_schema_field(ExportFileSerializer(many=True))
    def get_files(self, export: Export) -> list[dict]:
        request = self.context.get("request")
        return [
            {
                **entry,
                "url": reverse(
                    "export_download", args=[export.project.slug, export.pk, entry["name"]], request=request
                ),
            }
            for entry in export.files
        ]


class ExportAcceptedSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    status = serializers.CharField()
    status_url = serializers.URLField()


class ExportErrorSerializer(ErrorSerializer):
    errors = serializers.DictField(child=serializers.CharField(), help_text="Field → reason.")


class ExportListView(ProjectScoped, generics.GenericAPIView):
    project_roles = MANAGERS
    serializer_class = ExportSerializer

    def get_queryset(self) -> QuerySet[Export]:
        if getattr(self, "swagger_fake_view", False):
            return Export.objects.none()
        return exports_for(project=self.project)

    @extend_schema(
        summary="The project's exports, newest first.",
        tags=["exports"],
        responses={200: ExportSerializer(many=True), 404: ErrorSerializer},
    )
    def get(self, request: Request, slug: str) -> Response:
        page = self.paginate_queryset(self.get_queryset())
        return self.get_paginated_response(self.get_serializer(page, many=True).data)

    @extend_schema(
        summary="Export the verified items into named splits.",
        description="Runs in a worker; follow it at `status_url`. Bad splits, filters or formats get "
        "400 with the reason per field and create nothing.",
        tags=["exports"],
        request=ExportRequestSerializer,
        responses={202: ExportAcceptedSerializer, 400: ExportErrorSerializer, 404: ErrorSerializer},
    )
    def post(self, request: Request, slug: str) -> Response:
        form = ExportRequestSerializer(data=request.data)
        form.is_valid(raise_exception=True)
        data = form.validated_data
        try:
            export = export_create(
                project=self.project,
                actor=request.user,
                filters=dict(data.get("filters") or {}),
                split_policy={"splits": data["splits"], "seed": data["seed"], "stratify": data["stratify"]},
                formats=data.get("formats"),
            )
        except ExportRequestError as exc:
            raise ValidationError({"detail": str(exc), "errors": exc.errors}) from exc
        url = reverse(
            "api:export-detail", kwargs={"slug": self.project.slug, "export_id": export.pk}, request=request
        )
        body = ExportAcceptedSerializer({"id": export.pk, "status": export.status, "status_url": url}).data
        return Response(body, status=status.HTTP_202_ACCEPTED)


class ExportDetailView(ProjectScoped, generics.GenericAPIView):
    project_roles = MANAGERS
    serializer_class = ExportSerializer

    @extend_schema(
        summary="One export: status, progress, files with sha256 and download URLs, manifest.",
        tags=["exports"],
        responses={200: ExportSerializer, 404: ErrorSerializer},
    )
    def get(self, request: Request, slug: str, export_id: int) -> Response:
        try:
            export = export_for(project=self.project, export_id=export_id)
        except Export.DoesNotExist:
            raise NotFound("No such export.") from None
        return Response(self.get_serializer(export).data)
