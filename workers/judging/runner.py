"""Run one JudgeRun: pick its items, judge them through the async client (client.py) on a
thread of its own, and write each item's Suggestion as soon as it is done.

All database work stays on the calling thread (the Celery worker's, or a test's), so it uses
the caller's connection and transaction; the event loop thread only talks HTTP. Safe to
run again after a crash: items this run already wrote are skipped, the unique constraint on
Suggestion(item, judge_config, prompt_version) makes a second row impossible.
"""

from __future__ import annotations

import asyncio
import json
import logging
import queue
import threading
import time
from collections.abc import Iterator
from datetime import timedelta
from decimal import Decimal
from types import SimpleNamespace
from typing import Any

from celery.exceptions import SoftTimeLimitExceeded
from django.conf import settings
from django.db import DatabaseError, transaction
from django.db.models import F, Q, QuerySet
from django.utils import timezone

from annotation.models import Item, Suggestion
from workers.judging.client import CallSettings, Job, Result, serve
from workers.models import JudgeConfig, JudgeRun

logger = logging.getLogger(__name__)

FLUSH_SECONDS = 1.0  # counters and the cancel flag, at least this often
NO_KEY = "none"  # sent when the judge needs no key (a local server)
FINISHED = (JudgeRun.Status.DONE, JudgeRun.Status.FAILED, JudgeRun.Status.CANCELLED)


class RunError(Exception):
    """The run cannot go on at all (no key, unknown protocol); recorded on the run."""


def protocol_for(config: JudgeConfig) -> SimpleNamespace:
    from workers.judging import protocols

    if config.protocol not in protocols.PROTOCOLS:
        raise RunError(f"Protocol {config.protocol!r} is not available.")
    module = protocols.PROTOCOLS[config.protocol]
    return SimpleNamespace(
        build=module.build,
        parse=module.parse,
        combine=module.combine,
        ParseError=protocols.ParseError,
        repair_messages=protocols.repair_messages,
        choice_text=_choice_text,
    )


def _choice_text(choice: dict) -> str:
    return ((choice or {}).get("message") or {}).get("content") or ""


def run_items(run: JudgeRun) -> QuerySet[Item]:
    """The items the run's filters match (before skipping what is already judged)."""
    items = Item.objects.filter(project_id=run.config.project_id)
    filters = run.filters or {}
    if filters.get("states"):
        items = items.filter(state__in=filters["states"])
    if filters.get("strata"):
        items = items.filter(stratum__in=filters["strata"])
    if filters.get("item_ids"):
        items = items.filter(pk__in=filters["item_ids"])
    return items.order_by("pk")


def _existing(run: JudgeRun) -> QuerySet[Suggestion]:
    return Suggestion.objects.filter(judge_config_id=run.config_id, prompt_version=str(run.prompt_version))


def skip_ids(run: JudgeRun) -> set[int]:
    """Items not to judge: what this run already wrote (a restart), and, unless forced, items
    with a good suggestion for this judge and prompt version. A failed one is judged again."""
    keep = Q(run_id=run.pk)
    if not run.force:
        keep |= Q(error="")
    return set(_existing(run).filter(keep).values_list("item_id", flat=True))


def _cost(config: JudgeConfig, tokens_in: int, tokens_out: int) -> Decimal:
    cost = (
        Decimal(tokens_in) * config.price_in_per_mtok + Decimal(tokens_out) * config.price_out_per_mtok
    ) / Decimal(1_000_000)
    return cost.quantize(Decimal("0.000001"))


class _Counters:
    def __init__(self) -> None:
        self.done = self.failed = 0
        self.requests = self.tokens_in = self.tokens_out = 0
        self.cost = Decimal(0)

    def take_spend(self) -> dict[str, Any]:
        spend = {
            "requests_made": F("requests_made") + self.requests,
            "tokens_in": F("tokens_in") + self.tokens_in,
            "tokens_out": F("tokens_out") + self.tokens_out,
            "cost_usd": F("cost_usd") + self.cost,
        }
        self.requests = self.tokens_in = self.tokens_out = 0
        self.cost = Decimal(0)
        return spend


def stale_after() -> timedelta:
    return timedelta(seconds=settings.ARBITER["JUDGE_STALE_SECONDS"])


def heartbeat_is_stale(run: JudgeRun) -> bool:
    beat = run.heartbeat_at or run.started_at
    return beat is None or beat < timezone.now() - stale_after()


def run_judge(run_id: int) -> JudgeRun:
    """Judge the run's items; returns the run as it ended. Re-entrant after a crash."""
    with transaction.atomic():
        run = JudgeRun.objects.select_for_update().select_related("config").get(pk=run_id)
        if run.status in FINISHED:
            return run
        if run.cancel_requested:
            return _finish(run, JudgeRun.Status.CANCELLED)
        if run.status == JudgeRun.Status.RUNNING and not heartbeat_is_stale(run):
            return run  # another worker is judging it right now
        run.status = JudgeRun.Status.RUNNING
        run.started_at = run.started_at or timezone.now()
        run.heartbeat_at = timezone.now()
        run.save(update_fields=["status", "started_at", "heartbeat_at"])
    config = run.config
    try:
        protocol = protocol_for(config)
        api_key = _api_key(config)
    except RunError as exc:
        return _finish(run, JudgeRun.Status.FAILED, error=str(exc))
    items = run_items(run)
    skip = skip_ids(run)
    mine = _existing(run).filter(run_id=run.pk)
    counters = _Counters()
    counters.done = mine.filter(error="").count()
    counters.failed = mine.exclude(error="").count()
    total = items.count()
    skipped = len(skip & set(items.values_list("pk", flat=True))) - counters.done - counters.failed
    JudgeRun.objects.filter(pk=run.pk).update(
        items_total=total,
        items_skipped=max(skipped, 0),
        items_done=counters.done,
        items_failed=counters.failed,
    )
    todo = items.exclude(pk__in=skip).select_related("task", "trajectory_first", "trajectory_second")
    settings = CallSettings(
        base_url=config.base_url,
        api_key=api_key,
        model=config.model,
        temperature=config.temperature,
        samples=max(config.samples, 1),
        max_concurrency=max(config.max_concurrency, 1),
        requests_per_minute=max(config.requests_per_minute, 1),
        tokens_per_minute=config.tokens_per_minute,
        timeout_seconds=config.timeout_seconds,
    )
    try:
        cancelled = _drive(run, config, protocol, settings, todo.iterator(chunk_size=200), counters)
    except (DatabaseError, SoftTimeLimitExceeded):
        # The task retries on a lost database; a time limit leaves the run to be resumed.
        raise
    except Exception as exc:
        _flush(run, counters)
        _finish(run, JudgeRun.Status.FAILED, error=f"The run stopped: {type(exc).__name__}: {exc}")
        raise
    _flush(run, counters)
    run.refresh_from_db()
    if cancelled:
        return _finish(run, JudgeRun.Status.CANCELLED)
    return _finish(run, JudgeRun.Status.DONE)


def _api_key(config: JudgeConfig) -> str:
    from workers.services.judges import judge_api_key

    if not config.api_key_env:
        return NO_KEY
    key = judge_api_key(config)
    if not key:
        raise RunError(
            f"No API key: the environment variable {config.api_key_env} is not set for the worker "
            f'(nor ARBITER["JUDGE_KEYS"]). Set it where the worker runs, then start the run again.'
        )
    return key


def _drive(
    run: JudgeRun,
    config: JudgeConfig,
    protocol: SimpleNamespace,
    settings: CallSettings,
    items: Iterator[Item],
    counters: _Counters,
) -> bool:
    """Feed jobs to the event loop thread, write results as they come; True when cancelled."""
    results: queue.Queue[Result] = queue.Queue()
    ready: queue.Queue = queue.Queue()
    cancel = threading.Event()
    failure: list[BaseException] = []

    def loop_thread() -> None:
        try:
            asyncio.run(serve(settings, protocol, results, cancel, ready))
        except BaseException as exc:  # noqa: BLE001 - reported on the calling thread
            failure.append(exc)
            ready.put(None)

    thread = threading.Thread(target=loop_thread, name=f"judge-run-{run.pk}", daemon=True)
    thread.start()
    handle = ready.get()
    if handle is None:
        raise RuntimeError("The judge client could not start") from (failure[0] if failure else None)
    loop, jobs = handle
    by_id: dict[int, Item] = {}
    ahead = settings.max_concurrency * 2  # jobs queued beyond those in flight
    exhausted = False
    last_flush = time.monotonic()
    try:
        while True:
            while not exhausted and not cancel.is_set() and len(by_id) < ahead:
                item = next(items, None)
                if item is None:
                    exhausted = True
                    break
                try:
                    message_lists = protocol.build(item, config.prompt_template)
                except Exception as exc:  # noqa: BLE001 - a bad item or template fails that item
                    _write(
                        run,
                        config,
                        item,
                        Result(item_id=item.pk, error=f"Could not build the prompt: {exc}"),
                        counters,
                        protocol,
                    )
                    continue
                by_id[item.pk] = item
                loop.call_soon_threadsafe(jobs.put_nowait, Job(item_id=item.pk, message_lists=message_lists))
            if not by_id and (exhausted or cancel.is_set()):
                break
            try:
                result = results.get(timeout=0.2)
            except queue.Empty:
                result = None
            if result is not None:
                item = by_id.pop(result.item_id)
                if not result.cancelled:
                    _write(run, config, item, result, counters, protocol)
                    # Between items: jobs queued but not started are dropped once this is set.
                    if _cancel_requested(run):
                        cancel.set()
            if time.monotonic() - last_flush >= FLUSH_SECONDS:
                last_flush = time.monotonic()
                if _flush(run, counters):
                    cancel.set()
            if not thread.is_alive() and by_id:
                raise RuntimeError("The judge client stopped") from (failure[0] if failure else None)
    finally:
        cancel.set()
        for _ in range(settings.max_concurrency):
            loop.call_soon_threadsafe(jobs.put_nowait, None)
        thread.join(timeout=settings.timeout_seconds + 5)
    return _cancel_requested(run)


def _cancel_requested(run: JudgeRun) -> bool:
    return JudgeRun.objects.filter(pk=run.pk, cancel_requested=True).exists()


def _flush(run: JudgeRun, counters: _Counters) -> bool:
    """Write the counters; return whether a cancel was asked for."""
    JudgeRun.objects.filter(pk=run.pk).update(
        items_done=counters.done,
        items_failed=counters.failed,
        heartbeat_at=timezone.now(),
        **counters.take_spend(),
    )
    return _cancel_requested(run)


def _write(
    run: JudgeRun,
    config: JudgeConfig,
    item: Item,
    result: Result,
    counters: _Counters,
    protocol: SimpleNamespace,
) -> None:
    label: dict = {}
    scores: dict = {}
    rationale = ""
    error = result.error
    if not error:
        try:
            verdict = protocol.combine(item, result.parsed, result.choices)
            label, scores, rationale = verdict.label, verdict.scores, verdict.rationale
        except Exception as exc:  # noqa: BLE001 - recorded on the suggestion
            error = f"Could not combine the answers: {type(exc).__name__}: {exc}"
    cost = _cost(config, result.tokens_in, result.tokens_out)
    raw = (
        result.texts[0]
        if len(result.texts) == 1
        else (json.dumps(result.texts, ensure_ascii=False) if result.texts else "")
    )
    values = {
        "run": run,
        "source": f"judge:{config.name}",
        "config": {
            "model": config.model,
            "base_url": config.base_url,
            "protocol": config.protocol,
            "temperature": config.temperature,
            "samples": config.samples,
        },
        "label": label,
        "scores": scores,
        "rationale": rationale,
        "raw_output": raw,
        "tokens_in": result.tokens_in,
        "tokens_out": result.tokens_out,
        "cost_usd": cost,
        "latency_ms": result.latency_ms,
        "error": error,
    }
    # Replaces a failed (or, when forced, any) earlier row of this judge and prompt version:
    # never a second one.
    Suggestion.objects.update_or_create(
        item=item, judge_config=config, prompt_version=str(run.prompt_version), defaults=values
    )
    if error:
        counters.failed += 1
    else:
        counters.done += 1
    counters.requests += result.requests
    counters.tokens_in += result.tokens_in
    counters.tokens_out += result.tokens_out
    counters.cost += cost


def _finish(run: JudgeRun, status: str, error: str = "") -> JudgeRun:
    run.status = status
    run.finished_at = timezone.now()
    fields = ["status", "finished_at"]
    if error:
        run.error = error
        fields.append("error")
    run.save(update_fields=fields)
    logger.info("judge run %s ended: %s %s", run.pk, status, error)
    return run
