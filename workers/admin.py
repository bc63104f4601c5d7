from django.contrib import admin

from .models import JudgeConfig, JudgeRun, PromptRevision


@admin.register(JudgeConfig)
class JudgeConfigAdmin(admin.ModelAdmin):
    list_display = ["name", "project", "protocol", "model", "prompt_version", "requests_per_minute"]
    list_filter = ["protocol", "project"]


@admin.register(PromptRevision)
class PromptRevisionAdmin(admin.ModelAdmin):
    list_display = ["config", "version", "created_by", "created_at"]


@admin.register(JudgeRun)
class JudgeRunAdmin(admin.ModelAdmin):
    list_display = ["id", "config", "status", "items_done", "items_failed", "items_total", "created_at"]
    list_filter = ["status"]
