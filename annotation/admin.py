from django import forms
from django.contrib import admin

from .models import (
    Annotation,
    AnnotationRevision,
    Assignment,
    ImportJob,
    Item,
    ItemKind,
    Membership,
    Project,
    Task,
    ToolEnv,
    Trajectory,
)


class MembershipInline(admin.TabularInline):
    model = Membership
    extra = 1
    autocomplete_fields = ["user"]


@admin.register(Project)
class ProjectAdmin(admin.ModelAdmin):
    list_display = ["name", "slug", "kind", "overlap", "show_suggestions", "created_at"]
    list_filter = ["kind"]
    search_fields = ["name", "slug"]
    prepopulated_fields = {"slug": ["name"]}
    inlines = [MembershipInline]


@admin.register(Membership)
class MembershipAdmin(admin.ModelAdmin):
    list_display = ["user", "project", "role"]
    list_filter = ["role", "project"]
    list_select_related = ["user", "project"]


@admin.register(ToolEnv)
class ToolEnvAdmin(admin.ModelAdmin):
    list_display = ["name", "project"]
    list_filter = ["project"]


@admin.register(Task)
class TaskAdmin(admin.ModelAdmin):
    list_display = ["id", "project", "family", "bucket", "difficulty", "website"]
    list_filter = ["project", "family", "bucket"]
    search_fields = ["instruction"]
    raw_id_fields = ["tool_env"]


@admin.register(Trajectory)
class TrajectoryAdmin(admin.ModelAdmin):
    list_display = ["id", "project", "n_turns", "n_tool_calls", "approx_tokens", "has_malformed_arguments"]
    list_filter = ["project", "has_malformed_arguments"]
    raw_id_fields = ["task", "parent"]


def pca_instance_errors(payload: object, task: Task | None) -> dict[str, str]:
    """What is wrong with a P/C/A item's instance (formats/README.md `pca`): the answer must be
    one of the candidates (the action score is read against it), and the image must be the
    task's image (exports keep every item of one image in one split by it)."""
    instance = payload.get("instance") if isinstance(payload, dict) else None
    if not isinstance(instance, dict):
        return {"payload": 'A P/C/A item keeps its instance under payload["instance"].'}
    candidates = instance.get("candidates")
    if not isinstance(candidates, list) or not candidates:
        return {"payload": "The instance has no candidate actions (instance.candidates)."}
    answer = instance.get("answer")
    if answer not in candidates:
        listed = "; ".join(repr(c) for c in candidates)
        return {
            "payload": f"The instance answer {answer!r} is not one of its candidates ({listed}). "
            "Make the answer one of the candidates, or add it to them."
        }
    image = instance.get("image")
    if task is not None and image and task.media and image not in task.media:
        shown = ", ".join(map(str, task.media))
        return {
            "task": f"The instance image {image!r} is not the task's image ({shown}); "
            "pick the task of this image."
        }
    return {}


class ItemAdminForm(forms.ModelForm):
    class Meta:
        model = Item
        fields = "__all__"  # noqa: DJ007 - the admin edits every field

    def clean(self) -> dict:
        data = super().clean()
        if data.get("kind") == ItemKind.PCA:
            for field, message in pca_instance_errors(data.get("payload"), data.get("task")).items():
                self.add_error(field, message)
        return data


@admin.register(Item)
class ItemAdmin(admin.ModelAdmin):
    form = ItemAdminForm
    list_display = [
        "external_id",
        "project",
        "kind",
        "state",
        "stratum",
        "priority",
        "overlap",
        "n_annotations",
    ]
    list_filter = ["project", "kind", "state", "stratum"]
    search_fields = ["external_id"]
    raw_id_fields = ["task", "trajectory_first", "trajectory_second"]


@admin.register(Assignment)
class AssignmentAdmin(admin.ModelAdmin):
    list_display = ["item", "annotator", "status", "leased_at", "expires_at"]
    list_filter = ["status"]
    raw_id_fields = ["item"]
    list_select_related = ["item", "annotator"]


class RevisionInline(admin.TabularInline):
    model = AnnotationRevision
    extra = 0
    readonly_fields = ["version", "label", "rationale", "edited_by", "created_at"]


@admin.register(Annotation)
class AnnotationAdmin(admin.ModelAdmin):
    list_display = ["item", "annotator", "version", "seconds_spent", "flagged", "created_at"]
    list_filter = ["flagged"]
    raw_id_fields = ["item", "assignment"]
    list_select_related = ["item", "annotator"]
    inlines = [RevisionInline]


@admin.register(ImportJob)
class ImportJobAdmin(admin.ModelAdmin):
    list_display = ["filename", "project", "status", "lines_read", "created_at", "finished_at"]
    list_filter = ["status"]
