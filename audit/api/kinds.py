"""Schema of the per-kind part of the agreement report (audit.kinds): P/C/A, step, trace, query.

Agreement entries have the shape of the report's overall statistics (AgreementStatsSerializer).
Class names carry an Audit prefix: they name the OpenAPI components.
"""

from __future__ import annotations

from rest_framework import serializers

from .stats import AgreementStatsSerializer as Stats


def _float(**kw) -> serializers.FloatField:
    return serializers.FloatField(allow_null=True, **kw)


class AuditPcaScoresSerializer(serializers.Serializer):
    perception = _float()
    cognition = _float()
    action = _float()


class AuditPcaDomainSerializer(AuditPcaScoresSerializer):
    name = serializers.CharField()
    n = serializers.IntegerField()


class AuditPcaAverageSerializer(AuditPcaScoresSerializer):
    n_domains = serializers.IntegerField()


class AuditPcaCategoryCountsSerializer(serializers.Serializer):
    perception = serializers.IntegerField(help_text="Perception failures: P = 0.")
    cognition = serializers.IntegerField(help_text="Cognition failures: P = 1, C = 0.")
    action = serializers.IntegerField(help_text="Action-only failures: P = 1, C = 1, A = 0.")
    none = serializers.IntegerField(help_text="No failure: P = C = A = 1.")


class AuditPcaCategoryDomainSerializer(AuditPcaCategoryCountsSerializer):
    name = serializers.CharField()
    n = serializers.IntegerField()


class AuditPcaCategoriesSerializer(serializers.Serializer):
    n = serializers.IntegerField(help_text="Verified items counted.")
    overall = AuditPcaCategoryCountsSerializer()
    domains = AuditPcaCategoryDomainSerializer(many=True)


class AuditPcaItemSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    external_id = serializers.CharField()
    domain = serializers.CharField()
    perception = serializers.IntegerField()
    cognition = serializers.IntegerField()
    action = serializers.IntegerField()
    category = serializers.ChoiceField(choices=["perception", "cognition", "action", "none"])


class AuditPcaJudgeSerializer(serializers.Serializer):
    name = serializers.CharField(help_text="Judge config name, else the suggestion's source.")
    n = serializers.IntegerField()
    n_failed = serializers.IntegerField()
    pearson = AuditPcaScoresSerializer(help_text="Pearson r per dimension vs the settled 0/1 labels.")
    domains = AuditPcaDomainSerializer(many=True)
    domain_average = AuditPcaAverageSerializer()


class AuditLenientSerializer(serializers.Serializer):
    n_units = serializers.IntegerField()
    n_pairs = serializers.IntegerField(help_text="Pairs of labels on the same item.")
    percent_agreement = _float()
    kappa = _float(help_text="Cohen's κ with a lenient match counted as the same answer.")


class AuditStepMachineSerializer(serializers.Serializer):
    name = serializers.CharField()
    n = serializers.IntegerField(help_text="Verified steps ranked.")
    n_failed = serializers.IntegerField()
    mrr = _float()
    step_accuracy = _float()
    n_trajectories = serializers.IntegerField(help_text="Trajectories with every step verified and ranked.")
    n_trajectories_incomplete = serializers.IntegerField()
    trajectory_accuracy = _float()


class AuditQueryDecisionsSerializer(serializers.Serializer):
    pick = serializers.IntegerField()
    edit = serializers.IntegerField()
    reject = serializers.IntegerField()


class AuditQueryReasonsSerializer(serializers.Serializer):
    tool_hinting = serializers.IntegerField()
    trivially_answerable = serializers.IntegerField()
    ambiguous = serializers.IntegerField()


class AuditPcaAgreementSerializer(serializers.Serializer):
    perception = Stats()
    cognition = Stats()
    action = Stats()


class AuditPcaSerializer(serializers.Serializer):
    agreement = AuditPcaAgreementSerializer(help_text="Per dimension, 0/1 scores.")
    categories = AuditPcaCategoriesSerializer()
    domains = AuditPcaDomainSerializer(many=True, help_text="Share of 1s per domain (settled labels).")
    domain_average = AuditPcaAverageSerializer(help_text="Plain mean over domains of the domain shares.")
    items = AuditPcaItemSerializer(many=True)
    judges = AuditPcaJudgeSerializer(many=True)


class AuditStepSerializer(serializers.Serializer):
    best = Stats(help_text="Best candidate id as a category (strict).")
    best_lenient = AuditLenientSerializer()
    checklist = Stats(help_text="Checklist marks no < in_progress < yes, per item × position.")
    machines = AuditStepMachineSerializer(many=True)


class AuditTraceChecksSerializer(serializers.Serializer):
    tool_choice = Stats()
    argument_format = Stats()
    step_order = Stats()
    output_alignment = Stats()
    evidence = Stats()


class AuditTraceSerializer(serializers.Serializer):
    verdict = Stats()
    checks = AuditTraceChecksSerializer(help_text="Pass/fail per item × step of the original trace.")


class AuditQuerySerializer(serializers.Serializer):
    chosen = Stats(help_text="Chosen candidate index, or 'reject'.")
    decisions = AuditQueryDecisionsSerializer()
    reject_reasons = AuditQueryReasonsSerializer()


class AuditKindsSerializer(serializers.Serializer):
    pca = AuditPcaSerializer(allow_null=True)
    step = AuditStepSerializer(allow_null=True)
    trace = AuditTraceSerializer(allow_null=True)
    query = AuditQuerySerializer(allow_null=True)
