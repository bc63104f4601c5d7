"""Review writes: adjudication decisions and re-opening settled items."""

from .adjudication import (
    AdjudicationConflict,
    AdjudicationError,
    adjudication_decide,
    adjudication_reopen,
    item_state_token,
)

__all__ = [
    "AdjudicationConflict",
    "AdjudicationError",
    "adjudication_decide",
    "adjudication_reopen",
    "item_state_token",
]
