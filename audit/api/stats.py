"""Serializers of one block of agreement statistics (audit.agreement.stats.agreement_stats)."""

from __future__ import annotations

from rest_framework import serializers

from audit.agreement import LEVELS


def _float(**kw) -> serializers.FloatField:
    return serializers.FloatField(allow_null=True, **kw)


class CoefficientSerializer(serializers.Serializer):
    value = _float()
    ci_low = _float(help_text="Lower end of the 95% percentile bootstrap interval.")
    ci_high = _float()
    band = serializers.CharField(allow_null=True, help_text="Landis & Koch band: poor … almost perfect.")


class KappaSerializer(CoefficientSerializer):
    method = serializers.CharField(
        allow_null=True, help_text="'two raters', or the mean of pairwise κ with how many pairs."
    )
    n_pairs = serializers.IntegerField()


class FleissSerializer(CoefficientSerializer):
    n_units = serializers.IntegerField(help_text="Units with the modal number of ratings (those counted).")
    ratings_per_unit = serializers.IntegerField(allow_null=True)


class AlphaSerializer(CoefficientSerializer):
    level = serializers.ChoiceField(choices=LEVELS)


class IntervalSerializer(serializers.Serializer):
    ci_low = _float()
    ci_high = _float()


class BootstrapSerializer(serializers.Serializer):
    resamples = serializers.IntegerField()
    seed = serializers.IntegerField()
    confidence = serializers.FloatField()


class AgreementStatsSerializer(serializers.Serializer):
    level = serializers.ChoiceField(choices=LEVELS)
    categories = serializers.ListField(
        child=serializers.CharField(), help_text="Canonical values, scale order."
    )
    n_units = serializers.IntegerField(help_text="Items with at least two labels (the ones measured).")
    n_units_single = serializers.IntegerField(help_text="Items with one label so far (not measured).")
    n_raters = serializers.IntegerField()
    n_ratings = serializers.IntegerField()
    distribution = serializers.DictField(child=serializers.IntegerField(), help_text="Labels per value.")
    bootstrap = BootstrapSerializer()
    percent_agreement = _float(help_text="Agreeing pairs among all pairs of labels of the same item.")
    percent_agreement_ci = IntervalSerializer()
    cohen_kappa = KappaSerializer()
    weighted_kappa_linear = KappaSerializer(required=False, help_text="Only when level is not nominal.")
    weighted_kappa_quadratic = KappaSerializer(required=False, help_text="Only when level is not nominal.")
    fleiss_kappa = FleissSerializer()
    krippendorff_alpha = AlphaSerializer()
