"""Planning and recovery rollouts over an environment's legs, with the faults that make a
candidate worse (protocols.md, section A: constraint drop/swap, dependency corruption, numeric
mistakes, entity substitution, blind retries, premature surrender)."""

from __future__ import annotations

from random import Random

from .engine import Call, Element, Final, Json, Style, Talk, leg_rng, money
from .world import Leg

SEARCH_THINK = (
    "Search {noun} first and keep the limit ({limit}) in the query.",
    "I'll look up {noun}; only options {limit} count.",
    "Start with {noun}. The user asked for {limit}.",
    "Need {noun} before anything else, filtered to {limit}.",
)
SEARCH_THINK_LOOSE = (
    "Search {noun} first.",
    "I'll look up {noun}.",
    "Start with {noun}.",
    "Need {noun} before anything else.",
)
COMMIT_THINK = (
    "{id} is the best option within the limit; book it.",
    "Best fitting choice: {id} ({price}). Reserving it.",
    "{id} fits the limit at {price}, so I'll take it.",
    "Going with {id} ({price}); it is within the limit.",
)
COMMIT_THINK_LOOSE = (
    "{id} is the top result; book it.",
    "Top result: {id} at {price}. Reserving it.",
    "{id} looks good at {price}, so I'll take it.",
    "Going with {id} ({price}).",
)
DONE = ("Done: {what}.", "I've booked {what}.", "Confirmed: {what}.", "That's in place: {what}.")
FINAL = (
    "All set. Here is what I booked:\n{lines}\nTotal: {total}. Everything stays within the limits you gave.",
    "Done. {inline}. That comes to {total} in all, within your limits.",
    "Here's the plan:\n{lines}\nAltogether {total}; each item respects your limit.",
    "Everything is booked:\n{lines}\nGrand total {total}, and nothing goes over your limits.",
)
FINAL_NO_COST = (
    "All set. Here is what I arranged:\n{lines}\nEverything stays within the limits you gave.",
    "Done. {inline}. All of it respects your limits.",
    "Here's the plan:\n{lines}\nEach item fits what you asked for.",
    "Everything is in place:\n{lines}",
)


def _search_args(leg: Leg, lw: Json, kind: str | None, rng: Random) -> Json:
    args = leg.search_args(lw)
    if kind == "constraint_drop":
        args.pop(leg.limit_key, None)
    elif kind == "constraint_swap" and leg.swap:
        a, b = leg.swap
        args[a], args[b] = args[b], args[a]
    elif kind in ("entity_substitution", "constraint_swap"):
        key, alt = leg.entity
        args[key] = alt(rng, lw)
    return args


def _corrupt_id(value: str, rng: Random) -> str:
    head, digits = value.rstrip("0123456789"), value[len(value.rstrip("0123456789")) :]
    if not digits:
        return value + "-2"
    new = digits
    while new == digits:
        new = str(rng.randrange(10 ** (len(digits) - 1), 10 ** len(digits)))
    return head + new


def plan(
    chain: list[tuple[Leg, Json]],
    st: Style,
    *,
    base: int,
    n_opts: list[int],
    fault: tuple[str, int] | None = None,
    multi: bool = False,
    stop_after: int | None = None,
) -> tuple[list[Element], list[tuple[Leg, Json, Json, Json]]]:
    """One rollout: search and commit per leg, talk between legs when `multi`. Returns the
    elements without a final answer, and what was picked per leg."""
    els: list[Element] = []
    picks: list[tuple[Leg, Json, Json, Json]] = []
    for i, (leg, lw) in enumerate(chain):
        if stop_after is not None and i >= stop_after:
            break
        kind = fault[0] if fault and fault[1] == i else None
        if multi and i > 0:
            question, reply = leg.ask(lw)
            p_leg, p_lw, p_opt, p_args = picks[-1]
            what = p_leg.describe(p_lw, p_opt, p_args)
            els.append(Talk(st.pick(i * 10 + 3, DONE).format(what=what) + " " + question, reply))
        args = _search_args(leg, lw, kind, leg_rng(base, i, 2))
        # The catalogue does not depend on whether the query carried the limit.
        opts = leg.options(leg_rng(base, i), {**args, leg.limit_key: lw["limit"]}, n_opts[i])
        limit = args.get(leg.limit_key)
        shown = opts if limit is None else [o for o in opts if o[leg.price_key] <= limit]
        pick = opts[0] if kind == "constraint_drop" else min(shown, key=lambda o: o[leg.price_key])
        think = None
        if st.thinks(i * 10 + 1):
            table = SEARCH_THINK_LOOSE if kind == "constraint_drop" else SEARCH_THINK
            think = st.pick(i * 10 + 1, table).format(noun=leg.noun, limit=leg.limit_phrase(lw))
        els.append(Call(leg.search_tool, args, {leg.results_key: shown}, think=think))
        cargs = leg.commit_args(lw, pick, args)
        booked = pick
        if kind == "dependency_corruption":
            # The commit names an option the search never returned; the tool books whatever
            # that id is, at its own price.
            bad = _corrupt_id(pick[leg.id_key], leg_rng(base, i, 3))
            cargs = {k: (bad if v == pick[leg.id_key] else v) for k, v in cargs.items()}
            booked = dict(pick, **{leg.id_key: bad, leg.price_key: round(pick[leg.price_key] * 1.37)})
        think = None
        if st.thinks(i * 10 + 2):
            table = COMMIT_THINK_LOOSE if kind == "constraint_drop" else COMMIT_THINK
            think = st.pick(i * 10 + 2, table).format(id=pick[leg.id_key], price=leg.fmt(pick[leg.price_key]))
        els.append(
            Call(leg.commit_tool, cargs, leg.commit_output(leg_rng(base, i, 1), cargs, booked), think=think)
        )
        picks.append((leg, lw, pick, args))
    return els, picks


def summary(picks: list[tuple[Leg, Json, Json, Json]], st: Style, *, numeric_mistake: bool = False) -> Final:
    lines = [leg.describe(lw, opt, args) for leg, lw, opt, args in picks]
    costs = [c for c in (leg.cost(lw, opt) for leg, lw, opt, _ in picks) if c]
    total = sum(costs)
    if numeric_mistake:
        # Typical slips: one leg's cost left out of the sum, or a wrong product.
        total = total - costs[-1] if len(costs) > 1 else round(total * 0.7)
    text = st.pick(900, FINAL if total else FINAL_NO_COST).format(
        lines="\n".join("- " + line for line in lines), inline="; ".join(lines), total=money(total)
    )
    return Final(text)


# --- recovery -----------------------------------------------------------------------------

ERROR_FIX = {
    "format": (
        "The date format was rejected; it wants YYYY-MM-DD. Fix it and call again.",
        "The tool wants ISO dates. Retrying with {value}.",
    ),
    "type": ("The limit has to be a plain number, without units. Retry.", "Pass the number only: {value}."),
    "missing": ("I left out a required field ({key}). Add it and retry.", "Missing {key}; adding it."),
    "transient": (
        "A timeout is transient; wait a moment and retry once.",
        "The provider timed out. One retry after the suggested pause.",
    ),
}


def error_case(
    leg: Leg, lw: Json, rng: Random, currency: str, *, transient: bool = True
) -> tuple[str, Json, Json, str]:
    """(kind, bad search args, error payload, key) for a first call that fails."""
    args = leg.search_args(lw)
    date_keys = [
        k for k, v in args.items() if isinstance(v, str) and len(v) == 10 and v[4] == "-" and v[7] == "-"
    ]
    choices = ["missing", "transient"] if transient else ["missing"]
    if date_keys:
        choices.append("format")
    if leg.limit_key in args:
        choices.append("type")
    kind = rng.choice(choices)
    bad = dict(args)
    if kind == "format":
        key = date_keys[0]
        y, m, d = args[key].split("-")
        bad[key] = f"{d}/{m}/{y}"
        err = {
            "error": "invalid_argument",
            "field": key,
            "message": f"'{bad[key]}' is not a valid date; expected YYYY-MM-DD",
        }
    elif kind == "type":
        key = leg.limit_key
        bad[key] = leg.fmt(args[key]) if leg.free else f"{args[key]} {currency}"
        err = {
            "error": "invalid_argument",
            "field": key,
            "message": f"{key} must be a number, got '{bad[key]}'",
        }
    elif kind == "missing":
        key = next(iter(args))
        bad.pop(key)
        err = {"error": "missing_argument", "message": f"'{key}' is required"}
    else:
        key = ""
        err = {
            "error": "upstream_timeout",
            "message": "The provider did not answer within 10 s.",
            "retry_after_s": rng.choice([1, 2, 5]),
        }
    return kind, bad, err, key


SURRENDER = (
    "I couldn't finish this: the {tool} tool returned an error. You may want to try again later.",
    "Sorry, {tool} failed, so I stopped here. Please try again another time.",
    "The {tool} service isn't working right now, so I can't complete the request.",
)
GIVE_UP = (
    "The {tool} service keeps failing with the same error; it seems to be down. Please try later.",
    "I tried {tool} several times and it failed every time. I can't complete the booking today.",
)


def recovery(
    chain: list[tuple[Leg, Json]],
    st: Style,
    *,
    base: int,
    n_opts: list[int],
    err_leg: int,
    mode: str,  # "fix" | "blind_retry" | "premature_surrender"
    currency: str,
    retries: int = 2,
    transient: bool = True,
    then_fix: bool = False,
) -> tuple[list[Element], str]:
    """A rollout whose first search at `err_leg` fails. Returns elements and the error kind.
    Blind retries only make sense against errors that do not go away (`transient=False`);
    with `then_fix` the blind retries are followed by the fix and the rest of the rollout."""
    leg, lw = chain[err_leg]
    kind, bad, err, key = error_case(leg, lw, leg_rng(base, err_leg, 5), currency, transient=transient)
    before, _ = plan(chain, st, base=base, n_opts=n_opts, stop_after=err_leg)
    failing = Call(leg.search_tool, bad, err)
    if st.thinks(952):
        failing.think = st.pick(952, ("Search {noun} now.", "Next: {noun}.")).format(noun=leg.noun)
    els: list[Element] = [*before, failing]
    if mode == "premature_surrender":
        els.append(Final(st.pick(950, SURRENDER).format(tool=leg.search_tool)))
        return els, kind
    if mode == "blind_retry":
        els.extend(Call(leg.search_tool, dict(bad), err) for _ in range(retries))
        if not then_fix:
            els.append(Final(st.pick(951, GIVE_UP).format(tool=leg.search_tool)))
            return els, kind
    rest, picks = plan(chain, st, base=base, n_opts=n_opts)
    # The fixed call is the leg's normal search; its reasoning says why it changed.
    fixed = rest[len(before)]
    assert isinstance(fixed, Call)
    value = fixed.args.get(key, "") if isinstance(fixed.args, dict) else ""
    fixed.think = ERROR_FIX[kind][(st.seed + err_leg) % 2].format(key=key, value=value)
    els.extend(rest[len(before) :])
    els.append(summary(picks, st))
    return els, kind
