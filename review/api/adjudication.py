"""Adjudication over the API: the queue, one item with everything a reviewer weighs, the
decision (final label, discard, or re-open), and an item's history. Reviewers and managers only;
annotators get 404 like outsiders."""

from __future__ import annotations

from django.db.models import QuerySet
from drf_spectacular.utils import OpenApiResponse, extend_schema
from rest_framework import generics, serializers, status
from rest_framework.exceptions import NotFound
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from annotation.access import STAFF_ROLES, Role
from annotation.api.serializers import ErrorSerializer, ItemDetailSerializer
from annotation.api.views.base import ProjectScoped
from annotation.models import Annotation, Item, ItemState, Suggestion
from review import selectors
from review.lifecycle import agreement_share, majority_label
from review.models import Adjudication
from review.services import (
    AdjudicationConflict,
    AdjudicationError,
    adjudication_decide,
    adjudication_reopen,
    item_state_token,
)

# --- shapes ---------------------------------------------------------------------------------


class QueueRowSerializer(serializers.ModelSerializer):
    n_labels = serializers.IntegerField(help_text="Annotations the item has.")
    agreement = serializers.FloatField(
        allow_null=True, help_text="Share of annotations giving the most common answer (lowest first)."
    )
    reasons = serializers.CharField(
        source="queue_reason", allow_null=True, help_text="Why it is in the queue."
    )
    queued_at = serializers.DateTimeField(allow_null=True)

    class Meta:
        model = Item
        fields = ["id", "external_id", "kind", "stratum", "family", "difficulty", "priority"]
        fields += ["n_labels", "agreement", "reasons", "queued_at"]


class ReviewAnnotationSerializer(serializers.ModelSerializer):
    annotator = serializers.SerializerMethodField(help_text="Name, or an alias when the project hides names.")
    n_revisions = serializers.IntegerField(help_text="How often the label was edited.")

    class Meta:
        model = Annotation
        fields = ["id", "annotator", "label", "display_order", "rationale", "seconds_spent", "flagged"]
        fields += ["version", "n_revisions", "created_at", "updated_at"]

    def get_annotator(self, annotation: Annotation) -> str:
        return selectors.display_name(annotation.annotator, self.context.get("aliases"))


class SuggestionSerializer(serializers.ModelSerializer):
    class Meta:
        model = Suggestion
        fields = ["id", "source", "config", "prompt_version", "label", "scores", "rationale", "error"]
        fields += ["tokens_in", "tokens_out", "cost_usd", "latency_ms", "created_at"]


class AdjudicationSerializer(serializers.ModelSerializer):
    reviewer = serializers.CharField(source="reviewer.username")

    class Meta:
        model = Adjudication
        fields = ["id", "item", "reviewer", "decision", "label", "reason", "seconds_spent", "created_at"]


class AdjudicationItemSerializer(serializers.Serializer):
    item = ItemDetailSerializer(help_text="The full item, gold and settled label included.")
    settled_label = serializers.DictField(help_text="Empty unless verified.")
    state_token = serializers.CharField(help_text="Send it back with the decision; a stale one gets 409.")
    can_decide = serializers.BooleanField(help_text="True while the item is in adjudication.")
    can_reopen = serializers.BooleanField(help_text="True for verified and discarded items.")
    reasons = serializers.ListField(child=serializers.CharField(), help_text="Why it entered adjudication.")
    agreement = serializers.FloatField(allow_null=True)
    majority_label = serializers.DictField(allow_null=True, help_text="Null when no answer has a majority.")
    names_hidden = serializers.BooleanField()
    annotations = ReviewAnnotationSerializer(many=True)
    suggestions = SuggestionSerializer(many=True)
    adjudications = AdjudicationSerializer(many=True)


class DecisionSerializer(serializers.Serializer):
    decision = serializers.ChoiceField(
        choices=["label", "discard", "reopen"],
        help_text="label: verify with `label`; discard; reopen: send a verified/discarded item back.",
    )
    label = serializers.DictField(
        required=False,
        allow_null=True,
        help_text=(
            "The settled label in canonical terms, validated like an annotator's label of the item's "
            "kind: pair {preferred: first|second|tie, tags}; step {chosen, equivalent, invalid, "
            "checklist, checklist_version}; pca {perception, cognition, action: 0|1, evidence}; trace "
            "{verdict: correct|corrected|discard, discard_reason, checks, corrected_trajectory (a "
            "version of this item's trace), edit_reasons, final_answer}; query {decision: "
            "pick|edit|reject, chosen (index in the record), query, reject_reason, note}."
        ),
    )
    reason = serializers.CharField(allow_blank=True, max_length=20000, help_text="Required: why.")
    state_token = serializers.CharField(allow_blank=True, max_length=100, help_text="From the GET.")
    seconds_spent = serializers.IntegerField(required=False, default=0, min_value=0)


class DecisionResultSerializer(serializers.Serializer):
    item = serializers.IntegerField()
    state = serializers.ChoiceField(choices=ItemState.choices)
    state_token = serializers.CharField()
    adjudication = AdjudicationSerializer(allow_null=True)
    next_item = serializers.IntegerField(allow_null=True, help_text="The next item in the queue, if any.")


class DecisionErrorSerializer(ErrorSerializer):
    errors = serializers.DictField(child=serializers.CharField(), help_text="Field → reason.")


class ConflictSerializer(ErrorSerializer):
    state = serializers.ChoiceField(choices=ItemState.choices, help_text="The item's state now.")
    changed_by = serializers.CharField(allow_null=True)
    changed_at = serializers.DateTimeField(allow_null=True)


class HistoryEventSerializer(serializers.Serializer):
    at = serializers.DateTimeField()
    event_type = serializers.ChoiceField(
        source="kind", choices=["annotation", "revision", "suggestion", "adjudication", "log"]
    )
    ref = serializers.IntegerField(help_text="Id of the row the event comes from.")
    actor = serializers.CharField(allow_null=True)
    source = serializers.CharField(help_text="Suggestions: the judge or model.")
    action = serializers.CharField()
    from_state = serializers.CharField()
    to_state = serializers.CharField()
    reason = serializers.CharField()
    label = serializers.DictField(allow_null=True)
    text = serializers.CharField(help_text="Rationale.")
    detail = serializers.DictField()


class ItemHistorySerializer(serializers.Serializer):
    item = serializers.IntegerField()
    external_id = serializers.CharField()
    state = serializers.ChoiceField(choices=ItemState.choices)
    events = HistoryEventSerializer(many=True)


# --- views ----------------------------------------------------------------------------------


class StaffOnly(ProjectScoped):
    # Reviewers and managers; annotators and outsiders get 404.
    project_roles = STAFF_ROLES

    def get_item(self, item_id: int) -> Item:
        try:
            return selectors.item_for_adjudication(project=self.project, item_id=item_id)
        except Item.DoesNotExist as exc:
            raise NotFound("No such item in this project.") from exc

    def aliases(self, item: Item, *, for_decision: bool) -> dict[int, str] | None:
        if selectors.show_annotator_names(self.project):
            return None
        if not for_decision and self.project_role == Role.MANAGER:
            return None
        return selectors.annotator_aliases(item=item, annotations=list(item.annotations.all()))


@extend_schema(summary="The adjudication queue: least agreement first, then priority.", tags=["review"])
class AdjudicationListView(StaffOnly, generics.ListAPIView):
    serializer_class = QueueRowSerializer

    def get_queryset(self) -> QuerySet[Item]:
        if getattr(self, "swagger_fake_view", False):
            return Item.objects.none()
        return selectors.adjudication_queue(project=self.project)


class AdjudicationDecideView(StaffOnly, APIView):
    @extend_schema(
        summary="One item with all its annotations, suggestions and earlier decisions.",
        tags=["review"],
        responses={200: AdjudicationItemSerializer, 404: ErrorSerializer},
    )
    def get(self, request: Request, slug: str, item_id: int) -> Response:
        item = self.get_item(item_id)
        aliases = self.aliases(item, for_decision=True)
        annotations = list(item.annotations.all())
        labels = [a.label for a in annotations]
        entry = selectors.queue_entry(item=item)
        data = entry.data if entry is not None and isinstance(entry.data, dict) else {}
        body = {
            "item": item,
            "settled_label": item.settled_label or {},
            "state_token": item_state_token(item),
            "can_decide": item.state == ItemState.ADJUDICATION,
            "can_reopen": item.state in (ItemState.VERIFIED, ItemState.DISCARDED),
            "reasons": data.get("reasons") or ([entry.reason] if entry is not None and entry.reason else []),
            "agreement": agreement_share(item.kind, labels),
            "majority_label": majority_label(item.kind, labels),
            "names_hidden": aliases is not None,
            "annotations": annotations,
            "suggestions": list(item.suggestions.all()),
            "adjudications": list(item.adjudications.all()),
        }
        return Response(AdjudicationItemSerializer(body, context={"aliases": aliases}).data)

    @extend_schema(
        summary="Decide: verify with a final label, discard, or re-open a settled item.",
        description=(
            "Send the `state_token` from the GET. If the item was settled or changed since, the "
            "answer is 409 with who changed it and when, and nothing is written."
        ),
        tags=["review"],
        request=DecisionSerializer,
        responses={
            201: DecisionResultSerializer,
            200: OpenApiResponse(DecisionResultSerializer, description="Re-opened."),
            400: DecisionErrorSerializer,
            404: ErrorSerializer,
            409: ConflictSerializer,
        },
    )
    def post(self, request: Request, slug: str, item_id: int) -> Response:
        item = self.get_item(item_id)
        form = DecisionSerializer(data=request.data)
        form.is_valid(raise_exception=True)
        data = form.validated_data
        adjudication = None
        try:
            if data["decision"] == "reopen":
                item = adjudication_reopen(
                    item=item,
                    reviewer=request.user,
                    reason=data["reason"],
                    expected_state_token=data["state_token"],
                )
            else:
                adjudication = adjudication_decide(
                    item=item,
                    reviewer=request.user,
                    decision=data["decision"],
                    label=data.get("label"),
                    reason=data["reason"],
                    expected_state_token=data["state_token"],
                    seconds_spent=data["seconds_spent"],
                )
                item = adjudication.item
        except AdjudicationConflict as exc:
            change = exc.change
            body = {
                "detail": str(exc),
                "state": exc.state,
                "changed_by": change.actor if change else None,
                "changed_at": change.at if change else None,
            }
            return Response(ConflictSerializer(body).data, status=status.HTTP_409_CONFLICT)
        except AdjudicationError as exc:
            return Response({"detail": str(exc), "errors": exc.errors}, status=exc.status)
        following = selectors.next_in_queue(project=self.project, after=item)
        body = {
            "item": item.pk,
            "state": item.state,
            "state_token": item_state_token(item),
            "adjudication": adjudication,
            "next_item": following.pk if following is not None else None,
        }
        code = status.HTTP_200_OK if adjudication is None else status.HTTP_201_CREATED
        return Response(DecisionResultSerializer(body).data, status=code)


class ItemHistoryView(StaffOnly, APIView):
    @extend_schema(
        summary="Everything that happened to one item, in time order.",
        tags=["review"],
        responses={200: ItemHistorySerializer, 404: ErrorSerializer},
    )
    def get(self, request: Request, slug: str, item_id: int) -> Response:
        item = self.get_item(item_id)
        aliases = self.aliases(item, for_decision=False)
        events = [
            {
                **vars(event),
                "actor": selectors.display_name(event.actor, aliases) if event.actor is not None else None,
            }
            for event in selectors.item_history(item=item)
        ]
        body = {"item": item.pk, "external_id": item.external_id, "state": item.state, "events": events}
        return Response(ItemHistorySerializer(body).data)
