"""Preparing trajectories for the labeling pages: messages, tool registries, word diffs.
Every value handed to templates is plain text (escaped there) except the diff markup, which
is built from escaped tokens."""

from .diff import apply_pair_diff, split_words, word_diff
from .messages import LAZY_FIELDS, Limits, Links, MessageView, message_text, message_view, message_views
from .pair import PairView, SideView, pair_view, tool_specs
from .text import pretty_json

__all__ = [
    "LAZY_FIELDS",
    "Limits",
    "Links",
    "MessageView",
    "PairView",
    "SideView",
    "apply_pair_diff",
    "message_text",
    "message_view",
    "message_views",
    "pair_view",
    "pretty_json",
    "split_words",
    "tool_specs",
    "word_diff",
]
