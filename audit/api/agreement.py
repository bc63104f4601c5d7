"""GET /api/projects/<slug>/agreement/ — the agreement report (reviewers and managers).

Annotators get 404 like outsiders: the numbers show how each of them agrees with the others.
"""

from __future__ import annotations

from drf_spectacular.utils import extend_schema
from rest_framework import serializers
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from annotation.access import STAFF_ROLES
from annotation.api.serializers import ErrorSerializer
from annotation.api.views.base import ProjectScoped
from audit.agreement import LEVELS, agreement_report

from .kinds import AuditKindsSerializer
from .stats import AgreementStatsSerializer, KappaSerializer

# "stratum" is the stored name of the bucket (Item.stratum); both are accepted.
BY = ("family", "bucket", "stratum", "difficulty", "domain")
MAX_RESAMPLES = 5000


class AgreementQuerySerializer(serializers.Serializer):
    by = serializers.ChoiceField(choices=BY, default="family", help_text="Stratum to split the numbers by.")
    level = serializers.ChoiceField(
        choices=LEVELS, default="nominal", help_text="Level of measurement (α; weighted κ unless nominal)."
    )
    bootstrap = serializers.IntegerField(
        min_value=0,
        max_value=MAX_RESAMPLES,
        default=1000,
        help_text="Bootstrap resamples for the CIs (0: none).",
    )
    seed = serializers.IntegerField(min_value=0, max_value=2**63 - 1, default=0, help_text="Bootstrap seed.")


def _float(**kw) -> serializers.FloatField:
    return serializers.FloatField(allow_null=True, **kw)


class AnnotatorMatrixSerializer(serializers.Serializer):
    annotators = serializers.ListField(child=serializers.CharField())
    kappa = serializers.ListField(
        child=serializers.ListField(child=_float()), help_text="Pairwise Cohen's κ."
    )
    counts = serializers.ListField(
        child=serializers.ListField(child=serializers.IntegerField()),
        help_text="Items both labeled; the diagonal: items the annotator labeled.",
    )


class AnnotatorQualitySerializer(serializers.Serializer):
    username = serializers.CharField()
    n_done = serializers.IntegerField()
    n_settled = serializers.IntegerField()
    agreement_with_settled = _float(help_text="Share of their labels equal to the settled label.")
    median_seconds = _float()
    n_skipped = serializers.IntegerField()
    skip_rate = _float()
    n_decided = serializers.IntegerField()
    adjudication_share = _float(help_text="Share of their decided items that went to a reviewer.")


class FamilyKappaSerializer(serializers.Serializer):
    family = serializers.CharField(allow_blank=True, help_text='"" for items without a family.')
    audited = serializers.IntegerField(help_text="Items with at least two labels in the κ.")
    sample = serializers.ChoiceField(choices=["audit sample", "all items"])
    kappa = KappaSerializer()
    percent_agreement = _float()


class AgreementReportSerializer(serializers.Serializer):
    project = serializers.CharField()
    kind = serializers.CharField()
    by = serializers.ChoiceField(choices=BY)
    overall = AgreementStatsSerializer()
    strata = serializers.DictField(child=AgreementStatsSerializer(), help_text="Stratum value → statistics.")
    annotator_matrix = AnnotatorMatrixSerializer()
    annotator_quality = AnnotatorQualitySerializer(many=True)
    family_kappa = FamilyKappaSerializer(many=True)
    kinds = AuditKindsSerializer(
        help_text="Sections for P/C/A, step, trace and query items; null where the project has none."
    )


class AgreementView(ProjectScoped, APIView):
    project_roles = STAFF_ROLES

    @extend_schema(
        summary="Agreement of the project's pre-adjudication labels (reviewers and managers).",
        description=(
            "Percent agreement, Cohen's κ (weighted too when level is ordinal or interval), Fleiss' κ "
            "and Krippendorff's α, each with a 95% bootstrap CI and its Landis & Koch band, overall "
            "and per stratum; the annotator × annotator κ matrix, per-annotator quality and the κ "
            "table per family. Pairs are compared in canonical terms (which trajectory was "
            "preferred), never in the A/B order an annotator saw. Discarded items are left out. "
            "The same report as `manage.py agreement_report SLUG --json`."
        ),
        tags=["audit"],
        parameters=[AgreementQuerySerializer],
        responses={200: AgreementReportSerializer, 400: ErrorSerializer, 404: ErrorSerializer},
    )
    def get(self, request: Request, slug: str) -> Response:
        query = AgreementQuerySerializer(data=request.query_params)
        query.is_valid(raise_exception=True)
        return Response(agreement_report(project=self.project, **query.validated_data))
