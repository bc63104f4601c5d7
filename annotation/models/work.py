"""Units of annotation work: items, leases on them, and the labels people give."""

from __future__ import annotations

import uuid

from django.conf import settings
from django.db import models

from .content import Task, Trajectory
from .project import Project


class ItemKind(models.TextChoices):
    PAIR = "pair", "Pair"
    STEP = "step", "Step"
    TRACE = "trace", "Trace"
    PCA = "pca", "PCA"
    RECORDING = "recording", "Recording"
    # Query refinement (Agent-X curation): pick, edit or reject candidate queries for a visual.
    QUERY = "query", "Query"


class ItemState(models.TextChoices):
    NEW = "new", "New"
    ANNOTATING = "annotating", "Annotating"
    ADJUDICATION = "adjudication", "In adjudication"
    VERIFIED = "verified", "Verified"
    DISCARDED = "discarded", "Discarded"


# States in which the queue still hands the item out.
OPEN_STATES = (ItemState.NEW, ItemState.ANNOTATING)


class Item(models.Model):
    project = models.ForeignKey(Project, on_delete=models.CASCADE, related_name="items")
    kind = models.CharField(max_length=16, choices=ItemKind.choices)
    external_id = models.CharField(max_length=200, help_text="The record's `id` in the imported file.")
    state = models.CharField(max_length=16, choices=ItemState.choices, default=ItemState.NEW)
    task = models.ForeignKey(Task, null=True, blank=True, on_delete=models.PROTECT, related_name="items")
    # Pairs: the two candidates in canonical order (labels refer to "first"/"second", never A/B).
    # Traces: `trajectory_first` is the trace under correction.
    trajectory_first = models.ForeignKey(
        Trajectory, null=True, blank=True, on_delete=models.PROTECT, related_name="+"
    )
    trajectory_second = models.ForeignKey(
        Trajectory, null=True, blank=True, on_delete=models.PROTECT, related_name="+"
    )
    # Kind-specific content that is shown (checklist, candidates, PCA instance, final answer ...).
    payload = models.JSONField(default=dict, blank=True)
    # Hidden from annotators: the source's answer, e.g. {"preferred": "first"}.
    gold = models.JSONField(default=dict, blank=True)
    meta = models.JSONField(default=dict, blank=True)
    stratum = models.CharField(max_length=64, blank=True, db_index=True)
    family = models.CharField(max_length=64, blank=True)
    difficulty = models.CharField(max_length=32, blank=True)
    priority = models.IntegerField(default=0)
    overlap = models.PositiveSmallIntegerField(default=2)
    n_annotations = models.PositiveIntegerField(default=0)
    # In the manager's stratified audit sample (audit.services.sampling); sampled items get the
    # project's audit overlap.
    audited = models.BooleanField(default=False)
    # The label the item settled on: the annotators' consensus or the adjudicated label.
    settled_label = models.JSONField(default=dict, blank=True)
    settled_at = models.DateTimeField(null=True, blank=True)
    discard_reason = models.TextField(blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["project", "external_id"], name="item_id_per_project"),
        ]
        indexes = [
            models.Index(fields=["project", "state", "-priority", "id"], name="item_queue_order"),
            # The queue walks open items in hand-out order and stops at the first free one;
            # without this partial index PostgreSQL sorts every open item on each request.
            models.Index(
                fields=["project", "-priority", "id"],
                condition=models.Q(state__in=["new", "annotating"]),
                name="item_open_queue",
            ),
            models.Index(fields=["project", "stratum"], name="item_stratum"),
        ]

    def __str__(self) -> str:
        return self.external_id


class AssignmentStatus(models.TextChoices):
    ACTIVE = "active", "Active"
    SUBMITTED = "submitted", "Submitted"
    SKIPPED = "skipped", "Skipped"
    RELEASED = "released", "Released"


class Assignment(models.Model):
    """A lease of one annotation slot of an item to one annotator."""

    item = models.ForeignKey(Item, on_delete=models.CASCADE, related_name="assignments")
    annotator = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="assignments"
    )
    status = models.CharField(
        max_length=16, choices=AssignmentStatus.choices, default=AssignmentStatus.ACTIVE
    )
    leased_at = models.DateTimeField()
    expires_at = models.DateTimeField()
    # The order the annotator sees the candidates in, e.g. ["second", "first"] = A is `second`.
    display_order = models.JSONField(default=list, blank=True)
    skip_reason = models.TextField(blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["item", "annotator"], name="one_assignment_per_annotator"),
        ]
        indexes = [models.Index(fields=["annotator", "status"], name="assignment_by_annotator")]

    def __str__(self) -> str:
        return f"{self.item} → {self.annotator} ({self.status})"


class Annotation(models.Model):
    item = models.ForeignKey(Item, on_delete=models.CASCADE, related_name="annotations")
    annotator = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="annotations"
    )
    assignment = models.ForeignKey(Assignment, null=True, blank=True, on_delete=models.SET_NULL)
    label = models.JSONField()  # validated against the item kind's schema (annotation.labels)
    rationale = models.TextField(blank=True)
    seconds_spent = models.PositiveIntegerField(default=0)
    display_order = models.JSONField(default=list, blank=True)
    client_id = models.UUIDField(default=uuid.uuid4, unique=True, help_text="Makes submits idempotent.")
    version = models.PositiveIntegerField(default=1, help_text="Optimistic lock for edits.")
    flagged = models.BooleanField(default=False, help_text="Annotator asks a reviewer to look.")
    # When the project shows machine suggestions: which one pre-filled the form, what it
    # proposed (canonical), and whether the annotator changed it. Empty otherwise.
    prefill = models.JSONField(default=dict, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["item", "annotator"], name="one_annotation_per_annotator")
        ]

    def __str__(self) -> str:
        return f"{self.annotator} on {self.item}"


class AnnotationRevision(models.Model):
    """The previous content of an annotation, kept whenever it is edited."""

    annotation = models.ForeignKey(Annotation, on_delete=models.CASCADE, related_name="revisions")
    version = models.PositiveIntegerField()
    label = models.JSONField()
    rationale = models.TextField(blank=True)
    edited_by = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+")
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["annotation", "version"]

    def __str__(self) -> str:
        return f"{self.annotation} v{self.version}"


class ImportJob(models.Model):
    class Status(models.TextChoices):
        QUEUED = "queued", "Queued"
        RUNNING = "running", "Running"
        DONE = "done", "Done"
        FAILED = "failed", "Failed"

    project = models.ForeignKey(Project, on_delete=models.CASCADE, related_name="import_jobs")
    created_by = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+")
    filename = models.CharField(max_length=300)
    path = models.CharField(max_length=1000)
    media_path = models.CharField(max_length=1000, blank=True)
    replace = models.BooleanField(default=False)
    status = models.CharField(max_length=16, choices=Status.choices, default=Status.QUEUED)
    lines_read = models.PositiveIntegerField(default=0)
    # {"created": n, "duplicates": n, "replaced": n, "tool_envs": n, "media": n}
    counts = models.JSONField(default=dict, blank=True)
    # [{"line": 3, "field": "chosen.messages[0].role", "reason": "..."}]
    errors = models.JSONField(default=list, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    finished_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created_at"]

    def __str__(self) -> str:
        return f"{self.filename} ({self.status})"
