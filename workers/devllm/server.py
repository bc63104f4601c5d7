"""The dev LLM server: OpenAI-compatible chat completions over http.server (stdlib only).

Faults are deterministic (see README.md): a request's *content key* is the hash of its model base
name, messages and sampling fields; the server counts attempts per key, and only the FIRST attempt
of a key can fault (429 / 500 / timeout, chosen by `unit(seed, key)` against the rates), so a
client that retries always succeeds. Malformed output is a property of the content (every attempt
of a hit key is malformed) and is cured only by a repair turn carrying `<<arbiter:repair>>`.
"""

from __future__ import annotations

import hashlib
import json
import threading
import time
import uuid
from dataclasses import dataclass, fields, replace
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qsl

from workers.devllm import answers


@dataclass(frozen=True)
class Switches:
    latency_ms: float = 0.0
    rate_429: float = 0.0
    rate_500: float = 0.0
    rate_timeout: float = 0.0
    rate_malformed: float = 0.0
    seed: int = 0
    retry_after: float = 0.2  # seconds, sent as Retry-After on 429
    timeout_s: float = 30.0  # how long a "timeout" fault holds the request

    def with_query(self, query: str) -> Switches:
        """Per-request overrides from the model name's query part (`dev-judge?rate_429=0.2`)."""
        known = {f.name: f.type for f in fields(self)}
        changes: dict[str, float | int] = {}
        for key, value in parse_qsl(query):
            key = "rate_malformed" if key == "malformed" else key
            if key in known:
                changes[key] = int(float(value)) if key == "seed" else float(value)
        return replace(self, **changes)


class Stats:
    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.reset()

    def reset(self) -> None:
        self.total = 0
        self.by_status: dict[str, int] = {}
        self.arrivals: list[float] = []
        self.attempts: dict[str, int] = {}
        self.in_flight = 0
        self.max_in_flight = 0
        self.malformed = 0

    def arrive(self, key: str) -> int:
        """Record one chat request; returns its attempt number for this content (0 = first)."""
        with self.lock:
            self.total += 1
            self.arrivals.append(time.monotonic())
            attempt = self.attempts.get(key, 0)
            self.attempts[key] = attempt + 1
            self.in_flight += 1
            self.max_in_flight = max(self.max_in_flight, self.in_flight)
            return attempt

    def done(self, status: str | None, *, malformed: bool = False) -> None:
        """One request finished; `status` None when it was already counted (timeouts)."""
        with self.lock:
            self.in_flight -= 1
            if status:
                self.by_status[status] = self.by_status.get(status, 0) + 1
            self.malformed += int(malformed)

    def count(self, status: str) -> None:
        with self.lock:
            self.by_status[status] = self.by_status.get(status, 0) + 1

    def snapshot(self) -> dict:
        with self.lock:
            arrivals = list(self.arrivals)
            return {
                "total": self.total,
                "by_status": dict(self.by_status),
                "malformed": self.malformed,
                "in_flight": self.in_flight,
                "max_in_flight": self.max_in_flight,
                "max_per_60s": max_in_window(arrivals, 60.0),
                "arrivals": arrivals,
            }


def max_in_window(arrivals: list[float], window: float) -> int:
    """Most arrivals inside any half-open window of `window` seconds (two-pointer sweep)."""
    best, left = 0, 0
    for right, t in enumerate(arrivals):
        while t - arrivals[left] >= window:
            left += 1
        best = max(best, right - left + 1)
    return best


def text_of(content: object) -> str:
    """Message content as text: a string, or the text parts of a content-part list."""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "\n".join(
            str(p.get("text", "")) for p in content if isinstance(p, dict) and p.get("type") == "text"
        )
    return ""


def tokens_of(text: str) -> int:
    return max(1, (len(text) + 3) // 4)


class Handler(BaseHTTPRequestHandler):
    server: DevHTTPServer
    protocol_version = "HTTP/1.1"
    # Headers and body go out in two writes; without this, Nagle + delayed ACK adds ~40 ms each.
    disable_nagle_algorithm = True

    def log_message(self, format: str, *args: object) -> None:  # noqa: A002 - stdlib signature
        if self.server.verbose:
            super().log_message(format, *args)

    # --- plumbing -------------------------------------------------------------------------
    def _send(self, status: int, body: dict, headers: dict[str, str] | None = None) -> None:
        data = json.dumps(body).encode()
        try:
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            for name, value in (headers or {}).items():
                self.send_header(name, value)
            self.end_headers()
            self.wfile.write(data)
        except (BrokenPipeError, ConnectionResetError):
            pass  # the client gave up (timeout fault); nothing to tell it

    def _error(self, status: int, message: str, kind: str, code: str | None = None, **kw) -> None:
        body = {"error": {"message": message, "type": kind, "param": None, "code": code}}
        self._send(status, body, kw.get("headers"))

    def _authorized(self) -> bool:
        auth = self.headers.get("Authorization", "")
        if auth.startswith("Bearer ") and auth[7:].strip():
            return True
        self.server.stats.count("401")
        self._error(401, "Missing bearer API key.", "invalid_request_error", "invalid_api_key")
        return False

    def _body(self) -> dict | None:
        length = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(length) if length else b""
        try:
            body = json.loads(raw or b"{}")
        except ValueError:
            body = None
        if not isinstance(body, dict):
            self._error(400, "Body must be a JSON object.", "invalid_request_error")
            return None
        return body

    # --- routes ---------------------------------------------------------------------------
    def do_GET(self) -> None:  # noqa: N802 - stdlib naming
        if self.path == "/_stats":
            self._send(200, self.server.stats.snapshot())
        elif self.path.rstrip("/") == "/v1/models":
            if self._authorized():
                model = {"id": "dev-judge", "object": "model", "created": 0, "owned_by": "arbiter"}
                self._send(200, {"object": "list", "data": [model]})
        else:
            self._error(404, f"No route {self.path}", "invalid_request_error")

    def do_POST(self) -> None:  # noqa: N802 - stdlib naming
        if self.path == "/_reset":
            self._body()
            self.server.stats.reset()
            self._send(200, {"reset": True})
        elif self.path.rstrip("/") == "/v1/chat/completions":
            if self._authorized():
                body = self._body()
                if body is not None:
                    self._chat(body)
        else:
            self._error(404, f"No route {self.path}", "invalid_request_error")

    def _chat(self, body: dict) -> None:
        messages = body.get("messages")
        if not isinstance(messages, list) or not messages:
            self._error(400, "`messages` must be a non-empty list.", "invalid_request_error")
            return
        model = str(body.get("model") or "dev-judge")
        base_model, _, query = model.partition("?")
        switches = self.server.switches.with_query(query)
        key_src = {k: body.get(k) for k in ("messages", "n", "temperature", "logprobs")}
        key = hashlib.sha256(
            json.dumps({"model": base_model, **key_src}, sort_keys=True, default=str).encode()
        ).hexdigest()
        stats = self.server.stats
        attempt = stats.arrive(key)
        # Stats are recorded BEFORE the answer is written, so a client that reads /_stats right
        # after its response sees its own request counted.
        try:
            fault = self._fault(switches, key) if attempt == 0 else None
            if fault == "429":
                stats.done("429")
                self._error(
                    429,
                    "Rate limit reached for dev-judge (injected).",
                    "requests",
                    "rate_limit_exceeded",
                    headers={
                        "Retry-After": f"{switches.retry_after:g}",
                        "retry-after-ms": str(int(switches.retry_after * 1000)),
                    },
                )
                return
            self.server.stop_event.wait(switches.latency_ms / 1000)
            if fault == "500":
                stats.done("500")
                self._error(500, "The dev server had an error (injected).", "server_error")
                return
            if fault == "timeout":
                stats.count("timeout")  # counted now: the client gives up long before the answer
                self.server.stop_event.wait(switches.timeout_s)
            response, malformed = self._completion(body, base_model, switches, key)
        except Exception:
            stats.done("500")
            raise
        stats.done(None if fault else "200", malformed=malformed)
        self._send(200, response)

    def _fault(self, switches: Switches, key: str) -> str | None:
        draw = answers.unit(switches.seed, key, "fault")
        for name, rate in (
            ("429", switches.rate_429),
            ("500", switches.rate_500),
            ("timeout", switches.rate_timeout),
        ):
            if draw < rate:
                return name
            draw -= rate
        return None

    def _completion(self, body: dict, model: str, switches: Switches, key: str) -> tuple[dict, bool]:
        messages = [m for m in body["messages"] if isinstance(m, dict)]
        system = next((text_of(m.get("content")) for m in messages if m.get("role") == "system"), "")
        users = [text_of(m.get("content")) for m in messages if m.get("role") == "user"]
        item = users[0] if users else ""
        repairing = bool(users) and answers.REPAIR_MARKER in users[-1]
        protocol = answers.detect_protocol(system)
        # Malformed is a property of the content, so plain retries stay malformed; repair cures it.
        item_key = hashlib.sha256(f"{model}\x1f{system}\x1f{item}".encode()).hexdigest()
        malformed = (
            not repairing
            and protocol is not None
            and answers.unit(switches.seed, item_key, "malformed") < switches.rate_malformed
        )
        want_logprobs = bool(body.get("logprobs"))
        max_tokens = body.get("max_tokens") or body.get("max_completion_tokens")
        choices, completion_tokens = [], 0
        for index in range(max(1, int(body.get("n") or 1))):
            if malformed:
                result = answers.Answer(answers.MALFORMED_TEXT)
            else:
                result = answers.answer(protocol, item, index, logprobs=want_logprobs)
            content, finish = result.content, "stop"
            if max_tokens and len(content) > int(max_tokens) * 4:
                content, finish = content[: int(max_tokens) * 4], "length"
            completion_tokens += tokens_of(content)
            choice: dict = {
                "index": index,
                "message": {"role": "assistant", "content": content},
                "finish_reason": finish,
                "logprobs": None,
            }
            if want_logprobs:
                choice["logprobs"] = {"content": result.logprobs or []}
            choices.append(choice)
        prompt_tokens = sum(tokens_of(text_of(m.get("content"))) for m in messages)
        response = {
            "id": f"chatcmpl-dev-{uuid.uuid4().hex[:16]}",
            "object": "chat.completion",
            "created": int(time.time()),
            "model": model,
            "choices": choices,
            "usage": {
                "prompt_tokens": prompt_tokens,
                "completion_tokens": completion_tokens,
                "total_tokens": prompt_tokens + completion_tokens,
            },
        }
        return response, malformed


class DevHTTPServer(ThreadingHTTPServer):
    daemon_threads = True
    block_on_close = False
    allow_reuse_address = True
    request_queue_size = 256  # bursts from a concurrent judge run must not be refused

    def __init__(self, address: tuple[str, int], switches: Switches, verbose: bool = False):
        super().__init__(address, Handler)
        self.switches = switches
        self.verbose = verbose
        self.stats = Stats()
        self.stop_event = threading.Event()


class DevLLMServer:
    """Programmatic handle for tests: `with DevLLMServer(port=0, rate_429=1) as s: s.url`."""

    def __init__(self, host: str = "127.0.0.1", port: int = 0, verbose: bool = False, **switches):
        self.httpd = DevHTTPServer((host, port), Switches(**switches), verbose)
        self.host = host
        self.port = self.httpd.server_address[1]
        self._thread: threading.Thread | None = None

    @property
    def root(self) -> str:
        return f"http://{self.host}:{self.port}"

    @property
    def url(self) -> str:
        """Base URL for OpenAI clients (ends in /v1)."""
        return f"{self.root}/v1"

    @property
    def stats(self) -> Stats:
        return self.httpd.stats

    def start(self) -> DevLLMServer:
        self._thread = threading.Thread(
            target=self.httpd.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True
        )
        self._thread.start()
        return self

    def stop(self) -> None:
        self.httpd.stop_event.set()  # wakes sleeping latency/timeout faults
        if self._thread:
            self.httpd.shutdown()  # only returns once serve_forever is running, so guard it
            self._thread.join(timeout=5)
        self.httpd.server_close()

    def __enter__(self) -> DevLLMServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()
