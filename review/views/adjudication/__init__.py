"""The adjudication queue and page; one module per kind's side-by-side view."""

from .page import adjudicate_item, adjudication_queue

__all__ = ["adjudicate_item", "adjudication_queue"]
