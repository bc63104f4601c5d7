"""Judge runs on the `judge` queue: the page or API queues a run, a worker judges its items."""

from __future__ import annotations

from celery import shared_task
from django.db import InterfaceError, OperationalError
from kombu.exceptions import OperationalError as BrokerError

from workers.judging.runner import run_judge


# acks_late: a worker killed mid-run leaves the message for the next worker, which continues
# the run (items already judged are skipped). Autoretry only when the database or broker
# connection failed: the run itself is safe to repeat, a judge's own errors are recorded.
@shared_task(
    acks_late=True,
    reject_on_worker_lost=True,
    ignore_result=True,
    autoretry_for=(OperationalError, InterfaceError, BrokerError),
    retry_backoff=5,
    retry_backoff_max=120,
    max_retries=5,
    soft_time_limit=6 * 3600,
    time_limit=6 * 3600 + 300,
)
def judge_run_task(run_id: int) -> None:
    run_judge(run_id)
