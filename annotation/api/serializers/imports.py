"""Uploading a file to import, and following the job."""

from __future__ import annotations

from rest_framework import serializers

from annotation.models import ImportJob


class ImportUploadSerializer(serializers.Serializer):
    file = serializers.FileField(help_text="JSON Lines, one record per line (see the formats doc).")
    media = serializers.FileField(required=False, help_text="Optional zip of the files under media/.")
    replace = serializers.BooleanField(
        required=False,
        default=False,
        help_text="Replace records with the same id that have no annotations yet.",
    )


class ImportJobSerializer(serializers.ModelSerializer):
    created_by = serializers.CharField(source="created_by.username", read_only=True)

    class Meta:
        model = ImportJob
        fields = [
            "id",
            "filename",
            "status",
            "replace",
            "lines_read",
            "counts",
            "errors",
            "created_by",
            "created_at",
            "finished_at",
        ]
        read_only_fields = fields


class ImportAcceptedSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    status = serializers.CharField()
    status_url = serializers.URLField()
