"""Review: adjudications and the audit log of every item state change."""

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
