"""Trace corrections and step checklists over the API: the same fields as the pages' forms, as
JSON. Validation of the label and of the corrected steps stays in the services (and the page's
form checks), so every client gets the same errors."""

from __future__ import annotations

from rest_framework import serializers

from annotation.labels import TRACE_CHECKS, TRACE_DISCARD_REASONS, TRACE_VERDICTS
from annotation.models import MAX_CHECKLIST_ITEMS

from .annotations import AnnotationSerializer

CHECK_MARKS = ["pass", "fail"]


class FieldErrorSerializer(serializers.Serializer):
    detail = serializers.CharField()
    errors = serializers.DictField(
        child=serializers.CharField(), required=False, help_text="Field → reason, e.g. `steps.2.arguments`."
    )


# --- traces --------------------------------------------------------------------------------


def _mark() -> serializers.CharField:
    # Plain strings checked in validate(): five enum fields with one choice set would make the
    # schema name the same enum five times.
    return serializers.CharField(required=False, allow_blank=True, help_text="pass | fail")


class TraceCheckSerializer(serializers.Serializer):
    tool_choice = _mark()
    argument_format = _mark()
    step_order = _mark()
    output_alignment = _mark()
    evidence = _mark()
    note = serializers.CharField(required=False, allow_blank=True, max_length=1000)

    def validate(self, attrs: dict) -> dict:
        bad = {k: "Mark it pass or fail." for k in TRACE_CHECKS if attrs.get(k, "") not in ("", *CHECK_MARKS)}
        if bad:
            raise serializers.ValidationError(bad)
        return attrs


assert set(TraceCheckSerializer().fields) == {*TRACE_CHECKS, "note"}


class TraceEvidenceSerializer(serializers.Serializer):
    step = serializers.IntegerField(min_value=0, help_text="Index of the original step (0 = step 1).")
    url = serializers.CharField(required=False, allow_blank=True, max_length=2000, help_text="http(s) only.")
    media = serializers.CharField(
        required=False, allow_blank=True, max_length=300, help_text="A screenshot kept from an earlier save."
    )


class FinalAnswerSerializer(serializers.Serializer):
    value = serializers.CharField(allow_blank=True, max_length=20000)
    justification = serializers.CharField(required=False, allow_blank=True, default="", max_length=20000)


class TraceStepSerializer(serializers.Serializer):
    n = serializers.IntegerField()
    task = serializers.CharField()
    thought = serializers.CharField()
    tool = serializers.CharField()
    arguments = serializers.JSONField()
    output = serializers.CharField()
    malformed = serializers.BooleanField()
    hallucinated = serializers.BooleanField(required=False)


class EditorStepSerializer(serializers.Serializer):
    """One step as the editor posts it; `arguments` may be an object or the JSON text typed."""

    task = serializers.CharField(required=False, allow_blank=True)
    thought = serializers.CharField(required=False, allow_blank=True)
    tool = serializers.CharField(required=False, allow_blank=True)
    arguments = serializers.JSONField(required=False)
    output = serializers.CharField(required=False, allow_blank=True)


class TraceSaveSerializer(serializers.Serializer):
    """A trace label as the page's form posts it (checks per original step, verdict, and for a
    correction the edited steps, final answer and reasons)."""

    verdict = serializers.ChoiceField(choices=TRACE_VERDICTS)
    checks = TraceCheckSerializer(many=True, required=False, help_text="One entry per original step.")
    discard_reason = serializers.ChoiceField(
        choices=TRACE_DISCARD_REASONS, required=False, allow_blank=True, default=""
    )
    discard_note = serializers.CharField(required=False, allow_blank=True, default="", max_length=1000)
    evidence = TraceEvidenceSerializer(many=True, required=False)
    # Kept as sent: the service reports a bad step (e.g. arguments that are not JSON) by its number.
    steps = serializers.JSONField(required=False, help_text="The corrected steps (verdict corrected).")
    final_answer = FinalAnswerSerializer(required=False)
    edit_reasons = serializers.ListField(
        child=serializers.CharField(max_length=500),
        required=False,
        default=list,
        help_text="Codes (wrong_tool, malformed_arguments, step_order, unsupported_reasoning, "
        "missing_step, tool_output, final_answer) and/or 'other: <text>'.",
    )
    base_trajectory = serializers.IntegerField(
        required=False, min_value=1, help_text="The trace version edited (default: the current)."
    )
    rationale = serializers.CharField(required=False, allow_blank=True, default="", max_length=20000)
    flagged = serializers.BooleanField(required=False, default=False)
    seconds_spent = serializers.IntegerField(required=False, default=0, min_value=0)
    version = serializers.IntegerField(
        required=False, min_value=1, help_text="Editing: the label version you opened (stale → 409)."
    )
    client_id = serializers.UUIDField(
        required=False, help_text="First save: generated once per label; a repeat is harmless."
    )

    def validate(self, attrs: dict) -> dict:
        if "version" not in attrs and "client_id" not in attrs:
            message = "Send `client_id` (first save) or `version` (edit)."
            raise serializers.ValidationError({"client_id": message})
        return attrs


class CorrectionSerializer(serializers.Serializer):
    trajectory = serializers.IntegerField()
    version = serializers.IntegerField()
    parent = serializers.IntegerField(allow_null=True)
    edit_reasons = serializers.ListField(child=serializers.CharField())
    steps = TraceStepSerializer(many=True)
    final_answer = FinalAnswerSerializer()


class TraceViewSerializer(serializers.Serializer):
    item = serializers.IntegerField()
    query = serializers.CharField()
    media = serializers.ListField(child=serializers.CharField())
    environment = serializers.CharField()
    registry = serializers.DictField(child=serializers.JSONField(), help_text="Tool name → parameter schema.")
    steps = TraceStepSerializer(many=True, help_text="The original trace, numbered from 1.")
    final_answer = FinalAnswerSerializer()
    base_trajectory = serializers.IntegerField(
        allow_null=True, help_text="What an edit starts from: your saved correction, else the original."
    )
    my_annotation = AnnotationSerializer(allow_null=True)
    my_correction = CorrectionSerializer(allow_null=True)
    reference_answer = serializers.JSONField(required=False, help_text="Reviewers and managers only.")
    labels = serializers.ListField(child=serializers.DictField(), required=False, help_text="Staff only.")


class TraceConflictSerializer(serializers.Serializer):
    detail = serializers.CharField()
    current = AnnotationSerializer(allow_null=True, help_text="Your label as saved now.")


# --- step checklists -----------------------------------------------------------------------


class ChecklistItemSerializer(serializers.Serializer):
    title = serializers.CharField(allow_blank=True, max_length=2000)
    goal = serializers.CharField(required=False, allow_blank=True, default="", max_length=5000)


class ChecklistVersionSerializer(serializers.Serializer):
    number = serializers.IntegerField()
    parent = serializers.IntegerField(allow_null=True)
    items = ChecklistItemSerializer(many=True)
    reason = serializers.CharField()
    who = serializers.CharField(help_text="Annotators: imported / you / another annotator; staff: the name.")
    created_at = serializers.DateTimeField(allow_null=True)
    latest = serializers.BooleanField()


class ChecklistViewSerializer(serializers.Serializer):
    scope = serializers.CharField()
    max_items = serializers.IntegerField()
    latest = serializers.IntegerField()
    versions = ChecklistVersionSerializer(many=True, help_text="Oldest first; 1 is the imported one.")


class ChecklistEditSerializer(serializers.Serializer):
    items = ChecklistItemSerializer(many=True, help_text=f"At most {MAX_CHECKLIST_ITEMS} items.")
    reason = serializers.CharField(allow_blank=True, max_length=5000)
    parent_version = serializers.IntegerField(min_value=1, help_text="The version you edited (stale → 409).")


class ChecklistConflictSerializer(FieldErrorSerializer):
    latest = serializers.IntegerField()
