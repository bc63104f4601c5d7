"""Review: the audit log of every item state change, adjudications, and exports."""

from __future__ import annotations

from django.conf import settings
from django.db import models


class AuditLog(models.Model):
    """Who changed what, when, from which state to which, and why."""

    project = models.ForeignKey("annotation.Project", on_delete=models.CASCADE, related_name="audit_log")
    item = models.ForeignKey(
        "annotation.Item", null=True, blank=True, on_delete=models.CASCADE, related_name="audit_log"
    )
    actor = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.PROTECT)
    action = models.CharField(max_length=64)  # "state", "annotate", "import", "assign", ...
    from_state = models.CharField(max_length=16, blank=True)
    to_state = models.CharField(max_length=16, blank=True)
    reason = models.TextField(blank=True)
    data = models.JSONField(default=dict, blank=True)
    created_at = models.DateTimeField(auto_now_add=True, db_index=True)

    class Meta:
        ordering = ["created_at", "id"]
        indexes = [models.Index(fields=["item", "created_at"], name="audit_by_item")]

    def __str__(self) -> str:
        return f"{self.created_at:%Y-%m-%d %H:%M} {self.action} {self.from_state}→{self.to_state}"


class Adjudication(models.Model):
    """A reviewer's decision on an item: the final label, or a discard, with the reason."""

    class Decision(models.TextChoices):
        LABEL = "label", "Final label"
        DISCARD = "discard", "Discard"

    item = models.ForeignKey("annotation.Item", on_delete=models.CASCADE, related_name="adjudications")
    reviewer = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="adjudications"
    )
    decision = models.CharField(max_length=16, choices=Decision.choices)
    label = models.JSONField(default=dict, blank=True)  # canonical terms
    reason = models.TextField()
    seconds_spent = models.PositiveIntegerField(default=0)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["created_at", "id"]

    def __str__(self) -> str:
        return f"{self.get_decision_display()} on {self.item} by {self.reviewer}"


class Export(models.Model):
    """A manager's export of verified items into named splits, built in a worker."""

    class Status(models.TextChoices):
        QUEUED = "queued", "Queued"
        RUNNING = "running", "Running"
        DONE = "done", "Done"
        FAILED = "failed", "Failed"

    project = models.ForeignKey("annotation.Project", on_delete=models.CASCADE, related_name="exports")
    created_by = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+")
    # {"strata": [...], "states": [...], "created_from": iso, "created_to": iso, "source": "..."}
    filters = models.JSONField(default=dict, blank=True)
    # {"splits": {"train": 0.8, "dev": 0.1, "test": 0.1}, "seed": 13, "stratify": true}
    split_policy = models.JSONField(default=dict, blank=True)
    formats = models.JSONField(default=list, blank=True)  # ["preference", "interchange", "parquet"]
    status = models.CharField(max_length=16, choices=Status.choices, default=Status.QUEUED)
    items_done = models.PositiveIntegerField(default=0)
    items_total = models.PositiveIntegerField(default=0)
    directory = models.CharField(max_length=1000, blank=True)
    files = models.JSONField(
        default=list, blank=True
    )  # [{"name", "split", "format", "rows", "sha256", "bytes"}]
    manifest = models.JSONField(default=dict, blank=True)
    error = models.TextField(blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    finished_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created_at"]

    def __str__(self) -> str:
        return f"export {self.pk} of {self.project} ({self.status})"
