"""The dev LLM server over real HTTP on loopback, driven by the openai client."""

from __future__ import annotations

import asyncio
import json
import math
import re
import subprocess
import sys
import time
from http.client import HTTPConnection

import openai
import pytest

from workers.devllm import DevLLMServer
from workers.devllm.server import max_in_window

PAIR_ITEM = (
    "Judge the two trajectories.\n\n"
    "### Candidate A\nI searched flights, compared three fares and booked the cheapest one.\n\n"
    "### Candidate B\nI placed the order, but the payment failed with an error.\n"
)
CHECKLIST_ITEM = "Checklist:\nQ1: Open the cart\nQ2: Apply the coupon\nQ3: Pay\n"
TRACE_ITEM = "Trace:\nStep 1: OCR on the image\nStep 2: Calculator(3+4)\nStep 3: answer 7\n"


@pytest.fixture
def server():
    with DevLLMServer(port=0) as srv:
        yield srv


def client(srv: DevLLMServer, **kw) -> openai.OpenAI:
    kw.setdefault("max_retries", 0)
    return openai.OpenAI(base_url=srv.url, api_key="dev-key", **kw)


def ask(c: openai.OpenAI, protocol: str, user: str, model: str = "dev-judge", **kw):
    messages = [
        {"role": "system", "content": f"<<arbiter:{protocol}>>\nYou are a careful judge."},
        {"role": "user", "content": user},
    ]
    return c.chat.completions.create(model=model, messages=messages, **kw)


def raw(srv: DevLLMServer, method: str, path: str, body: bytes = b"") -> tuple[int, dict]:
    """A plain HTTP call, for what the openai client will not send (no key, stats)."""
    conn = HTTPConnection(srv.host, srv.port, timeout=5)
    try:
        conn.request(method, path, body=body)
        resp = conn.getresponse()
        return resp.status, json.loads(resp.read())
    finally:
        conn.close()


def swap(item: str) -> str:
    a, b = item.split("### Candidate B")
    head, a_text = a.split("### Candidate A")
    return f"{head}### Candidate A{b}\n### Candidate B{a_text}"


def test_pairwise_prefers_the_candidate_without_errors_in_both_orders(server):
    c = client(server)
    first = json.loads(ask(c, "pairwise", PAIR_ITEM).choices[0].message.content)
    swapped = json.loads(ask(c, "pairwise", swap(PAIR_ITEM)).choices[0].message.content)
    assert first["preferred"] == "A" and swapped["preferred"] == "B"
    assert first["tags"] == {"A": [], "B": ["fabricated_result"]}
    assert first["rationale"]


def test_pairwise_is_position_biased_on_some_near_equal_pairs(server):
    c = client(server)

    def verdicts(a: str, b: str) -> list[str]:
        item = f"### Candidate A\n{a}\n### Candidate B\n{b}\n"
        return [
            json.loads(ask(c, "pairwise", x).choices[0].message.content)["preferred"]
            for x in (item, swap(item))
        ]

    # Lengths within 5%: this pair falls in the biased share (first shown wins) ...
    biased = ("Took the 9am train to the city centre.", "Took the 10am bus to the city centre.")
    assert verdicts(*biased) == ["A", "A"]
    # ... this one does not: the shorter (the bus, second given) wins in both orders.
    fair = ("Booked the 9am train to the old city centre.", "Booked the 10am bus to the old city centre.")
    assert verdicts(*fair) == ["B", "A"]


def test_pointwise_pca_and_trace_have_their_formats(server):
    c = client(server)
    point = json.loads(ask(c, "pointwise", PAIR_ITEM).choices[0].message.content)
    assert point["score"] in range(1, 6) and isinstance(point["tags"], list)

    pca = ask(c, "pca", "The agent stops at the red light.").choices[0].message.content
    lines = pca.split("\n")
    assert len(lines) == 6
    for i, dim in enumerate(("Action", "Perception", "Cognition")):
        assert lines[2 * i].startswith(f"{dim} evidence: ")
        assert re.fullmatch(rf"{dim} score: [01]", lines[2 * i + 1])

    trace = json.loads(ask(c, "trace", TRACE_ITEM).choices[0].message.content)
    assert [s["step"] for s in trace["steps"]] == [1, 2, 3]
    assert all(s[k] in (0, 1) for s in trace["steps"] for k in ("grounding", "tool_precision"))
    assert 0 <= trace["faithfulness"] <= 1 and trace["goal_accuracy"] in (0, 1)


def test_checklist_answers_every_item_with_logprobs(server):
    resp = ask(client(server), "checklist", CHECKLIST_ITEM, logprobs=True, top_logprobs=3)
    content = resp.choices[0].message.content
    assert re.fullmatch(r"(Q\d: (Yes|In Progress|No)\n?){3}", content)
    tokens = resp.choices[0].logprobs.content
    assert "".join(t.token for t in tokens) == content
    answers = [tokens[i + 1] for i, t in enumerate(tokens) if re.fullmatch(r"Q\d+: ", t.token)]
    assert len(answers) == 3
    for tok in answers:
        assert tok.token in ("Yes", "In", "No")
        assert {t.token for t in tok.top_logprobs} == {"Yes", "In", "No"}
        assert sum(math.exp(t.logprob) for t in tok.top_logprobs) == pytest.approx(1, abs=1e-4)


def test_answers_are_deterministic_and_samples_vary_slightly(server):
    c = client(server)
    one = ask(c, "checklist", CHECKLIST_ITEM, n=8)
    two = ask(c, "checklist", CHECKLIST_ITEM, n=8)
    texts = [ch.message.content for ch in one.choices]
    assert texts == [ch.message.content for ch in two.choices]
    assert len(texts) == 8 and len(set(texts)) > 1
    assert one.usage.total_tokens == one.usage.prompt_tokens + one.usage.completion_tokens > 0


def test_key_is_required_and_models_are_listed(server):
    status, body = raw(server, "POST", "/v1/chat/completions", b"{}")
    assert status == 401 and body["error"]["code"] == "invalid_api_key"
    assert [m.id for m in client(server).models.list()] == ["dev-judge"]


def test_429_carries_retry_after_then_the_retry_succeeds(server):
    c = client(server)
    with pytest.raises(openai.RateLimitError) as err:
        ask(c, "pointwise", "Item 1", model="dev-judge?rate_429=1")
    assert float(err.value.response.headers["Retry-After"]) > 0
    assert ask(c, "pointwise", "Item 1", model="dev-judge?rate_429=1").choices[0].message.content
    # The client's own retry honours Retry-After and lands on the second attempt.
    resp = ask(client(server, max_retries=2), "pointwise", "Item 2", model="dev-judge?rate_429=1")
    assert json.loads(resp.choices[0].message.content)["score"]
    assert server.stats.snapshot()["by_status"] == {"429": 2, "200": 2}


def test_500_then_success_and_seeded_rates_hit_a_fraction():
    with DevLLMServer(port=0, rate_500=0.5, seed=7) as srv:
        c = client(srv)
        failed = 0
        for i in range(40):
            try:
                ask(c, "pointwise", f"Item {i}")
            except openai.InternalServerError:
                failed += 1
                ask(c, "pointwise", f"Item {i}")  # second attempt never faults
        assert 8 <= failed <= 32
        assert srv.stats.snapshot()["by_status"] == {"500": failed, "200": 40}


def test_timeout_fault_outlasts_the_client_timeout(server):
    c = client(server, timeout=1.0)
    started = time.monotonic()
    with pytest.raises(openai.APITimeoutError):
        ask(c, "pca", "Item T", model="dev-judge?rate_timeout=1")
    assert time.monotonic() - started < 5
    assert server.stats.snapshot()["by_status"] == {"timeout": 1}
    assert ask(c, "pca", "Item T", model="dev-judge?rate_timeout=1").choices[0].message.content


def test_malformed_answers_until_a_repair_turn(server):
    c = client(server)
    model = "dev-judge?malformed=1"
    bad = ask(c, "pairwise", PAIR_ITEM, model=model).choices[0].message.content
    assert bad == "Sure! I think A is better."
    assert ask(c, "pairwise", PAIR_ITEM, model=model).choices[0].message.content == bad
    messages = [
        {"role": "system", "content": "<<arbiter:pairwise>>\nJudge."},
        {"role": "user", "content": PAIR_ITEM},
        {"role": "assistant", "content": bad},
        {"role": "user", "content": "<<arbiter:repair>>\nAnswer with the JSON object only."},
    ]
    fixed = c.chat.completions.create(model=model, messages=messages)
    assert json.loads(fixed.choices[0].message.content)["preferred"] == "A"
    assert server.stats.snapshot()["malformed"] == 2


def test_stats_windows_latency_and_reset():
    with DevLLMServer(port=0, latency_ms=50) as srv:
        c = client(srv)
        started = time.monotonic()
        ask(c, "pointwise", "one")
        assert time.monotonic() - started >= 0.05
        ask(c, "pointwise", "two")
        _, stats = raw(srv, "GET", "/_stats")
        assert stats["total"] == 2 and stats["max_per_60s"] == 2 and len(stats["arrivals"]) == 2
        assert raw(srv, "POST", "/_reset") == (200, {"reset": True})
        assert srv.stats.snapshot()["total"] == 0
    assert max_in_window([0, 10, 59.9, 60, 61, 130], 60) == 4


def test_concurrent_async_requests_are_served_in_parallel():
    async def run(url: str) -> list[str]:
        async with openai.AsyncOpenAI(base_url=url, api_key="k", max_retries=0) as c:
            calls = [
                c.chat.completions.create(
                    model="dev-judge",
                    messages=[
                        {"role": "system", "content": "<<arbiter:pointwise>>"},
                        {"role": "user", "content": f"Item {i}"},
                    ],
                )
                for i in range(20)
            ]
            return [r.choices[0].message.content for r in await asyncio.gather(*calls)]

    with DevLLMServer(port=0, latency_ms=200) as srv:
        started = time.monotonic()
        assert len(asyncio.run(run(srv.url))) == 20
        assert time.monotonic() - started < 2  # 20 × 200 ms one after another would take 4 s
        assert srv.stats.snapshot()["max_in_flight"] > 5


def test_command_line_server_answers():
    proc = subprocess.Popen(
        [sys.executable, "-m", "workers.devllm", "--port", "0"],
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        url = proc.stdout.readline().split()[-1]
        c = openai.OpenAI(base_url=url, api_key="k", max_retries=0)
        resp = ask(c, "pointwise", "hello")
        assert json.loads(resp.choices[0].message.content)["score"] in range(1, 6)
    finally:
        proc.terminate()
        assert proc.wait(timeout=5) == 0
