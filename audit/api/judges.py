"""GET /api/projects/<slug>/judges/report/ — how each LLM judge agrees with settled human labels
(reviewers and managers; annotators get 404 like outsiders)."""

from __future__ import annotations

from django.shortcuts import get_object_or_404
from drf_spectacular.utils import extend_schema
from rest_framework import serializers
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from annotation.access import STAFF_ROLES
from annotation.api.serializers import ErrorSerializer
from annotation.api.views.base import ProjectScoped
from audit.judges import judge_vs_human
from audit.services.sampling import STRATUM_FIELDS
from workers.models import JudgeConfig


class JudgeReportQuerySerializer(serializers.Serializer):
    by = serializers.ChoiceField(
        choices=list(STRATUM_FIELDS), default="bucket", help_text="Stratum of the per-stratum accuracy."
    )
    judge = serializers.IntegerField(
        required=False,
        min_value=1,
        help_text="One judge config's id; every config of the project without it.",
    )


def _float(**kw) -> serializers.FloatField:
    return serializers.FloatField(allow_null=True, **kw)


class AccuracyRowSerializer(serializers.Serializer):
    name = serializers.CharField(help_text="Stratum, bucket or bin.")
    n = serializers.IntegerField()
    accuracy = _float(help_text="Mean pair score; null with no pairs.")


class PairReportSerializer(serializers.Serializer):
    n = serializers.IntegerField(help_text="Verified pairs with a usable suggestion.")
    accuracy = _float(help_text="Mean over pairs of the mean correctness over both orders (0, ½ or 1).")
    kappa = _float(help_text="Cohen's κ of the suggestion's label (inconsistent: own category) vs settled.")
    consistency = _float(help_text="Share of pairs whose two orders agreed in canonical terms.")
    n_consistency = serializers.IntegerField(help_text="Pairs whose consistency could be told.")
    strata = AccuracyRowSerializer(many=True)
    buckets = AccuracyRowSerializer(many=True, help_text="The 7 Plan-RewardBench buckets, in table order.")
    avg = _float(help_text="Macro-average over the buckets that have pairs.")
    avg_complete = serializers.BooleanField(help_text="Whether all 7 buckets have pairs.")
    length_bins = AccuracyRowSerializer(many=True, help_text="Approx. tokens: context + both candidates.")
    turn_bins = AccuracyRowSerializer(many=True, help_text="Context turns + the longer candidate's.")


class DimensionSerializer(serializers.Serializer):
    pearson = _float()
    kappa = _float()
    accuracy = _float()


class DimensionsSerializer(serializers.Serializer):
    perception = DimensionSerializer()
    cognition = DimensionSerializer()
    action = DimensionSerializer()


class DomainRowSerializer(serializers.Serializer):
    name = serializers.CharField()
    n = serializers.IntegerField()
    perception = _float()
    cognition = _float()
    action = _float()


class DomainAverageSerializer(serializers.Serializer):
    perception = _float()
    cognition = _float()
    action = _float()


class PcaReportSerializer(serializers.Serializer):
    n = serializers.IntegerField()
    dimensions = DimensionsSerializer()
    domains = DomainRowSerializer(many=True, help_text="Judge–human agreement per domain and dimension.")
    domain_average = DomainAverageSerializer(help_text="Plain mean over the domains (PCA-Bench).")


class StepReportSerializer(serializers.Serializer):
    n = serializers.IntegerField()
    mrr = _float(help_text="Mean reciprocal rank of the settled chosen candidate by judge reward.")
    step_accuracy = _float(help_text="Share of steps whose chosen candidate ranks strictly first.")
    n_tasks = serializers.IntegerField(help_text="Tasks with every step settled and judged.")
    n_tasks_incomplete = serializers.IntegerField()
    trajectory_accuracy = _float(help_text="Share of those tasks ranked first at every step.")


class JudgeRowSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    name = serializers.CharField()
    protocol = serializers.CharField()
    model = serializers.CharField()
    prompt_version = serializers.IntegerField()
    n_items = serializers.IntegerField()
    n_failed = serializers.IntegerField(help_text="Verified items with only failed suggestions.")
    pairs = PairReportSerializer(allow_null=True)
    pca = PcaReportSerializer(allow_null=True)
    steps = StepReportSerializer(allow_null=True)


class JudgeReportSerializer(serializers.Serializer):
    project = serializers.CharField()
    stratum_field = serializers.CharField()
    buckets = serializers.ListField(child=serializers.CharField())
    judges = JudgeRowSerializer(many=True)


class JudgeReportView(ProjectScoped, APIView):
    project_roles = STAFF_ROLES

    @extend_schema(
        summary="Judge-vs-human report (reviewers and managers).",
        description=(
            "Per judge config, against settled labels of verified items: for pairs accuracy (each pair "
            "scores the mean correctness of its two orders), Cohen's κ, position consistency, accuracy "
            "per stratum, per Plan-RewardBench bucket with the macro 'Avg', by length and turn bin; for "
            "P/C/A items Pearson r and κ per dimension and the plain mean over domains; for step items "
            "MRR, step accuracy and trajectory accuracy. The latest successful suggestion per item counts."
        ),
        tags=["audit"],
        parameters=[JudgeReportQuerySerializer],
        responses={200: JudgeReportSerializer, 400: ErrorSerializer, 404: ErrorSerializer},
    )
    def get(self, request: Request, slug: str) -> Response:
        query = JudgeReportQuerySerializer(data=request.query_params)
        query.is_valid(raise_exception=True)
        config = None
        if "judge" in query.validated_data:
            config = get_object_or_404(JudgeConfig, project=self.project, pk=query.validated_data["judge"])
        by = query.validated_data["by"]
        return Response(judge_vs_human(project=self.project, config=config, stratum_field=by))
