"""The sliding-window limiter, on a fake clock: saturates the rate, never exceeds it."""

from __future__ import annotations

import asyncio
import bisect
import random

from workers.judging.ratelimit import SlidingWindowLimiter


class FakeClock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now

    async def sleep(self, seconds: float) -> None:
        self.now += seconds
        await asyncio.sleep(0)


def max_in_any_window(times: list[float], window: float) -> int:
    times = sorted(times)
    return max(bisect.bisect_left(times, t + window) - i for i, t in enumerate(times))


def test_never_more_than_the_limit_in_any_window_and_saturates():
    clock = FakeClock()
    limiter = SlidingWindowLimiter(requests_per_window=50, window=60.0, clock=clock, sleep=clock.sleep)
    rng = random.Random(1)

    asked: list[float] = []

    async def main() -> list[float]:
        grants = []
        for _ in range(500):
            clock.now += rng.choice([0.0, 0.0, 0.01, 0.3, 5.0])  # bursts and gaps
            asked.append(clock.now)
            grants.append(await limiter.acquire())
        return grants

    grants = asyncio.run(main())
    assert max_in_any_window(grants, 60.0) == 50
    # Saturated: each request goes as soon as it is asked for, or the moment the request 50
    # before it leaves the window; never later.
    for i, granted in enumerate(grants):
        earliest = max(asked[i], grants[i - 50] + 60.0 if i >= 50 else 0.0)
        assert abs(granted - earliest) < 1e-6


def test_concurrent_waiters_share_the_window():
    clock = FakeClock()
    limiter = SlidingWindowLimiter(requests_per_window=10, window=60.0, clock=clock, sleep=clock.sleep)

    async def main() -> list[float]:
        return list(await asyncio.gather(*(limiter.acquire() for _ in range(35))))

    grants = asyncio.run(main())
    assert max_in_any_window(grants, 60.0) == 10
    assert sorted(grants)[-1] == 180.0


def test_token_budget():
    clock = FakeClock()
    limiter = SlidingWindowLimiter(
        requests_per_window=1000, tokens_per_window=1000, window=60.0, clock=clock, sleep=clock.sleep
    )

    async def main() -> list[float]:
        return [await limiter.acquire(400) for _ in range(6)]

    grants = asyncio.run(main())
    assert grants == [0.0, 0.0, 60.0, 60.0, 120.0, 120.0]
