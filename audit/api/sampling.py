"""Audit samples: reviewers and managers list them; managers draw a new one (which replaces
the project's current sample)."""

from __future__ import annotations

from django.db.models import QuerySet
from drf_spectacular.utils import extend_schema
from rest_framework import generics, serializers, status
from rest_framework.exceptions import ValidationError
from rest_framework.permissions import SAFE_METHODS
from rest_framework.request import Request
from rest_framework.response import Response

from annotation.access import MANAGERS, STAFF_ROLES
from annotation.api.serializers import ErrorSerializer
from annotation.api.views.base import ProjectScoped
from audit.models import AuditSample
from audit.services.sampling import (
    MAX_AUDIT_OVERLAP,
    MAX_SEED,
    MIN_AUDIT_OVERLAP,
    MODES,
    STRATUM_FIELDS,
    SamplingError,
    audit_sample_draw,
)


class AuditSampleDrawSerializer(serializers.Serializer):
    stratum_field = serializers.ChoiceField(choices=list(STRATUM_FIELDS), default="family")
    mode = serializers.ChoiceField(
        choices=list(MODES),
        default="cap",
        help_text="`cap`: at most `cap` items per stratum; `rate`: a share.",
    )
    cap = serializers.IntegerField(
        min_value=1, required=False, default=80, help_text="Items per stratum (mode cap)."
    )
    rate = serializers.FloatField(
        min_value=0, max_value=1, required=False, allow_null=True, help_text="Share per stratum (mode rate)."
    )
    seed = serializers.IntegerField(
        min_value=0, max_value=MAX_SEED, help_text="The same seed draws the same sample."
    )
    audit_overlap = serializers.IntegerField(
        min_value=MIN_AUDIT_OVERLAP,
        max_value=MAX_AUDIT_OVERLAP,
        default=2,
        help_text="Annotators per sampled item; every other open item gets 1.",
    )

    def validate(self, attrs: dict) -> dict:
        if attrs["mode"] == "rate" and not attrs.get("rate"):
            raise ValidationError({"rate": ["Mode `rate` needs a rate above 0 and at most 1, e.g. 0.1."]})
        return attrs


class StratumCountSerializer(serializers.Serializer):
    population = serializers.IntegerField()
    sampled = serializers.IntegerField()


class AuditSampleSerializer(serializers.ModelSerializer):
    created_by = serializers.CharField(source="created_by.username", read_only=True)
    counts = serializers.DictField(
        child=StratumCountSerializer(), help_text="Per stratum value: items in it and items sampled."
    )
    sampled = serializers.SerializerMethodField()
    population = serializers.SerializerMethodField()

    class Meta:
        model = AuditSample
        fields = ["id", "policy", "seed", "counts", "sampled", "population", "created_by", "created_at"]
        read_only_fields = fields

    def get_sampled(self, sample: AuditSample) -> int:
        return sum(c.get("sampled", 0) for c in sample.counts.values())

    def get_population(self, sample: AuditSample) -> int:
        return sum(c.get("population", 0) for c in sample.counts.values())


class AuditSampleListView(ProjectScoped, generics.ListAPIView):
    serializer_class = AuditSampleSerializer

    @property
    def project_roles(self) -> tuple[str, ...]:
        # Reviewers read the audit; drawing a sample changes overlaps: managers only (404 else).
        return STAFF_ROLES if self.request.method in SAFE_METHODS else MANAGERS

    def get_queryset(self) -> QuerySet[AuditSample]:
        if getattr(self, "swagger_fake_view", False):
            return AuditSample.objects.none()
        return AuditSample.objects.filter(project=self.project).select_related("created_by")

    @extend_schema(summary="Audit samples drawn in this project, newest first.", tags=["audit"])
    def get(self, request: Request, *args, **kwargs) -> Response:
        return super().get(request, *args, **kwargs)

    @extend_schema(
        summary="Draw a stratified audit sample (replaces the current one).",
        description=(
            "Per stratum value the first `cap` items (or `rate` of them, at least one) in the order "
            "of sha256(seed:external_id) are sampled and get `audit_overlap` annotators; every other "
            "open item gets one, never fewer than the labels it has or that are in hand; one that "
            "thereby has all its labels is settled at once. Settled items keep their overlap."
        ),
        tags=["audit"],
        request=AuditSampleDrawSerializer,
        responses={201: AuditSampleSerializer, 400: ErrorSerializer, 404: ErrorSerializer},
    )
    def post(self, request: Request, slug: str) -> Response:
        form = AuditSampleDrawSerializer(data=request.data)
        form.is_valid(raise_exception=True)
        data = form.validated_data
        try:
            sample = audit_sample_draw(
                project=self.project,
                actor=request.user,
                stratum_field=data["stratum_field"],
                mode=data["mode"],
                cap=data.get("cap"),
                rate=data.get("rate"),
                seed=data["seed"],
                audit_overlap=data["audit_overlap"],
            )
        except SamplingError as exc:
            return Response({"detail": str(exc)}, status=status.HTTP_400_BAD_REQUEST)
        return Response(AuditSampleSerializer(sample).data, status=status.HTTP_201_CREATED)
