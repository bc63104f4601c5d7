"""Workers: LLM-judge configurations, their prompt history, and judge runs over items."""

from __future__ import annotations

from django.conf import settings
from django.db import models


class JudgeProtocol(models.TextChoices):
    PAIRWISE = "pairwise", "Pairwise preference (both orders)"
    POINTWISE = "pointwise", "Pointwise 1-5 rubric"
    PCA = "pca", "P/C/A six-line scoring"
    CHECKLIST = "checklist", "Checklist Yes / In Progress / No"
    TRACE = "trace", "Agent-X trace scoring"


class JudgeConfig(models.Model):
    """How to ask one model to judge items. The API key is never stored: `api_key_env` names
    the environment variable (or setting) that holds it."""

    project = models.ForeignKey("annotation.Project", on_delete=models.CASCADE, related_name="judge_configs")
    name = models.CharField(max_length=120)
    protocol = models.CharField(max_length=16, choices=JudgeProtocol.choices)
    base_url = models.URLField(max_length=500)
    model = models.CharField(max_length=200)
    api_key_env = models.CharField(max_length=120, default="OPENAI_API_KEY", blank=True)
    temperature = models.FloatField(default=0.0)
    samples = models.PositiveSmallIntegerField(default=1, help_text="Judgments per item (K).")
    max_concurrency = models.PositiveSmallIntegerField(default=8)
    requests_per_minute = models.PositiveIntegerField(default=600)
    tokens_per_minute = models.PositiveIntegerField(default=0, help_text="0: no token limit.")
    timeout_seconds = models.FloatField(default=60.0)
    prompt_template = models.TextField()
    prompt_version = models.PositiveIntegerField(default=1)
    # Prices per million tokens, for cost so far.
    price_in_per_mtok = models.DecimalField(max_digits=10, decimal_places=4, default=0)
    price_out_per_mtok = models.DecimalField(max_digits=10, decimal_places=4, default=0)
    created_by = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+")
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["project", "name"], name="judge_name_per_project")]

    def __str__(self) -> str:
        return f"{self.name} ({self.model})"


class PromptRevision(models.Model):
    """Every version of a judge's prompt template, kept when it is edited."""

    config = models.ForeignKey(JudgeConfig, on_delete=models.CASCADE, related_name="prompt_revisions")
    version = models.PositiveIntegerField()
    template = models.TextField()
    created_by = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+")
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["config", "version"], name="one_prompt_per_version")]

    def __str__(self) -> str:
        return f"{self.config} v{self.version}"


class JudgeRun(models.Model):
    class Status(models.TextChoices):
        QUEUED = "queued", "Queued"
        RUNNING = "running", "Running"
        DONE = "done", "Done"
        FAILED = "failed", "Failed"
        CANCELLED = "cancelled", "Cancelled"

    config = models.ForeignKey(JudgeConfig, on_delete=models.CASCADE, related_name="runs")
    prompt_version = models.PositiveIntegerField()
    filters = models.JSONField(
        default=dict, blank=True
    )  # {"states": [...], "strata": [...], "item_ids": [...]}
    force = models.BooleanField(default=False, help_text="Judge again items that already have a suggestion.")
    status = models.CharField(max_length=16, choices=Status.choices, default=Status.QUEUED)
    cancel_requested = models.BooleanField(default=False)
    items_total = models.PositiveIntegerField(default=0)
    items_done = models.PositiveIntegerField(default=0)
    items_failed = models.PositiveIntegerField(default=0)
    items_skipped = models.PositiveIntegerField(default=0)
    requests_made = models.PositiveIntegerField(default=0)
    tokens_in = models.PositiveBigIntegerField(default=0)
    tokens_out = models.PositiveBigIntegerField(default=0)
    cost_usd = models.DecimalField(max_digits=12, decimal_places=6, default=0)
    error = models.TextField(blank=True)
    created_by = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+")
    created_at = models.DateTimeField(auto_now_add=True)
    started_at = models.DateTimeField(null=True, blank=True)
    # Written with the counters while a worker judges; a running run whose heartbeat is old
    # lost its worker and is resumed (workers.tasks.judges.judge_runs_recover).
    heartbeat_at = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created_at"]

    def __str__(self) -> str:
        return f"run {self.pk} of {self.config} ({self.status})"
