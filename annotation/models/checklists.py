"""Versioned step checklists: an annotator who finds the imported checklist wrong edits it (at
most five items) with a reason; every edit is a new version, none is overwritten."""

from __future__ import annotations

from django.conf import settings
from django.db import models

from .work import Item

MAX_CHECKLIST_ITEMS = 5


class ChecklistVersion(models.Model):
    item = models.ForeignKey(Item, on_delete=models.CASCADE, related_name="checklist_versions")
    # 1 is the imported checklist (item.payload["checklist"]); edits count up from 2.
    version = models.PositiveIntegerField()
    parent_version = models.PositiveIntegerField(default=1)
    # [{"title": "...", "goal": "..."}] as in the import format, at most MAX_CHECKLIST_ITEMS.
    items = models.JSONField(default=list)
    reason = models.TextField()
    author = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+")
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["item", "version"]
        constraints = [
            models.UniqueConstraint(fields=["item", "version"], name="one_checklist_version_number"),
        ]

    def __str__(self) -> str:
        return f"checklist v{self.version} of item {self.item_id}"
