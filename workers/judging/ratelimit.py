"""A sliding-window limiter for requests (and tokens) per minute.

A run should use the whole allowed rate but never exceed it in ANY window of `window`
seconds, so each grant is recorded with its time and a new one waits only until the oldest
grant in the window falls out of it. The clock and sleep are injectable for tests.
"""

from __future__ import annotations

import asyncio
import time
from collections import deque
from collections.abc import Awaitable, Callable

# A little more than a minute: a request's arrival at the server lags its grant here by a
# variable network delay, and the server's 60 s window must still hold.
DEFAULT_WINDOW = 60.25


class SlidingWindowLimiter:
    def __init__(
        self,
        *,
        requests_per_window: int,
        tokens_per_window: int = 0,
        window: float = DEFAULT_WINDOW,
        clock: Callable[[], float] = time.monotonic,
        sleep: Callable[[float], Awaitable[None]] = asyncio.sleep,
    ):
        if requests_per_window < 1:
            raise ValueError("requests_per_window must be at least 1")
        self.requests = requests_per_window
        self.tokens = tokens_per_window
        self.window = window
        self.clock = clock
        self.sleep = sleep
        self._grants: deque[tuple[float, int]] = deque()
        self._tokens_in_window = 0
        self._lock = asyncio.Lock()

    def _prune(self, now: float) -> None:
        # The epsilon absorbs float rounding in `oldest + window - now`, which would otherwise
        # cost an extra minimum sleep.
        while self._grants and self._grants[0][0] <= now - self.window + 1e-9:
            _, tokens = self._grants.popleft()
            self._tokens_in_window -= tokens

    def _fits(self, tokens: int) -> bool:
        if len(self._grants) >= self.requests:
            return False
        if self.tokens > 0 and self._grants:
            # One request larger than the whole budget still goes, alone in its window.
            return self._tokens_in_window + tokens <= self.tokens
        return True

    async def acquire(self, tokens: int = 0) -> float:
        """Wait for room for one request of about `tokens` tokens; return the grant time."""
        # The lock keeps grants first come, first served: a waiter is not overtaken.
        async with self._lock:
            while True:
                now = self.clock()
                self._prune(now)
                if self._fits(tokens):
                    self._grants.append((now, tokens))
                    self._tokens_in_window += tokens
                    return now
                await self.sleep(max(self._grants[0][0] + self.window - now, 0.001))

    def adjust(self, granted_at: float, estimated: int, actual: int) -> None:
        """Replace a grant's estimated tokens by what the response reported."""
        for index, (at, tokens) in enumerate(self._grants):
            if at == granted_at and tokens == estimated:
                self._grants[index] = (at, actual)
                self._tokens_in_window += actual - estimated
                return
