"""Items in adjudication, machine suggestions and labels for the review tests."""

from __future__ import annotations

import factory

from annotation.models import Item, ItemState, Role, Suggestion
from review.lifecycle import item_settle
from tests.api.factories import AnnotationFactory
from tests.factories import MembershipFactory, PairItemFactory, TaskFactory


def pair_label(preferred, first=(), second=(), confidence=4):
    return {
        "preferred": preferred,
        "tags": {"first": list(first), "second": list(second)},
        "confidence": confidence,
    }


class SuggestionFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = Suggestion

    item = factory.SubFactory(PairItemFactory)
    source = "judge:gpt-test"
    prompt_version = "v1"
    label = factory.LazyFunction(lambda: {"preferred": "second", "tags": {"first": [], "second": []}})
    scores = factory.LazyFunction(lambda: {"first": 2, "second": 4})
    rationale = "The second candidate cites the tool output."


def annotator(project, username=None):
    kwargs = {"user__username": username} if username else {}
    return MembershipFactory(project=project, role=Role.ANNOTATOR, **kwargs).user


def settled_by_rules(item: Item, labels: list[dict], *, flagged=(), users=None, rationales=()) -> Item:
    """Store one annotation per label (annotators made on the fly unless given) and let the
    lifecycle rules settle the item, as after the last real submit."""
    users = users or [annotator(item.project) for _ in labels]
    for index, (user, label) in enumerate(zip(users, labels, strict=True)):
        AnnotationFactory(
            item=item,
            annotator=user,
            label=label,
            flagged=index in flagged,
            rationale=rationales[index] if index < len(rationales) else "",
        )
    Item.objects.filter(pk=item.pk).update(n_annotations=len(labels), overlap=len(labels))
    item.refresh_from_db()
    return item_settle(item=item, actor=users[-1])


def disputed_pair(project, labels=None, *, users=None, rationales=(), **kwargs) -> Item:
    """A pair item in adjudication because its annotators disagree (unless `labels` say else)."""
    item = PairItemFactory(project=project, **kwargs)
    labels = labels or [pair_label("first"), pair_label("second")]
    return settled_by_rules(item, labels, users=users, rationales=rationales)


def other_item(project, kind: str, **kwargs) -> Item:
    """An item of a kind without its own labeling page (pca, trace ...)."""
    defaults = {
        "external_id": f"{kind}-{Item.objects.count() + 1:05d}",
        "task": TaskFactory(project=project, instruction="Is the red light on?"),
        "payload": {"question": "What should the driver do?", "model_output": "Stop."},
        "gold": {"perception": 1, "cognition": 1, "action": 1},
    }
    defaults.update(kwargs)
    return Item.objects.create(project=project, kind=kind, state=ItemState.NEW, **defaults)
