"""Audit: the record of each stratified audit sample a manager drew."""

from __future__ import annotations

from django.conf import settings
from django.db import models


class AuditSample(models.Model):
    project = models.ForeignKey("annotation.Project", on_delete=models.CASCADE, related_name="audit_samples")
    created_by = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+")
    # {"stratum_field": "family", "mode": "cap"|"rate", "cap": 80, "rate": 0.1, "audit_overlap": 2}
    policy = models.JSONField(default=dict)
    seed = models.BigIntegerField()
    # {stratum: {"population": n, "sampled": n}}
    counts = models.JSONField(default=dict, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-created_at"]

    def __str__(self) -> str:
        return f"audit sample {self.pk} of {self.project} (seed {self.seed})"
