"""Celery tasks. `app.autodiscover_tasks()` imports this package; each module here registers
its tasks on import."""

from . import exports, imports

__all__ = ["exports", "imports"]
