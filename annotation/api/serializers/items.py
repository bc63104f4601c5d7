"""Items, in two views: the full item for reviewers and managers, and the blinded item an
annotator works on (candidates as A/B in their display order; no gold, no source, no
other people's labels)."""

from __future__ import annotations

from typing import Any

from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from annotation.labels import LETTERS
from annotation.models import Assignment, Item, ItemKind, ItemState, Task, ToolEnv, Trajectory
from annotation.rendering.query import candidates_of as query_candidates
from annotation.rendering.query import query_order
from annotation.rendering.step.view import candidate_order
from annotation.rendering.step.view import candidates_of as step_candidates

from .annotations import AnnotationSerializer

# Keys of kind-specific payloads that would tell an annotator the answer or where a candidate
# came from (e.g. a step candidate's `reference: true` or `source: {"model": "human-expert"}`).
HIDDEN_PAYLOAD_KEYS = frozenset({"reference", "reference_answer", "source", "gold", "chosen"})


def blind_payload(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: blind_payload(v) for k, v in value.items() if k not in HIDDEN_PAYLOAD_KEYS}
    if isinstance(value, list):
        return [blind_payload(v) for v in value]
    return value


class ItemFilterSerializer(serializers.Serializer):
    state = serializers.ChoiceField(choices=ItemState.choices, required=False, allow_blank=True)
    stratum = serializers.CharField(required=False, allow_blank=True, max_length=64)


class ToolEnvSerializer(serializers.ModelSerializer):
    class Meta:
        model = ToolEnv
        fields = ["name", "tools"]


class TrajectoryStatsSerializer(serializers.ModelSerializer):
    class Meta:
        model = Trajectory
        fields = ["n_turns", "n_tool_calls", "n_chars", "approx_tokens", "has_malformed_arguments"]


class TrajectorySerializer(serializers.ModelSerializer):
    stats = TrajectoryStatsSerializer(source="*", read_only=True)

    class Meta:
        model = Trajectory
        fields = ["id", "messages", "source", "parent", "stats"]


class TaskSerializer(serializers.ModelSerializer):
    tool_env = ToolEnvSerializer(read_only=True)

    class Meta:
        model = Task
        fields = [
            "id",
            "instruction",
            "context",
            "tool_env",
            "media",
            "website",
            "start_url",
            "difficulty",
            "family",
            "bucket",
            "environment",
            "domain",
            "metadata",
        ]


class BlindTaskSerializer(serializers.ModelSerializer):
    """What the annotator needs to judge, without free metadata that may carry provenance."""

    tool_env = ToolEnvSerializer(read_only=True)

    class Meta:
        model = Task
        fields = ["instruction", "context", "tool_env", "media", "website", "start_url", "family"]


class ItemSerializer(serializers.ModelSerializer):
    """A row of the item list (reviewers and managers only: it includes the gold)."""

    class Meta:
        model = Item
        fields = [
            "id",
            "external_id",
            "kind",
            "state",
            "stratum",
            "family",
            "difficulty",
            "priority",
            "overlap",
            "n_annotations",
            "gold",
            "created_at",
            "updated_at",
        ]


class ItemDetailSerializer(ItemSerializer):
    task = TaskSerializer(read_only=True)
    trajectory_first = TrajectorySerializer(read_only=True)
    trajectory_second = TrajectorySerializer(read_only=True)

    class Meta(ItemSerializer.Meta):
        fields = [
            *ItemSerializer.Meta.fields,
            "task",
            "trajectory_first",
            "trajectory_second",
            "payload",
            "meta",
            "discard_reason",
        ]


class CandidateSerializer(serializers.Serializer):
    """One side of a pair as the annotator sees it."""

    letter = serializers.ChoiceField(choices=LETTERS)
    messages = serializers.JSONField(source="trajectory.messages")
    stats = TrajectoryStatsSerializer(source="trajectory")


class LeaseSerializer(serializers.ModelSerializer):
    assignment = serializers.IntegerField(source="pk")

    class Meta:
        model = Assignment
        fields = ["assignment", "status", "leased_at", "expires_at"]


class BlindItemSerializer(serializers.Serializer):
    """The item an annotator labels. Built from an Item plus context: `order` (their display
    order), `assignment` (theirs, if any) and `annotation` (their own label, if any)."""

    id = serializers.IntegerField()
    kind = serializers.ChoiceField(choices=ItemKind.choices)
    family = serializers.CharField()
    task = BlindTaskSerializer(allow_null=True)
    display_order = serializers.SerializerMethodField()
    candidates = serializers.SerializerMethodField()
    options = serializers.SerializerMethodField()
    trace = serializers.SerializerMethodField()
    payload = serializers.SerializerMethodField()
    critical_tags = serializers.SerializerMethodField()
    allow_tie = serializers.BooleanField(source="project.allow_tie")
    lease = serializers.SerializerMethodField()
    my_annotation = serializers.SerializerMethodField()

    def _order(self) -> list[str]:
        return list(self.context["order"] or ["first", "second"])

    @extend_schema_field(serializers.ListField(child=serializers.ChoiceField(choices=["first", "second"])))
    def get_display_order(self, item: Item) -> list[str]:
        return self._order()

    @extend_schema_field(CandidateSerializer(many=True))
    def get_candidates(self, item: Item) -> list[dict]:
        """Pairs only: A and B in this annotator's order."""
        if item.kind != ItemKind.PAIR or not (item.trajectory_first and item.trajectory_second):
            return []
        order = self._order()
        sides = [
            {"letter": letter, "trajectory": getattr(item, f"trajectory_{side}")}
            for letter, side in zip(LETTERS, order, strict=True)
        ]
        return CandidateSerializer(sides, many=True).data

    @extend_schema_field(serializers.ListField(child=serializers.DictField()))
    def get_options(self, item: Item) -> list[dict]:
        """Step and query items: the candidates in this annotator's order (as their page shows
        them), numbered `n` from 1. Labels name them canonically: a step candidate by `id`, a
        query candidate by `index` (its place in the record)."""
        annotator_id = self.context.get("annotator_id")
        if item.kind == ItemKind.STEP:
            by_id = {str(c.get("id")): c for c in step_candidates(item)}
            order = candidate_order(item=item, annotator_id=annotator_id)
            return [
                {"n": n, "id": cid, **blind_payload({k: v for k, v in by_id[cid].items() if k != "id"})}
                for n, cid in enumerate(order, 1)
            ]
        if item.kind == ItemKind.QUERY:
            annotation = self.context.get("annotation")
            saved = annotation.display_order if annotation is not None else None
            texts = query_candidates(item)
            order = query_order(item=item, annotator_id=annotator_id, saved=saved)
            return [{"n": n, "index": int(i), "text": texts[int(i)]} for n, i in enumerate(order, 1)]
        return []

    @extend_schema_field(serializers.DictField(allow_null=True))
    def get_trace(self, item: Item) -> dict | None:
        """Traces: the messages under correction (their source stays hidden)."""
        if item.kind != ItemKind.TRACE or item.trajectory_first is None:
            return None
        return {
            "messages": item.trajectory_first.messages,
            "stats": TrajectoryStatsSerializer(item.trajectory_first).data,
        }

    @extend_schema_field(OpenApiTypes.OBJECT)
    def get_payload(self, item: Item) -> dict:
        """Without the gold and sources; step and query candidates are in `options` instead, in
        the annotator's order (the stored order could tell the reference apart)."""
        payload = blind_payload(item.payload if isinstance(item.payload, dict) else {})
        if item.kind in (ItemKind.STEP, ItemKind.QUERY):
            payload.pop("candidates", None)
        return payload

    @extend_schema_field(serializers.ListField(child=serializers.CharField()))
    def get_critical_tags(self, item: Item) -> list[str]:
        return item.project.critical_tags(item.family)

    @extend_schema_field(LeaseSerializer(allow_null=True))
    def get_lease(self, item: Item) -> dict | None:
        assignment = self.context.get("assignment")
        return LeaseSerializer(assignment).data if assignment is not None else None

    @extend_schema_field(AnnotationSerializer(allow_null=True))
    def get_my_annotation(self, item: Item) -> dict | None:
        annotation = self.context.get("annotation")
        return AnnotationSerializer(annotation).data if annotation is not None else None
