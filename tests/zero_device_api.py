"""A stand-in for ZeroGPU's device API, served on 127.0.0.1 for the real ``spaces`` package
(``SPACES_ZERO_DEVICE_API_URL``): the routes and answers that ``spaces/zero/api.py`` and
``client.py`` (spaces 0.51) ask for and read.

- ``POST /startup-report``: 200 (the Space reports its ``@spaces.GPU`` functions at launch)
- ``POST /schedule?durationSeconds=&token=&...``: 200 with a GPU (``ScheduleResponse``) while the
  visitor's quota covers the duration asked, else 429 with ``QuotaInfos`` (``left``, ``wait``),
  which the client turns into its "ZeroGPU quota exceeded" ``gr.Error``; a duration above
  ``max_duration`` gets a negative ``wait`` ("ZeroGPU illegal duration"). ``X-Authenticated``
  says "regular" (a signed-in free account) when the call carries a visitor's token.
- ``POST /allow?allowToken=&pid=`` (the forked worker asks to use its GPU): ``allow_status``
- ``POST /release?allowToken=&fail=``: 200
- ``GET /queue-size``: 0

The quota is charged what each call asks for (ZeroGPU charges what it uses: this is the worst
case, and the same on every machine). Every call is kept in ``calls`` for the tests.
"""

from __future__ import annotations

import contextlib
import json
import threading
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Iterator
from urllib.parse import parse_qs, urlparse

DAY_S = 24 * 3600 - 60  # "Try again in 23:59:00"


@dataclass
class DeviceAPI:
    """The device API's state: what is left of the visitor's quota, and the calls so far."""

    quota_s: float = float("inf")
    max_duration: int = 10_000
    allow_status: int = 200  # what /allow answers (the client insists on 200)
    calls: list[tuple[str, dict[str, str]]] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def answer(self, route: str, params: dict[str, str]) -> tuple[int, dict[str, str], object]:
        """(status, headers, JSON body) for one call."""
        with self.lock:
            self.calls.append((route, params))
            if route == "/schedule":
                asked = int(params.get("durationSeconds", 60))
                headers = {"X-Authenticated": "regular"} if "token" in params else {}
                left = int(min(self.quota_s, DAY_S))  # seconds (no limit: a day's)
                if asked > self.max_duration:
                    return 429, headers, {"left": left, "wait": -1}
                if asked > self.quota_s:
                    return 429, headers, {"left": left, "wait": DAY_S}
                self.quota_s -= asked
                granted = sum(r == "/schedule" for r, _ in self.calls)
                return 200, headers, {"idle": True, "nvidiaIndex": 0, "nvidiaUUID": "GPU-stand-in",
                                      "allowToken": f"allow-{granted}"}
            if route == "/queue-size":
                return 200, {}, 0
            if route == "/allow":
                return self.allow_status, {}, None
            if route in ("/startup-report", "/release"):
                return 200, {}, None
            return 404, {}, {"detail": "Not Found"}

    def routes(self) -> list[str]:
        return [route for route, _ in self.calls]

    def asked(self) -> list[int]:
        """The duration each ``/schedule`` asked for, the refused ones too."""
        return [int(p["durationSeconds"]) for r, p in self.calls if r == "/schedule"]


def _handler(api: DeviceAPI) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        def _reply(self) -> None:
            url = urlparse(self.path)
            params = {k: v[-1] for k, v in parse_qs(url.query).items()}
            status, headers, body = api.answer(url.path, params)
            data = b"" if body is None else json.dumps(body).encode()
            self.send_response(status)
            for name, value in headers.items():
                self.send_header(name, value)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        do_GET = do_POST = _reply

        def log_message(self, *args) -> None:  # quiet: the calls are in api.calls
            pass

    return Handler


@contextlib.contextmanager
def serve(api: DeviceAPI) -> Iterator[str]:
    """Serve ``api`` on a free port of 127.0.0.1 while inside; yields its base URL."""
    server = ThreadingHTTPServer(("127.0.0.1", 0), _handler(api))
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()
