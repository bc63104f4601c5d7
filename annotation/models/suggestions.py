"""Machine labels: what an LLM judge or a local model proposed for an item."""

from __future__ import annotations

from django.db import models

from .work import Item


class Suggestion(models.Model):
    item = models.ForeignKey(Item, on_delete=models.CASCADE, related_name="suggestions")
    # Set for LLM-judge suggestions: which judge, in which run. An item × judge × prompt version
    # is judged once (a forced re-run replaces the row).
    judge_config = models.ForeignKey(
        "workers.JudgeConfig", null=True, blank=True, on_delete=models.CASCADE, related_name="suggestions"
    )
    run = models.ForeignKey(
        "workers.JudgeRun", null=True, blank=True, on_delete=models.SET_NULL, related_name="suggestions"
    )
    # Who made it: a judge configuration or a model name; `config` keeps the settings used.
    source = models.CharField(max_length=200)
    config = models.JSONField(default=dict, blank=True)
    prompt_version = models.CharField(max_length=64, blank=True)
    label = models.JSONField(default=dict, blank=True)  # canonical terms, like Annotation.label
    scores = models.JSONField(default=dict, blank=True)
    rationale = models.TextField(blank=True)
    raw_output = models.TextField(blank=True)
    tokens_in = models.PositiveIntegerField(default=0)
    tokens_out = models.PositiveIntegerField(default=0)
    cost_usd = models.DecimalField(max_digits=12, decimal_places=6, default=0)
    latency_ms = models.PositiveIntegerField(default=0)
    error = models.TextField(blank=True, help_text="Why the suggestion failed (parse error, HTTP error ...).")
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        indexes = [models.Index(fields=["item", "source"], name="suggestion_by_item")]
        constraints = [
            models.UniqueConstraint(
                fields=["item", "judge_config", "prompt_version"],
                condition=models.Q(judge_config__isnull=False),
                name="one_suggestion_per_judge_version",
            )
        ]

    def __str__(self) -> str:
        return f"{self.source} on {self.item}"
