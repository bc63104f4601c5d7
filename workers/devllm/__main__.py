"""`python -m workers.devllm --port 8765 [--latency-ms 300] [--rate-429 0.1] ...`"""

from __future__ import annotations

import argparse
import signal
import sys

from workers.devllm.server import DevLLMServer


def _interrupt(signum: int, frame: object) -> None:
    raise KeyboardInterrupt


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m workers.devllm", description=__doc__)
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=8765, help="0 picks a free port")
    parser.add_argument("--latency-ms", type=float, default=0.0)
    parser.add_argument("--rate-429", type=float, default=0.0)
    parser.add_argument("--rate-500", type=float, default=0.0)
    parser.add_argument("--rate-timeout", type=float, default=0.0)
    parser.add_argument("--rate-malformed", type=float, default=0.0)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--retry-after", type=float, default=0.2, help="seconds, on 429s")
    parser.add_argument("--timeout-s", type=float, default=30.0, help="hold time of a timeout")
    parser.add_argument("--verbose", action="store_true", help="log every request")
    args = parser.parse_args(argv)
    server = DevLLMServer(
        args.host,
        args.port,
        verbose=args.verbose,
        latency_ms=args.latency_ms,
        rate_429=args.rate_429,
        rate_500=args.rate_500,
        rate_timeout=args.rate_timeout,
        rate_malformed=args.rate_malformed,
        seed=args.seed,
        retry_after=args.retry_after,
        timeout_s=args.timeout_s,
    )
    # SIGTERM (docker, make) ends serve_forever the same way Ctrl-C does.
    signal.signal(signal.SIGTERM, _interrupt)
    print(f"devllm listening on {server.url}", flush=True)
    try:
        server.httpd.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        server.httpd.stop_event.set()
        server.httpd.server_close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
