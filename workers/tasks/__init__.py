"""Celery tasks. `app.autodiscover_tasks()` imports this package; each module here registers
its tasks on import."""

from . import exports, imports, judges

__all__ = ["exports", "imports", "judges"]
