"""Submit+next over real HTTP: gunicorn in its own processes, annotators as client threads.

The in-process harness (bench/concurrency.py) runs server and clients under one interpreter
lock; here the server is what production runs (gunicorn, threaded workers) and the clients
are a separate process that mostly waits on sockets, so the times are the server's answer
times plus loopback, with requests queueing only where the server itself is busy.
"""

from __future__ import annotations

import http.client
import json
import os
import socket
import subprocess
import sys
import threading
import time
import uuid
from contextlib import contextmanager
from pathlib import Path
from random import Random

from .common import run_annotators

ROOT = Path(__file__).resolve().parent.parent


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@contextmanager
def gunicorn(workers: int = 3, threads: int = 4):
    """A gunicorn serving config.wsgi on a free loopback port, stopped on exit."""
    port = _free_port()
    env = {**os.environ, "DEBUG": "false", "ALLOWED_HOSTS": "127.0.0.1"}
    cmd = [
        str(Path(sys.executable).parent / "gunicorn"), "config.wsgi", "--bind", f"127.0.0.1:{port}",
        "--workers", str(workers), "--threads", str(threads), "--worker-class", "gthread",
        "--keep-alive", "15", "--log-level", "warning",
    ]  # fmt: skip
    server = subprocess.Popen(cmd, cwd=ROOT, env=env)
    try:
        deadline = time.monotonic() + 30
        while True:
            try:
                conn = http.client.HTTPConnection("127.0.0.1", port, timeout=2)
                conn.request("GET", "/healthz")
                if conn.getresponse().status == 200:
                    break
            except OSError:
                pass
            if time.monotonic() > deadline or server.poll() is not None:
                raise RuntimeError("gunicorn did not start")
            time.sleep(0.2)
        yield port
    finally:
        server.terminate()
        server.wait(timeout=30)


class Annotator:
    def __init__(self, port: int, token: str, slug: str):
        self.conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
        self.headers = {"Authorization": f"Token {token}", "Content-Type": "application/json"}
        self.slug = slug

    def post(self, path: str, body: dict | None = None) -> tuple[int, bytes]:
        payload = json.dumps(body or {})
        try:
            self.conn.request("POST", path, payload, self.headers)
            response = self.conn.getresponse()
        except (BrokenPipeError, ConnectionResetError, http.client.RemoteDisconnected):
            # The server closed an idle keep-alive connection: reconnect, as a browser does.
            # Safe to repeat: submits are idempotent by client id, and next returns the held lease.
            self.conn.close()
            self.conn.request("POST", path, payload, self.headers)
            response = self.conn.getresponse()
        return response.status, response.read()

    def next_item(self) -> int | None:
        status, body = self.post(f"/api/projects/{self.slug}/queue/next/")
        if status == 204:
            return None
        if status != 200:
            raise RuntimeError(f"queue/next answered {status}: {body[:200]!r}")
        return json.loads(body)["id"]


def submit_next_http(*, port: int, slug: str, tokens: list[str], seconds: float, think: float) -> dict:
    barrier = threading.Barrier(len(tokens))

    def work(i: int) -> list[float]:
        rng = Random(i)
        times: list[float] = []
        annotator = Annotator(port, tokens[i], slug)
        item = annotator.next_item()
        barrier.wait()
        deadline = time.perf_counter() + seconds
        if think:
            time.sleep(rng.uniform(0, think))  # paced annotators do not start in step
        while item is not None and time.perf_counter() < deadline:
            started = time.perf_counter()
            status, body = annotator.post(
                f"/api/projects/{slug}/annotations/",
                {"item": item, "client_id": str(uuid.uuid4()), "label_seen": {"preferred": rng.choice("AB")}},
            )
            if status != 201:
                raise RuntimeError(f"submit answered {status}: {body[:200]!r}")
            item = annotator.next_item()
            times.append(time.perf_counter() - started)
            if think:
                pause = rng.expovariate(1 / think)
                time.sleep(max(0.0, min(pause, deadline - time.perf_counter())))
        return times

    result = run_annotators(work, len(tokens), think=think, what="HTTP submit+next")
    return {**result, "server": "gunicorn, 3 workers x 4 threads (gthread)"}
