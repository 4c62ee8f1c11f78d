"""The VLM engine: each page rendered once and sent to a vision-language model on an OpenAI-compatible
server, many pages in flight at once, the answers read and placed on the page; the same PageResults as
the pipeline.

A page whose answer cannot be read, or that the server refuses, comes back with `error` (stored as a
failed page with that reason); a busy, failing or silent server raises ConnectionError or TimeoutError,
which the tasks retry.
"""

import logging
import time
from collections.abc import Iterator
from concurrent.futures import FIRST_EXCEPTION, Future, ThreadPoolExecutor, wait
from dataclasses import dataclass

import numpy as np

from engine import ENGINE_VERSION
from engine.config import ELEMENT_FORMAT, PIPELINE_DEFAULTS, VlmConfig
from engine.identity import Identity, identify
from engine.ink import ink_share
from engine.layer_trust import Verdict, measure_layer, trusted_layer
from engine.ocr.detector import TextDetector, load_text_detector
from engine.ocr.models import find_ocr_models
from engine.orientation import turn_box, turn_image, turn_input
from engine.page_source import PageSource, batch_source
from engine.pipeline import build_pipeline
from engine.render import render_page
from engine.types import BBox, Block, PageInput, PageResult
from engine.vlm.align import layer_words, place_by_lines, place_by_words
from engine.vlm.answer import Draft, Reading, UnreadableAnswer
from engine.vlm.client import ServerRefused, VlmClient, png_data_url, server_rows
from engine.vlm.elements import ElementEngine, element_identity
from engine.vlm.prompts import FORMATS, anchor_text

log = logging.getLogger(__name__)


def vlm_identity(config: VlmConfig) -> Identity:
    """What this engine's results depend on: the model, the answer format, the page image and the prompt, and the
    text detector that places blocks on scans; its version (`vlm:<model>:<format>:<engine version>+<12 hex>`) is
    stored with each page it parses."""
    if config.format == ELEMENT_FORMAT:
        return element_identity(config)
    try:
        detector = [find_ocr_models(config.ocr_model_dir).det]
    except FileNotFoundError:
        detector = None
    anchors = FORMATS[config.format].anchors if config.format in FORMATS else False
    return identify(f"vlm:{config.model}:{config.format}:{ENGINE_VERSION}",
                    {"image_side": config.image_side, "anchor_text": config.anchor_text and anchors},
                    {"text detection": detector}, config.engine_cache)


@dataclass
class _Asked:
    """A page's answer: its blocks, and the clockwise turn of the image they were read on."""

    reading: Reading
    turn: int


class VlmEngine:
    """Parses pages with a VLM behind an OpenAI-compatible server; called like the pipeline."""

    def __init__(self, config: VlmConfig, client: VlmClient, detector: TextDetector | None = None,
                 models: dict[str, object] | None = None, missing: dict[str, str] | None = None):
        if config.format not in FORMATS:
            raise ValueError(f"unknown answer format {config.format!r}: {', '.join(FORMATS)}")
        self.config = config
        self.client = client
        self.format = FORMATS[config.format]
        self.detector = detector
        self.identity = vlm_identity(config)
        self.version = self.identity.version
        self.models = models or {}
        self.missing = missing or {}

    def __call__(self, inputs: list[PageInput], source: PageSource | None = None) -> list[PageResult]:
        started = time.perf_counter()
        jobs: list[tuple[PageInput, np.ndarray, float, Future]] = []
        pool = ThreadPoolExecutor(max_workers=max(1, min(self.config.concurrency, len(inputs))),
                                  thread_name_prefix="vlm")
        try:
            with batch_source(source) as pdfs:
                for page, image, scale in self._rendered(inputs, pdfs):  # requests start while later pages render
                    jobs.append((page, image, scale, pool.submit(self._ask, page, image)))
            rendered = time.perf_counter()
            done, _ = wait([job[3] for job in jobs], return_when=FIRST_EXCEPTION)
            for future in done:
                if future.exception() is not None:  # a busy or silent server: the task retries the batch
                    raise future.exception()
        finally:
            pool.shutdown(wait=True, cancel_futures=True)
        answered = time.perf_counter()
        results = [self._result(page, image, scale, future.result()) for page, image, scale, future in jobs]
        self._place_on_scans(results, jobs)
        finished = time.perf_counter()
        share = {"VlmRender": (rendered - started), "VlmAnswer": (answered - rendered),
                 "VlmPlace": (finished - answered)}
        for result in results:
            result.stage_seconds.update({stage: seconds / len(results) for stage, seconds in share.items()})
        return results

    def describe(self) -> list[tuple[str, str]]:
        """What `folio engine info` shows: the server, the model, the format, whether a key is set and whether
        the server answers (the key's value never)."""
        return [("engine", f"vlm ({self.version})"), *server_rows(self.client, self.config),
                ("image", f"{self.config.image_side} px on the longest side")]

    def _rendered(self, inputs: list[PageInput], source: PageSource) -> Iterator[tuple[PageInput, np.ndarray, float]]:
        """Each page rendered once (PyMuPDF in this thread only), its longest side `image_side` pixels."""
        for page in inputs:
            scale = self.config.image_side / max(page.width, page.height)
            yield page, render_page(source.page(page), scale), scale

    def _ask(self, page: PageInput, image: np.ndarray) -> _Asked | str:
        """The model's answer for the page, read (a reason when it cannot be). Sent turned the way its text layer
        reads; when the model says the image must be turned, it is turned and sent once more."""
        anchor = None
        if self.config.anchor_text and self.format.anchors and trusted_layer(page.text_lines):
            upright = turn_input(page, page.turn)
            anchor = anchor_text(upright.text_lines, upright.width, upright.height)
        first = self._ask_once(page, image, page.turn, anchor)
        if isinstance(first, str) or not first.turn:
            return first if isinstance(first, str) else _Asked(first, page.turn)
        turn = (page.turn + first.turn) % 360
        log.info("page %s: the model says the image must be turned %d degrees clockwise; asking again", page.key,
                 first.turn)
        second = self._ask_once(page, image, turn, None)  # the anchor's coordinates were the unturned page's
        return second if isinstance(second, str) else _Asked(second, turn)

    def _ask_once(self, page: PageInput, image: np.ndarray, turn: int, anchor: str | None) -> Reading | str:
        sent = turn_image(image, turn)
        try:
            answer = self.client.complete(self.format.content(png_data_url(sent), anchor))
        except ServerRefused as error:
            return f"vlm: {error}"
        if answer.finish_reason == "length":
            return "vlm: the answer was cut off at the server's token limit"
        try:
            return self.format.read(answer.text, (sent.shape[1], sent.shape[0]))
        except UnreadableAnswer as error:
            return f"vlm: unreadable {self.config.format} answer: {error}"

    def _result(self, page: PageInput, image: np.ndarray, scale: float, asked: _Asked | str) -> PageResult:
        trust = measure_layer(page.text_lines)
        text_layer = trust.verdict is Verdict.TRUSTED
        result = PageResult(key=page.key, width=page.width, height=page.height, text_layer=text_layer, blocks=[],
                            engine_version=self.version, stage_seconds={}, ink=round(ink_share(image), 5),
                            layer_trust=trust.record())
        if isinstance(asked, str):
            result.error = asked
            return result
        if text_layer:  # a scan's blocks are placed once all its batch's pages are detected (_place_on_scans)
            upright = turn_input(page, asked.turn)
            words = layer_words(upright.text_lines + upright.side_lines)
            drafts = [_in_points(draft, scale) for draft in asked.reading.drafts]
            blocks = place_by_words(drafts, words, upright.image_boxes, upright.width, upright.height)
            result.blocks = _displayed(blocks, asked.turn, upright.width, upright.height)
        return result

    def _place_on_scans(self, results: list[PageResult], jobs: list) -> None:
        """Blocks of pages without a text layer laid over the text detector's lines, all pages detected at once."""
        todo = [(result, page, image, scale, future.result()) for result, (page, image, scale, future)
                in zip(results, jobs) if result.error is None and not result.text_layer]
        wanted = self.detector is not None and any(
            draft.box is None for *_, asked in todo for draft in asked.reading.drafts)
        detected = self.detector([turn_image(image, asked.turn) for _, _, image, _, asked in todo]) if wanted \
            else [[] for _ in todo]
        for (result, page, _, scale, asked), found in zip(todo, detected):
            upright = turn_input(page, asked.turn)
            lines = [tuple(float(v) / scale for v in detection.box) for detection in found]
            drafts = [_in_points(draft, scale) for draft in asked.reading.drafts]
            blocks = place_by_lines(drafts, lines, upright.width, upright.height)
            result.blocks = _displayed(blocks, asked.turn, upright.width, upright.height)


def _in_points(draft: Draft, scale: float) -> Draft:
    if draft.box is None:
        return draft
    return Draft(type=draft.type, text=draft.text, box=tuple(v / scale for v in draft.box), table=draft.table,
                 latex=draft.latex)


def _displayed(blocks: list[Block], turn: int, width: float, height: float) -> list[Block]:
    """Blocks of the turned page (`width` x `height`) in the displayed page's coordinates, in reading order."""
    back = (360 - turn) % 360
    for order, block in enumerate(blocks):
        block.bbox = _box(turn_box(block.bbox, back, width, height))
        block.order = order
    return blocks


def _box(box: BBox) -> BBox:
    return tuple(round(float(v), 2) for v in box)


def build_vlm_engine(config: VlmConfig, check_model: bool = True) -> VlmEngine | ElementEngine:
    """The engine with its client and the text detector that places blocks on scans (when its model is found).

    With `check_model`, a server that answers but does not serve the model is an error (a server that does
    not answer yet is not: its pages are retried).
    """
    client = VlmClient(config.url, config.model, config.api_key, config.timeout, config.concurrency)
    if check_model:
        _check_served(client)
    if config.format == ELEMENT_FORMAT:
        return ElementEngine(config, client, build_pipeline(config.pipeline or PIPELINE_DEFAULTS))
    try:
        detector = load_text_detector(find_ocr_models(config.ocr_model_dir).det, config.device,
                                      config.engine_cache, config.threads)
    except FileNotFoundError as error:
        return VlmEngine(config, client, None, {"text detection": None},
                         {"text detection": f"{error}: blocks on scans get the page's box"})
    return VlmEngine(config, client, detector, {"text detection": detector.model})


def _check_served(client: VlmClient) -> None:
    try:
        served = client.served_models()
    except (ConnectionError, TimeoutError) as error:
        log.warning("the VLM server does not answer yet: %s", error)
        return
    if client.model not in served:
        raise ValueError(f"{client.shown_url} serves {', '.join(served) or 'no model'}, not {client.model} "
                         "(FOLIO_VLM_MODEL)")
