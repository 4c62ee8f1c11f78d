"""A client of an OpenAI-compatible server (vLLM, SGLang): `GET /models` and `POST /chat/completions`.

Errors a later try may not meet (HTTP 429 and 5xx, timeouts, connection failures) are raised as
ConnectionError or TimeoutError, which the tasks' retry policy retries; a request the server refuses
(another 4xx) or a response that is no chat completion is raised as ServerRefused. The API key goes
only into the Authorization header and is cut out of every message this module makes.
"""

import base64
import threading
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit, urlunsplit

import cv2
import httpx
import numpy as np

from engine.config import VlmConfig

MAX_DETAIL = 300  # characters of a server's error body kept in a message


class ServerBusy(ConnectionError):
    """The server answered 429 or 5xx: it may answer a later try."""


class ServerUnreachable(ConnectionError):
    """No connection to the server, or it closed one mid-answer."""


class ServerTimeout(TimeoutError):
    """The server did not answer within the timeout."""


class ServerRefused(RuntimeError):
    """The server refused the request (a 4xx but 429) or answered with something that is not a completion."""


@dataclass(frozen=True)
class Completion:
    text: str
    finish_reason: str | None  # "stop"; "length" when the answer was cut off at the token limit


class VlmClient:
    """Chat completions of one model, at most `concurrency` requests in flight from this process."""

    def __init__(self, url: str, model: str, api_key: str | None = None, timeout: float = 300.0,
                 concurrency: int = 16):
        self.url = url.rstrip("/")
        self.model = model
        self._key = api_key or None
        headers = {"Authorization": f"Bearer {api_key}"} if api_key else {}
        self._http = httpx.Client(base_url=self.url, headers=headers, timeout=timeout,
                                  limits=httpx.Limits(max_connections=concurrency,
                                                      max_keepalive_connections=concurrency))
        self._slots = threading.BoundedSemaphore(concurrency)

    @property
    def shown_url(self) -> str:
        """The server's URL without a password in it, for messages."""
        return shown_url(self.url)

    def served_models(self) -> list[str]:
        """The ids of the models the server serves (`GET /models`)."""
        body = self._request("GET", "/models")
        try:
            return [str(model["id"]) for model in body["data"]]
        except (KeyError, TypeError) as error:
            raise ServerRefused(f"{self.shown_url}/models answered without a model list ({error!r})") from None

    def complete(self, content: list[dict[str, Any]], max_tokens: int | None = None) -> Completion:
        """The model's answer to one user message made of `content` parts (text and image_url)."""
        body: dict[str, Any] = {"model": self.model, "messages": [{"role": "user", "content": content}],
                                "temperature": 0.0}
        if max_tokens:
            body["max_tokens"] = max_tokens
        with self._slots:
            answer = self._request("POST", "/chat/completions", body)
        try:
            choice = answer["choices"][0]
            text = choice["message"]["content"]
        except (KeyError, IndexError, TypeError) as error:
            raise ServerRefused(f"the server answered without a completion ({error!r})") from None
        return Completion(text=text or "", finish_reason=choice.get("finish_reason"))

    def close(self) -> None:
        self._http.close()

    def _request(self, method: str, path: str, body: dict[str, Any] | None = None) -> Any:
        try:
            response = self._http.request(method, path, json=body)
        except httpx.TimeoutException as error:
            raise ServerTimeout(f"{self.shown_url}{path}: no answer in time ({type(error).__name__})") from None
        except httpx.TransportError as error:
            raise ServerUnreachable(self._redact(f"{self.shown_url}{path}: {type(error).__name__}: {error}")) \
                from None
        if response.status_code == 429 or response.status_code >= 500:
            raise ServerBusy(self._status(path, response))
        if response.status_code >= 400:
            raise ServerRefused(self._status(path, response))
        try:
            return response.json()
        except ValueError:
            raise ServerRefused(f"{self.shown_url}{path} answered {response.status_code} without JSON: "
                                f"{self._detail(response)}") from None

    def _status(self, path: str, response: httpx.Response) -> str:
        return f"{self.shown_url}{path} answered {response.status_code} {response.reason_phrase}: " \
               f"{self._detail(response)}"

    def _detail(self, response: httpx.Response) -> str:
        return self._redact(" ".join(response.text.split())[:MAX_DETAIL])

    def _redact(self, text: str) -> str:
        return text.replace(self._key, "***") if self._key else text


def shown_url(url: str) -> str:
    """A URL with its password (if any) replaced by ***."""
    parts = urlsplit(url)
    if parts.password is None:
        return url
    netloc = parts.netloc.rsplit("@", 1)[1]
    return urlunsplit(parts._replace(netloc=f"{parts.username}:***@{netloc}"))


def server_rows(client: VlmClient, config: VlmConfig) -> list[tuple[str, str]]:
    """What `folio engine info` shows of the server: where, which model and format, whether a key is set and whether
    the server answers (the key's value never)."""
    try:
        served = client.served_models()
        answers = f"yes, serving {', '.join(served) or 'no model'}"
        if config.model not in served:
            answers += f" (not {config.model})"
    except (ConnectionError, TimeoutError, ServerRefused) as error:
        answers = f"no: {error}"
    return [("server", client.shown_url), ("model", config.model), ("answer format", config.format),
            ("API key", "set" if config.api_key else "not set"), ("server answers", answers),
            ("requests in flight", str(config.concurrency))]


def png_data_url(image: np.ndarray) -> str:
    """An RGB image as a `data:image/png;base64,…` URL, as an `image_url` part carries it."""
    ok, png = cv2.imencode(".png", cv2.cvtColor(image, cv2.COLOR_RGB2BGR))
    if not ok:
        raise ValueError("the image could not be encoded as PNG")
    return "data:image/png;base64," + base64.b64encode(png.tobytes()).decode("ascii")
