"""Background exports: the page queues an export and polls it; a worker on the `exports` queue
writes the files."""

from __future__ import annotations

from celery import shared_task

from review.services.exports import export_run


# acks_late: a worker that dies mid-export leaves the message for another, which starts the
# export over (a finished one skips itself). No autoretry: a failed export records its error.
@shared_task(acks_late=True, ignore_result=True)
def export_task(export_id: int) -> None:
    export_run(export_id=export_id)
