"""Background imports: the web page queues a job and polls it; a worker runs it."""

from __future__ import annotations

from celery import shared_task

from annotation.services.imports import import_job_run


# acks_late: a worker that dies mid-import leaves the message for another worker (the job
# skips itself once finished). No autoretry: a rejected file stays rejected.
@shared_task(acks_late=True, ignore_result=True)
def import_job_task(job_id: int) -> None:
    import_job_run(job_id=job_id)
