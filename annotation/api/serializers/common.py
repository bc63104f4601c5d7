"""Shapes of error answers, for the schema."""

from __future__ import annotations

from rest_framework import serializers


class ErrorSerializer(serializers.Serializer):
    detail = serializers.CharField()


class LabelErrorSerializer(ErrorSerializer):
    label = serializers.DictField(
        child=serializers.CharField(), required=False, help_text="Field → reason, for `label`."
    )
    label_seen = serializers.DictField(
        child=serializers.CharField(), required=False, help_text="Field → reason, for `label_seen` (A/B)."
    )


class SkipSerializer(serializers.Serializer):
    reason = serializers.CharField(max_length=2000, help_text="Why you skip this item (required).")


class SkipResultSerializer(serializers.Serializer):
    item = serializers.IntegerField(source="item_id")
    status = serializers.CharField()
    skip_reason = serializers.CharField()
