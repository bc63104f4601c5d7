"""Projects as a member sees them."""

from __future__ import annotations

from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from annotation.models import ItemKind, Project, Role
from annotation.models.project import DEFAULT_CRITICAL_TAGS


class ProjectSerializer(serializers.ModelSerializer):
    """A row of "my projects"; the view passes {project id: role} as context `roles`."""

    # Same values as Project.KIND_CHOICES; one enum keeps the schema to one `KindEnum`.
    kind = serializers.ChoiceField(choices=ItemKind.choices, read_only=True)
    role = serializers.SerializerMethodField()
    n_items = serializers.IntegerField(read_only=True)
    n_verified = serializers.IntegerField(read_only=True)

    class Meta:
        model = Project
        fields = ["slug", "name", "kind", "role", "overlap", "n_items", "n_verified"]

    @extend_schema_field(serializers.ChoiceField(choices=Role.choices))
    def get_role(self, project: Project) -> str:
        return self.context["roles"][project.pk]


class LabelSchemaSerializer(serializers.Serializer):
    critical_tags = serializers.DictField(
        child=serializers.ListField(child=serializers.CharField()),
        help_text='Critical-failure tags per task family; "*" applies to families not listed.',
    )
    allow_tie = serializers.BooleanField()


class ProgressSerializer(serializers.Serializer):
    done = serializers.IntegerField(help_text="Items I labeled.")
    skipped = serializers.IntegerField()
    assigned = serializers.IntegerField(help_text="Items I hold a lease on.")
    total = serializers.IntegerField()
    settled = serializers.IntegerField(help_text="Verified or discarded.")
    adjudication = serializers.IntegerField()
    open = serializers.IntegerField()
    remaining_slots = serializers.IntegerField(help_text="Labels the project still wants.")


class ProjectDetailSerializer(serializers.ModelSerializer):
    """One project; the view passes `role` and `progress` as context."""

    kind = serializers.ChoiceField(choices=ItemKind.choices, read_only=True)
    role = serializers.SerializerMethodField()
    label_schema = serializers.SerializerMethodField()
    progress = serializers.SerializerMethodField()

    class Meta:
        model = Project
        fields = [
            "slug",
            "name",
            "kind",
            "role",
            "guidelines",
            "label_schema",
            "overlap",
            "allow_tie",
            "show_suggestions",
            "progress",
        ]

    @extend_schema_field(serializers.ChoiceField(choices=Role.choices))
    def get_role(self, project: Project) -> str:
        return self.context["role"]

    @extend_schema_field(LabelSchemaSerializer)
    def get_label_schema(self, project: Project) -> dict:
        tags = project.label_schema.get("critical_tags") or DEFAULT_CRITICAL_TAGS
        return {"critical_tags": tags, "allow_tie": project.allow_tie}

    @extend_schema_field(ProgressSerializer)
    def get_progress(self, project: Project) -> dict:
        return ProgressSerializer(self.context["progress"]).data
