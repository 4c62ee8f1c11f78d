"""An OpenAI-compatible server for the tests, on loopback: `GET /v1/models` and `POST /v1/chat/completions`.

It answers each page by the size of the image it is sent (the tests give their pages distinct sizes),
with replies scripted per size: a recorded answer, an error status, a slow answer. It counts the
requests in flight at once and can hold each request until `gather` of them are in flight (or a
second has passed), so that a test sees the most a client sends at once without timing anything.
"""

import base64
import json
import select
import socket
import struct
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import numpy as np
import pymupdf

from engine.orientation import turn_image
from engine.render import render_page

GATHER_WAIT = 1.0  # seconds a held request waits for the others at most


@dataclass(frozen=True)
class Reply:
    """One scripted reply: a completion with `text`, or an error `status` (its body may repeat the request's
    Authorization header, as a careless proxy might), after `delay` seconds."""

    text: str = ""
    status: int = 200
    delay: float = 0.0
    finish_reason: str = "stop"
    echo_authorization: bool = False


@dataclass
class Request:
    image_size: tuple[int, int] | None
    prompt: str
    authorization: str | None


@dataclass
class VlmServer:
    model: str = "test-org/test-vlm"
    api_key: str | None = None
    gather: int = 0
    scripts: dict[tuple[int, int], list[Reply]] = field(default_factory=dict)
    requests: list[Request] = field(default_factory=list)
    most_in_flight: int = 0
    url: str = ""
    chooser: Callable[[Request], Reply] | None = None

    def __post_init__(self) -> None:
        self._lock = threading.Condition()
        self._in_flight = 0

    def script(self, image_size: tuple[int, int], *replies: Reply) -> None:
        """The replies to images of this size, in turn; the last one is repeated."""
        self.scripts[image_size] = list(replies)

    def answer_by(self, choose: Callable[[Request], Reply]) -> None:
        """Replies chosen from the request (its prompt, its image's size) for images no script is recorded for."""
        self.chooser = choose

    def requests_for(self, image_size: tuple[int, int]) -> list[Request]:
        return [request for request in self.requests if request.image_size == image_size]

    def reply_for(self, request: Request) -> Reply:
        with self._lock:
            self.requests.append(request)
            replies = self.scripts.get(request.image_size)
            if not replies and self.chooser is not None:
                return self.chooser(request)
            if not replies:
                return Reply(status=400, text=f"no answer recorded for an image of {request.image_size}")
            return replies.pop(0) if len(replies) > 1 else replies[0]

    def enter(self) -> None:
        """Counts a request in; holds it until `gather` are in flight (at most GATHER_WAIT seconds)."""
        with self._lock:
            self._in_flight += 1
            self.most_in_flight = max(self.most_in_flight, self._in_flight)
            self._lock.notify_all()
            self._lock.wait_for(lambda: self._in_flight >= self.gather, timeout=GATHER_WAIT)

    def leave(self) -> None:
        with self._lock:
            self._in_flight -= 1


def _png_size(data_url: str) -> tuple[int, int] | None:
    """(width, height) from a PNG's IHDR, without decoding the picture."""
    if not data_url.startswith("data:image/png;base64,"):
        return None
    png = base64.b64decode(data_url.split(",", 1)[1][:64])
    return struct.unpack(">II", png[16:24]) if png[:8] == b"\x89PNG\r\n\x1a\n" else None


def _read_request(body: dict, authorization: str | None) -> Request:
    parts = body["messages"][-1]["content"]
    image = next((part["image_url"]["url"] for part in parts if part.get("type") == "image_url"), "")
    prompt = " ".join(part["text"] for part in parts if part.get("type") == "text")
    return Request(_png_size(image), prompt, authorization)


def _handler(server: VlmServer) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, *args) -> None:  # quiet
            pass

        def _send(self, status: int, payload: dict | str) -> None:
            body = (json.dumps(payload) if isinstance(payload, dict) else payload).encode()
            try:
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)
            except (BrokenPipeError, ConnectionResetError):  # the client gave up (a timeout test)
                pass

        def _client_waits(self, seconds: float) -> bool:
            """Waits `seconds` unless the client hangs up first; whether it still waits for the reply."""
            readable, _, _ = select.select([self.connection], [], [], seconds)
            return not readable or self.connection.recv(1, socket.MSG_PEEK) != b""

        def _authorized(self) -> bool:
            if server.api_key and self.headers.get("Authorization") != f"Bearer {server.api_key}":
                self._send(401, {"error": {"message": "invalid API key"}})
                return False
            return True

        def do_GET(self) -> None:
            if self.path.rstrip("/") != "/v1/models":
                self._send(404, {"error": {"message": f"no {self.path}"}})
            elif self._authorized():
                self._send(200, {"object": "list", "data": [{"id": server.model, "object": "model"}]})

        def do_POST(self) -> None:
            body = json.loads(self.rfile.read(int(self.headers.get("Content-Length", 0))))
            if self.path.rstrip("/") != "/v1/chat/completions":
                self._send(404, {"error": {"message": f"no {self.path}"}})
                return
            if not self._authorized():
                return
            if body.get("model") != server.model:
                self._send(404, {"error": {"message": f"The model `{body.get('model')}` does not exist."}})
                return
            server.enter()
            try:
                reply = server.reply_for(_read_request(body, self.headers.get("Authorization")))
                if not self._client_waits(reply.delay):  # a client that timed out has no request in flight
                    return
                if reply.status != 200:
                    echoed = f" (request had {self.headers.get('Authorization')})" if reply.echo_authorization else ""
                    self._send(reply.status, {"error": {"message": reply.text + echoed}})
                    return
                self._send(200, {"id": "chatcmpl-test", "object": "chat.completion", "model": server.model,
                                 "choices": [{"index": 0, "finish_reason": reply.finish_reason,
                                              "message": {"role": "assistant", "content": reply.text}}],
                                 "usage": {"prompt_tokens": 1000, "completion_tokens": 100, "total_tokens": 1100}})
            finally:
                server.leave()

    return Handler


@contextmanager
def vlm_server(**settings) -> Iterator[VlmServer]:
    """A VlmServer listening on 127.0.0.1 (a free port) while the block runs."""
    server = VlmServer(**settings)
    http = ThreadingHTTPServer(("127.0.0.1", 0), _handler(server))
    http.daemon_threads = True
    server.url = f"http://127.0.0.1:{http.server_address[1]}/v1"
    thread = threading.Thread(target=http.serve_forever, daemon=True)
    thread.start()
    try:
        yield server
    finally:
        http.shutdown()
        http.server_close()


def image_size(pdf: str, page_index: int = 0, side: int = 1288, turn: int = 0) -> tuple[int, int]:
    """(width, height) of the image the VLM engine sends for a page: rendered as it renders it, then turned."""
    with pymupdf.open(pdf) as document:
        page = document[page_index]
        image: np.ndarray = render_page(page, side / max(page.rect.width, page.rect.height))
    turned = turn_image(image, turn)
    return turned.shape[1], turned.shape[0]
