"""Labeling pages, one module per item kind; `pages` holds the URLs every kind shares.

Blinding: annotators see only items they hold, in their own order, and never gold, trajectory
sources, other people's labels, or machine suggestions unless the project turns them on.
Reviewers and managers may open any item of the project read-only, in canonical order, without
taking a slot.
"""

from .pages import label_item, message_body, queue_next, skip_item

__all__ = ["label_item", "message_body", "queue_next", "skip_item"]
