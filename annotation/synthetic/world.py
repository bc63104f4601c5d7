"""What a synthetic tool environment provides: its tools (JSON Schema), the "legs" a planning
task is made of (search for options under a limit, then commit to one), lookups for earlier
turns of a conversation, and the safety and irrelevance situations it can stage."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import date, timedelta
from random import Random

from .engine import Call, Json, money

BASE_DATE = date(2026, 1, 5)


def day(offset: int) -> str:
    return (BASE_DATE + timedelta(days=offset)).isoformat()


def shift(iso: str, days: int) -> str:
    return (date.fromisoformat(iso) + timedelta(days=days)).isoformat()


def names(text: str) -> list[str]:
    """A comma-separated list, kept compact in the source."""
    return [part.strip() for part in text.split(",") if part.strip()]


def near(text: str) -> dict[str, str]:
    """'Osaka:Kyoto, Lisbon:Porto' → {"Osaka": "Kyoto", ...}: a name and its near miss."""
    return dict(part.split(":", 1) for part in names(text))


def tool(name: str, description: str, props: dict[str, dict], required: list[str]) -> Json:
    return {
        "name": name,
        "description": description,
        "parameters": {"type": "object", "properties": props, "required": required},
    }


S = {"type": "string"}
N = {"type": "number"}
I = {"type": "integer"}  # noqa: E741
B = {"type": "boolean"}
D = {"type": "string", "format": "date"}


def arr(items: dict) -> dict:
    return {"type": "array", "items": items}


@dataclass(frozen=True)
class Leg:
    """Search for options under the user's limit, pick one, commit to it.

    `options(rng, search_args, n)` returns n options, each with `id_key` and `price_key`; the
    engine makes the first (most "relevant") one break the limit, so that dropping the limit
    from the query visibly leads the agent astray."""

    key: str
    noun: str  # "flights", for reasoning text
    search_tool: str
    results_key: str
    search_args: Callable[[Json], Json]
    limit_key: str  # search argument that carries the user's limit
    limit_phrase: Callable[[Json], str]  # "under $450"
    options: Callable[[Random, Json, int], list[Json]]
    id_key: str
    price_key: str
    commit_tool: str
    commit_args: Callable[[Json, Json, Json], Json]  # (leg world, option, search args)
    commit_output: Callable[[Random, Json, Json], Json]  # (rng, commit args, option)
    describe: Callable[[Json, Json, Json], str]  # (leg world, option, search args)
    request: Callable[[Json, bool], str]  # clause of the user's request, with/without limit
    ask: Callable[[Json], tuple[str, str]]  # multi-turn: (assistant question, user's answer)
    swap: tuple[str, str] | None  # two search arguments that a confused agent swaps
    entity: tuple[str, Callable[[Random, Json], str]]  # search argument and a plausible wrong value
    cost: Callable[[Json, Json], float] = lambda lw, opt: opt["price"]  # counts toward the total
    free: bool = False  # costs nothing (a meeting slot), so a wrong total cannot show
    fmt: Callable[[float], str] = money  # how the limited value reads in prose


@dataclass(frozen=True)
class Safety:
    request: str  # the harmful ask, the last user turn
    unsafe_calls: list[Call]  # what complying looks like
    refusal: str
    comply: str  # final answer after complying
    late: str  # final answer after acting, then refusing
    safe_call: Call | None = None  # a harmless check a careful agent may run first


@dataclass(frozen=True)
class Irrelevant:
    request: str
    answer: str  # the right reply, no tool needed / no tool exists
    bogus: Call  # the call a worse agent makes: unnecessary or hallucinated
    bogus_final: str
    hallucinated: bool  # bogus.tool is not in the environment


@dataclass(frozen=True)
class Lookup:
    """An earlier exchange of the conversation that used one tool."""

    user: str
    call: Call
    answer: str


@dataclass(frozen=True)
class Env:
    id: str
    system: str
    tools: list[Json]
    chain: Callable[[Random, int], list[tuple[Leg, Json]]]
    openers: tuple[str, ...]
    lookups: Callable[[Random, int], Lookup]  # (rng, size) -> one exchange
    chats: tuple[tuple[str, str], ...]
    safety: Callable[[Random], Safety]
    irrelevant: Callable[[Random], Irrelevant]
    currency: str = "USD"
    extra: dict = field(default_factory=dict)

    def record(self) -> Json:
        return {"kind": "tool_env", "id": self.id, "tools": self.tools}

    def tool_names(self) -> set[str]:
        return {t["name"] for t in self.tools}


def code(rng: Random, prefix: str, digits: int = 4) -> str:
    return f"{prefix}-{rng.randrange(10 ** (digits - 1), 10**digits)}"


def spread_prices(rng: Random, limit: float, n: int, step: float = 1.0) -> list[float]:
    """n prices around `limit`: the first above it, at least one below."""

    def at(lo: float, hi: float) -> float:
        value = round(limit * rng.uniform(lo, hi) / step) * step
        return int(value) if float(step).is_integer() else round(value, 2)

    prices = [at(0.55, 1.45) for _ in range(n)]
    prices[0] = at(1.12, 1.5)
    if n > 1 and min(prices[1:]) > limit:
        prices[rng.randrange(1, n)] = at(0.6, 0.95)
    return prices
