"""factory_boy factories shared by the test packages."""

from __future__ import annotations

import factory
from django.contrib.auth import get_user_model

from annotation.models import Item, ItemKind, Membership, Project, Role, Task, Trajectory
from annotation.trajectory_stats import trajectory_stats


class UserFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = get_user_model()
        django_get_or_create = ("username",)
        skip_postgeneration_save = True

    username = factory.Sequence(lambda n: f"user{n}")

    @factory.post_generation
    def password(self, create, extracted, **kwargs):
        self.set_password(extracted or "pw-for-tests")
        if create:
            self.save(update_fields=["password"])


class ProjectFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = Project

    slug = factory.Sequence(lambda n: f"project-{n}")
    name = factory.Sequence(lambda n: f"Project {n}")
    kind = ItemKind.PAIR
    overlap = 2
    label_schema = factory.LazyFunction(lambda: {"allow_tie": True})


class MembershipFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = Membership

    user = factory.SubFactory(UserFactory)
    project = factory.SubFactory(ProjectFactory)
    role = Role.ANNOTATOR


class TaskFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = Task

    project = factory.SubFactory(ProjectFactory)
    content_hash = factory.Sequence(lambda n: f"{n:064x}")
    instruction = "Book the cheapest flight from SFO to JFK."
    context = factory.LazyFunction(
        lambda: [{"role": "user", "content": "Book the cheapest flight from SFO to JFK."}]
    )
    family = "complex_planning"
    bucket = "planning_single_easy"


def _messages(text: str) -> list[dict]:
    return [
        {
            "role": "assistant",
            "content": None,
            "tool_calls": [
                {"id": "call_1", "name": "search_flights", "arguments": {"from": "SFO", "to": "JFK"}}
            ],
        },
        {"role": "tool", "tool_call_id": "call_1", "name": "search_flights", "content": '{"cheapest": 199}'},
        {"role": "assistant", "content": text},
    ]


class TrajectoryFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = Trajectory

    project = factory.SubFactory(ProjectFactory)
    messages = factory.LazyFunction(lambda: _messages("I booked the $199 flight."))
    source = factory.LazyFunction(lambda: {"type": "natural", "model": "model-a"})

    @classmethod
    def _create(cls, model_class, *args, **kwargs):
        kwargs.update(trajectory_stats(kwargs["messages"]))
        return super()._create(model_class, *args, **kwargs)


class PairItemFactory(factory.django.DjangoModelFactory):
    """A pair item whose gold prefers the `first` trajectory."""

    class Meta:
        model = Item

    project = factory.SubFactory(ProjectFactory)
    kind = ItemKind.PAIR
    external_id = factory.Sequence(lambda n: f"pair-{n:05d}")
    task = factory.SubFactory(TaskFactory, project=factory.SelfAttribute("..project"))
    trajectory_first = factory.SubFactory(TrajectoryFactory, project=factory.SelfAttribute("..project"))
    trajectory_second = factory.SubFactory(
        TrajectoryFactory,
        project=factory.SelfAttribute("..project"),
        messages=factory.LazyFunction(lambda: _messages("I booked the $450 flight.")),
    )
    gold = factory.LazyFunction(lambda: {"preferred": "first"})
    family = "complex_planning"
    stratum = "planning_single_easy"
    overlap = factory.SelfAttribute("project.overlap")


def long_messages(turns: int = 64, *, variant: str = "", output_chars: int = 1500) -> list[dict]:
    """A long trajectory of `turns` assistant turns, alternating a tool call (with its ~1.5 KB
    output) and a reply: 64 turns come to about 15k tokens. `variant` changes one word per
    reply, which makes a minimal-edit partner of the same trajectory."""
    messages: list[dict] = []
    filler = ("flight UA%03d departs 08:15 arrives 16:40 fare 199 USD seats 4 " * 40)[:output_chars]
    for k in range(turns // 2):
        call_id = f"call_{k}"
        messages.append(
            {
                "role": "assistant",
                "content": None,
                "reasoning": f"Step {k}: check the next leg.",
                "tool_calls": [
                    {
                        "id": call_id,
                        "name": "search_flights",
                        "arguments": {"from": "SFO", "to": "JFK", "page": k},
                    }
                ],
            }
        )
        messages.append(
            {
                "role": "tool",
                "tool_call_id": call_id,
                "name": "search_flights",
                "content": filler.replace("%03d", f"{k:03d}"),
            }
        )
        messages.append(
            {
                "role": "assistant",
                "content": f"Leg {k}: the cheapest option is {variant or 'UA'}{k:03d} at 199 USD, "
                "which keeps the total under the budget the user set.",
            }
        )
    return messages


def pair_with_messages(project, first: list[dict], second: list[dict], **kwargs) -> Item:
    """A pair item in `project` whose two trajectories hold the given messages."""
    return PairItemFactory(
        project=project,
        trajectory_first=TrajectoryFactory(project=project, messages=first),
        trajectory_second=TrajectoryFactory(project=project, messages=second),
        **kwargs,
    )
