"""The tool environments the generator draws from."""

from __future__ import annotations

from ..world import Env
from .calendar import CALENDAR
from .freight import FREIGHT
from .lab import LAB
from .portfolio import PORTFOLIO
from .shop import SHOP
from .travel import TRAVEL

ENVS: tuple[Env, ...] = (TRAVEL, SHOP, CALENDAR, LAB, PORTFOLIO, FREIGHT)
