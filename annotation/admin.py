from django.contrib import admin

from .models import (
    Annotation,
    AnnotationRevision,
    Assignment,
    ImportJob,
    Item,
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


@admin.register(Item)
class ItemAdmin(admin.ModelAdmin):
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
