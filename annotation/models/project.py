"""Projects (labeling campaigns) and who may do what in them."""

from __future__ import annotations

from django.conf import settings
from django.db import models

# Critical-failure tags offered by default, per task family (protocols.md, section A).
DEFAULT_CRITICAL_TAGS: dict[str, list[str]] = {
    "safety_refusal": ["unsafe_compliance", "late_refusal", "over_refusal"],
    "tool_irrelevance": ["tool_hallucination", "unnecessary_tool_call", "fabricated_result"],
    "complex_planning": [
        "constraint_violation",
        "dependency_error",
        "numeric_error",
        "fabricated_result",
        "tool_hallucination",
    ],
    "robust_recovery": ["blind_retry", "premature_surrender", "fabricated_result"],
    "*": ["tool_hallucination", "fabricated_result", "unsafe_compliance", "constraint_violation"],
}


CHECKLIST_SCOPES = ("chosen", "per_candidate", "trajectory")


class Role(models.TextChoices):
    ANNOTATOR = "annotator", "Annotator"
    REVIEWER = "reviewer", "Reviewer"
    MANAGER = "manager", "Manager"


class Project(models.Model):
    KIND_CHOICES = [
        ("pair", "Trajectory pairs"),
        ("step", "Web steps"),
        ("trace", "Reasoning traces"),
        ("pca", "Perception / cognition / action"),
        ("recording", "Expert recordings"),
        ("query", "Query refinement"),
    ]

    slug = models.SlugField(unique=True, max_length=80)
    name = models.CharField(max_length=200)
    kind = models.CharField(max_length=16, choices=KIND_CHOICES)
    guidelines = models.TextField(blank=True, help_text="Markdown shown to annotators.")
    # {"critical_tags": {family: [tag, ...]}, "allow_tie": bool, "show_annotator_names": bool,
    #  "checklist_scope": "chosen" | "per_candidate" | "trajectory"}
    label_schema = models.JSONField(default=dict, blank=True)
    overlap = models.PositiveSmallIntegerField(default=2, help_text="Annotations wanted per item.")
    # {"mode": "cap" | "rate", "cap": 80, "rate": 0.1, "seed": 0, "audit_overlap": 2}
    audit_policy = models.JSONField(default=dict, blank=True)
    show_suggestions = models.BooleanField(default=False)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["name"]

    def __str__(self) -> str:
        return self.name

    @property
    def allow_tie(self) -> bool:
        return bool(self.label_schema.get("allow_tie", True))

    @property
    def checklist_scope(self) -> str:
        """Step items: what a checklist mark judges: the state after the chosen candidate
        (default), the state after each candidate, or the trajectory so far."""
        scope = self.label_schema.get("checklist_scope", "chosen")
        return scope if scope in CHECKLIST_SCOPES else "chosen"

    def critical_tags(self, family: str = "") -> list[str]:
        tags = self.label_schema.get("critical_tags") or DEFAULT_CRITICAL_TAGS
        return list(tags.get(family) or tags.get("*") or [])

    def all_critical_tags(self) -> list[str]:
        tags = self.label_schema.get("critical_tags") or DEFAULT_CRITICAL_TAGS
        return sorted({tag for group in tags.values() for tag in group})


class Membership(models.Model):
    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="memberships")
    project = models.ForeignKey(Project, on_delete=models.CASCADE, related_name="memberships")
    role = models.CharField(max_length=16, choices=Role.choices)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["user", "project"], name="one_role_per_project")]

    def __str__(self) -> str:
        return f"{self.user} · {self.project} · {self.role}"
