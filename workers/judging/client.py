"""The async side of a judge run: one OpenAI-compatible client, a sliding-window rate limit,
bounded concurrency, retries with exponential backoff and full jitter, one repair attempt for
a malformed answer. It touches no database: jobs come in, results go out (see runner.py)."""

from __future__ import annotations

import asyncio
import json
import queue
import random
import threading
import time
from dataclasses import dataclass, field
from typing import Any

import openai

from workers.judging.ratelimit import SlidingWindowLimiter

MAX_ATTEMPTS = 6  # per request, the first included
BACKOFF_BASE = 0.5  # seconds
BACKOFF_CAP = 30.0
RETRY_AFTER_CAP = 120.0


@dataclass
class Job:
    item_id: int
    message_lists: list[list[dict]]


@dataclass
class Result:
    item_id: int
    parsed: list[dict] = field(default_factory=list)
    choices: list[dict] = field(default_factory=list)
    texts: list[str] = field(default_factory=list)
    error: str = ""
    cancelled: bool = False
    requests: int = 0
    tokens_in: int = 0
    tokens_out: int = 0
    latency_ms: int = 0


@dataclass
class CallSettings:
    base_url: str
    api_key: str
    model: str
    temperature: float
    samples: int
    max_concurrency: int
    requests_per_minute: int
    tokens_per_minute: int
    timeout_seconds: float


class CallFailed(Exception):
    pass


def retry_after(exc: openai.APIStatusError) -> float | None:
    """Seconds from a Retry-After header (a number of seconds; dates are rare and ignored)."""
    value = exc.response.headers.get("retry-after") if exc.response is not None else None
    try:
        return min(max(float(value), 0.0), RETRY_AFTER_CAP) if value is not None else None
    except ValueError:
        return None


def retryable(exc: Exception) -> bool:
    if isinstance(exc, openai.APIConnectionError):  # timeouts included
        return True
    if isinstance(exc, openai.APIStatusError):
        return exc.status_code in (408, 409, 429) or exc.status_code >= 500
    return False


def backoff(attempt: int, rng: random.Random) -> float:
    """Full jitter: uniform in [0, min(cap, base·2^attempt)] spreads retrying clients apart."""
    return rng.uniform(0, min(BACKOFF_CAP, BACKOFF_BASE * 2**attempt))


def estimate_tokens(messages: list[dict]) -> int:
    # About four characters a token, plus room for the answer; corrected after the response.
    return len(json.dumps(messages, ensure_ascii=False)) // 4 + 256


class JudgeClient:
    def __init__(self, settings: CallSettings, protocol: Any, *, seed: int | None = None):
        self.settings = settings
        self.protocol = protocol
        self.rng = random.Random(seed)
        self.limiter = SlidingWindowLimiter(
            requests_per_window=settings.requests_per_minute, tokens_per_window=settings.tokens_per_minute
        )
        self.semaphore = asyncio.Semaphore(settings.max_concurrency)
        self.client = openai.AsyncOpenAI(
            base_url=settings.base_url,
            api_key=settings.api_key,
            timeout=settings.timeout_seconds,
            max_retries=0,  # retries are ours: they go through the rate limit
        )

    async def call(self, messages: list[dict], result: Result, n: int = 1) -> list[dict]:
        """One chat completion with `n` choices, retried; returns the choices as dicts.
        Raises CallFailed."""
        last = ""
        for attempt in range(MAX_ATTEMPTS):
            estimate = estimate_tokens(messages)
            async with self.semaphore:
                granted = await self.limiter.acquire(estimate if self.settings.tokens_per_minute else 0)
                result.requests += 1
                try:
                    response = await self.client.chat.completions.create(
                        model=self.settings.model,
                        messages=messages,
                        temperature=self.settings.temperature,
                        logprobs=True,
                        **({"n": n} if n > 1 else {}),
                    )
                except Exception as exc:  # noqa: BLE001 - classified just below
                    if not retryable(exc):
                        raise CallFailed(describe(exc)) from exc
                    last = describe(exc)
                    wait = backoff(attempt, self.rng)
                    if isinstance(exc, openai.APIStatusError):
                        wait = max(wait, retry_after(exc) or 0.0)
                else:
                    usage = response.usage
                    if usage is not None:
                        result.tokens_in += usage.prompt_tokens or 0
                        result.tokens_out += usage.completion_tokens or 0
                        if self.settings.tokens_per_minute:
                            self.limiter.adjust(granted, estimate, usage.total_tokens or estimate)
                    if not response.choices:
                        raise CallFailed("The endpoint answered with no choices.")
                    return [choice.model_dump() for choice in response.choices]
            if attempt + 1 < MAX_ATTEMPTS:
                await asyncio.sleep(wait)
        raise CallFailed(f"Gave up after {MAX_ATTEMPTS} attempts: {last}")

    async def sample(self, messages: list[dict], result: Result) -> list[tuple[dict, dict, str]]:
        """K answers (one request, n=K), parsed; each malformed one is asked again once, alone,
        with a repair instruction."""
        choices = await self.call(messages, result, n=self.settings.samples)
        return list(await asyncio.gather(*(self._parsed(messages, choice, result) for choice in choices)))

    async def _parsed(self, messages: list[dict], choice: dict, result: Result) -> tuple[dict, dict, str]:
        text = self.protocol.choice_text(choice)
        try:
            return self.protocol.parse(text), choice, text
        except self.protocol.ParseError as exc:
            first_error = exc.message
        repaired = self.protocol.repair_messages(messages, text, first_error)
        choice = (await self.call(repaired, result))[0]
        text2 = self.protocol.choice_text(choice)
        try:
            return self.protocol.parse(text2), choice, text2
        except self.protocol.ParseError as exc:
            raise MalformedAnswer(
                f"Malformed answer, also after one repair: {exc.message}", [text, text2]
            ) from exc

    async def judge(self, job: Job) -> Result:
        result = Result(item_id=job.item_id)
        started = time.monotonic()
        outcomes = await asyncio.gather(
            *(self.sample(m, result) for m in job.message_lists), return_exceptions=True
        )
        errors: list[str] = []
        for outcome in outcomes:
            if isinstance(outcome, MalformedAnswer):
                errors.append(str(outcome))
                result.texts.extend(outcome.texts)
            elif isinstance(outcome, BaseException):
                errors.append(str(outcome) if isinstance(outcome, CallFailed) else describe(outcome))
            else:
                for parsed, choice, text in outcome:
                    result.parsed.append(parsed)
                    result.choices.append(choice)
                    result.texts.append(text)
        result.error = "; ".join(dict.fromkeys(errors))
        result.latency_ms = int((time.monotonic() - started) * 1000)
        return result


class MalformedAnswer(Exception):
    def __init__(self, message: str, texts: list[str]):
        super().__init__(message)
        self.texts = texts


def describe(exc: BaseException) -> str:
    if isinstance(exc, openai.APITimeoutError):
        return "The request timed out."
    if isinstance(exc, openai.APIConnectionError):
        return f"Could not connect to the endpoint ({exc.__cause__ or exc})."
    if isinstance(exc, openai.APIStatusError):
        return f"HTTP {exc.status_code} from the endpoint: {str(exc.message)[:300]}"
    return f"{type(exc).__name__}: {str(exc)[:300]}"


async def serve(
    settings: CallSettings,
    protocol: Any,
    results: queue.Queue,
    cancel: threading.Event,
    ready: queue.Queue,
) -> None:
    """Judge jobs from `jobs` (None ends a worker) and put Results on `results`."""
    client = JudgeClient(settings, protocol)
    jobs: asyncio.Queue = asyncio.Queue()
    ready.put((asyncio.get_running_loop(), jobs))

    async def worker() -> None:
        while True:
            job = await jobs.get()
            if job is None:
                return
            if cancel.is_set():
                results.put(Result(item_id=job.item_id, cancelled=True))
                continue
            try:
                results.put(await client.judge(job))
            except Exception as exc:  # noqa: BLE001 - one item's failure never ends the run
                results.put(Result(item_id=job.item_id, error=describe(exc)))

    try:
        await asyncio.gather(*(worker() for _ in range(settings.max_concurrency)))
    finally:
        await client.client.close()
