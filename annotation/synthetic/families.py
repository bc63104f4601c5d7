"""The four task families: for one bucket, what the user finally asks and the two candidates."""

from __future__ import annotations

from dataclasses import dataclass
from random import Random

from .engine import Call, Element, Final, Style, choice_weighted
from .plans import plan, recovery, summary
from .world import Env

FAMILY = {
    "safety": "safety_refusal",
    "irrelevance": "tool_irrelevance",
    "planning_single_easy": "complex_planning",
    "planning_single_hard": "complex_planning",
    "planning_multi_easy": "complex_planning",
    "planning_multi_hard": "complex_planning",
    "robust": "robust_recovery",
}
PLANNING_FAULTS = (
    ("constraint_drop", 3),
    ("constraint_swap", 2),
    ("dependency_corruption", 2),
    ("numeric_mistake", 2),
    ("entity_substitution", 2),
)
# (fewest legs, most legs before long conversations add more) per planning bucket
LEGS = {
    "planning_single_easy": (1, 2),
    "planning_single_hard": (3, 5),
    "planning_multi_easy": (2, 2),
    "planning_multi_hard": (3, 4),
}


@dataclass
class Built:
    request: str  # the last user turn of the shared context
    chosen: list[Element]
    rejected: list[Element]
    perturbation: str


def _rollout_base(base: int, edited: bool) -> int:
    """An edit reuses the original's tool answers; an independent rollout, run at another time,
    sees other search results for the same request."""
    return base if edited else base ^ 0x5DEECE66D


def _n_opts(rng: Random, n_legs: int, size: int) -> list[int]:
    return [rng.randrange(3, 5 + size) for _ in range(n_legs)]


def planning(
    env: Env,
    rng: Random,
    *,
    bucket: str,
    base: int,
    target: int,
    size: int,
    st_c: Style,
    st_r: Style,
    edited: bool,
) -> Built:
    multi = "multi" in bucket
    per_leg = 4 if multi else 2
    lo, hi = LEGS[bucket]
    want = round((target * rng.uniform(0.5, 0.9) - 1) / per_leg)
    # Hard buckets grow with the conversation; easy ones keep a short plan and a long history.
    n_legs = max(lo, min(want, 30)) if bucket.endswith("hard") or want <= hi else max(lo, min(want, hi))
    chain = env.chain(rng, n_legs)
    n_opts = _n_opts(rng, n_legs, size)
    kind = choice_weighted(rng, PLANNING_FAULTS)
    if kind == "numeric_mistake" and all(leg.free for leg, _ in chain):
        kind = "entity_substitution"
    fault_leg = rng.randrange(n_legs)
    chosen, picks = plan(chain, st_c, base=base, n_opts=n_opts, multi=multi)
    chosen.append(summary(picks, st_c))
    fault = None if kind == "numeric_mistake" else (kind, fault_leg)
    rejected, rpicks = plan(
        chain, st_r, base=_rollout_base(base, edited), n_opts=n_opts, fault=fault, multi=multi
    )
    rejected.append(summary(rpicks, st_r, numeric_mistake=kind == "numeric_mistake"))
    opener = rng.choice(env.openers)
    if multi:
        later = [leg.request(lw, False) for leg, lw in chain[1:]]
        text = f"{opener} Let's start: please {chain[0][0].request(chain[0][1], True)}."
        if later:
            text += (
                " After that I'll also need you to "
                + "; then ".join(later)
                + ". I'll tell you my limits as we go."
            )
    else:
        text = f"{opener} Please " + "; then ".join(leg.request(lw, True) for leg, lw in chain) + "."
    return Built(text.strip(), chosen, rejected, kind)


def robust(
    env: Env, rng: Random, *, base: int, target: int, size: int, st_c: Style, st_r: Style, edited: bool
) -> Built:
    n_legs = max(1, min(round((target * rng.uniform(0.4, 0.8) - 3) / 2), 25))
    chain = env.chain(rng, n_legs)
    n_opts = _n_opts(rng, n_legs, size)
    kind = "blind_retry" if rng.random() < 0.55 else "premature_surrender"
    # An edit that gives up keeps most of the rollout when the failure comes late.
    err_leg = n_legs - 1 if edited and kind == "premature_surrender" else rng.randrange(n_legs)
    common = {
        "base": base,
        "n_opts": n_opts,
        "err_leg": err_leg,
        "currency": env.currency,
        "transient": kind != "blind_retry",
    }
    chosen, _ = recovery(chain, st_c, mode="fix", **common)
    # Edited blind retries waste calls, then recover like the original; natural ones give up.
    common["base"] = _rollout_base(base, edited)
    rejected, _ = recovery(chain, st_r, mode=kind, retries=rng.randrange(1, 4), then_fix=edited, **common)
    opener = rng.choice(env.openers)
    text = f"{opener} Please " + "; then ".join(leg.request(lw, True) for leg, lw in chain) + "."
    return Built(text.strip(), chosen, rejected, kind)


def safety(env: Env, rng: Random, *, edited: bool) -> Built:
    case = env.safety(rng)
    chosen: list[Element] = []
    if case.safe_call is not None and rng.random() < 0.6:
        chosen.append(case.safe_call)
    chosen.append(Final(case.refusal))
    calls = _copy_calls(case.unsafe_calls)
    if edited:
        # The edit inserts the harmful actions before the same refusal: a late refusal.
        return Built(case.request, chosen, [*calls, Final(case.refusal)], "late_refusal")
    kind = "unsafe_compliance" if rng.random() < 0.6 else "late_refusal"
    final = case.comply if kind == "unsafe_compliance" else case.late
    return Built(case.request, chosen, [*calls, Final(final)], kind)


def irrelevance(env: Env, rng: Random, *, edited: bool) -> Built:
    case = env.irrelevant(rng)
    kind = "unavailable_tool_hallucination" if case.hallucinated else "unnecessary_tool_call"
    # A minimal edit only inserts the call and keeps the answer; a natural rollout trusts it.
    final = case.answer if edited else case.bogus_final
    bogus = Call(case.bogus.tool, case.bogus.args, case.bogus.output, think=case.bogus.think)
    return Built(case.request, [Final(case.answer)], [bogus, Final(final)], kind)


def _copy_calls(calls: list[Call]) -> list[Element]:
    return [Call(c.tool, c.args, c.output, think=c.think, say=c.say) for c in calls]
