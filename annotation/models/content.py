"""What is judged: tool environments, tasks and trajectories in the one interchange shape."""

from __future__ import annotations

from django.conf import settings
from django.db import models

from .project import Project


class ToolEnv(models.Model):
    project = models.ForeignKey(Project, on_delete=models.CASCADE, related_name="tool_envs")
    name = models.CharField(max_length=200)
    # [{"name", "description", "parameters": JSON Schema, "returns": JSON Schema}]
    tools = models.JSONField(default=list)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["project", "name"], name="tool_env_name_per_project")]

    def __str__(self) -> str:
        return self.name


class Task(models.Model):
    """What an agent was asked. Records with identical context share one Task, which is what
    leak-free splits group on."""

    project = models.ForeignKey(Project, on_delete=models.CASCADE, related_name="tasks")
    content_hash = models.CharField(max_length=64)
    instruction = models.TextField(blank=True)
    context = models.JSONField(default=list, blank=True)  # shared messages (system, user turns ...)
    tool_env = models.ForeignKey(ToolEnv, null=True, blank=True, on_delete=models.PROTECT)
    media = models.JSONField(default=list, blank=True)
    website = models.CharField(max_length=300, blank=True)
    start_url = models.CharField(max_length=2000, blank=True)
    difficulty = models.CharField(max_length=32, blank=True)
    family = models.CharField(max_length=64, blank=True)
    bucket = models.CharField(max_length=64, blank=True)
    environment = models.CharField(max_length=64, blank=True)
    domain = models.CharField(max_length=64, blank=True)
    metadata = models.JSONField(default=dict, blank=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["project", "content_hash"], name="task_hash_per_project")
        ]

    def __str__(self) -> str:
        return self.instruction[:80] or f"task {self.pk}"


class Trajectory(models.Model):
    project = models.ForeignKey(Project, on_delete=models.CASCADE, related_name="trajectories")
    task = models.ForeignKey(
        Task, null=True, blank=True, on_delete=models.CASCADE, related_name="trajectories"
    )
    messages = models.JSONField(default=list)
    source = models.JSONField(default=dict, blank=True)
    parent = models.ForeignKey(
        "self", null=True, blank=True, on_delete=models.SET_NULL, related_name="children"
    )
    # Corrections (trace items): version 1 is what was imported; a correction is a new row whose
    # parent is the version it was made from, with who made it and why.
    version = models.PositiveIntegerField(default=1)
    edit_reasons = models.JSONField(default=list, blank=True)
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    # Derived once at write time (see annotation.trajectory_stats).
    n_turns = models.PositiveIntegerField(default=0)
    n_tool_calls = models.PositiveIntegerField(default=0)
    n_chars = models.PositiveIntegerField(default=0)
    approx_tokens = models.PositiveIntegerField(default=0)
    has_malformed_arguments = models.BooleanField(default=False)
    created_at = models.DateTimeField(auto_now_add=True)

    def __str__(self) -> str:
        return f"trajectory {self.pk}"
