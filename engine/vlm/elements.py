"""PaddleOCR-VL as an element recogniser: folio's pipeline finds each page's regions and their reading order, and the
model reads each region's crop with the task prompt its type calls for (PaddleOCR-VL's own pipeline finds regions
with a layout model of its own; here folio's are used).

Text regions (title, text, list item, caption, footnote, header, footer, page number) are read with `OCR:`, tables
with `Table Recognition:` (OTSL, engine/vlm/otsl.py), formulas with `Formula Recognition:` (LaTeX); figures are not
sent. On a page whose text layer is trusted, text regions keep the layer's text unless `text` is "all"; tables and
formulas always go to the model. Every crop of a batch is in flight at once, up to the client's concurrency. The
answer replaces the region's text (its lines, read by the pipeline, then no longer match it and are dropped), cells
or LaTeX; an empty text answer leaves the pipeline's text. A page with an answer that cannot be read, cut off, or
refused is failed with the reason; a busy or silent server raises, and the task retries the batch.
"""

import time
from concurrent.futures import FIRST_EXCEPTION, ThreadPoolExecutor, wait

import numpy as np
import pymupdf

from engine import ENGINE_VERSION
from engine.config import ELEMENT_FORMAT, PIPELINE_DEFAULTS, VlmConfig
from engine.identity import Identity
from engine.orientation import turn_image
from engine.page_source import PageSource, batch_source
from engine.pipeline import Pipeline
from engine.pipeline_models import pipeline_identity
from engine.types import BBox, Block, Formula, PageInput, PageResult
from engine.vlm.answer import UnreadableAnswer, bare_latex, plain
from engine.vlm.client import ServerRefused, VlmClient, png_data_url, server_rows
from engine.vlm.otsl import otsl_table

TEXT_PROMPT, TABLE_PROMPT, FORMULA_PROMPT = "OCR:", "Table Recognition:", "Formula Recognition:"
PROMPTS = {"title": TEXT_PROMPT, "text": TEXT_PROMPT, "list_item": TEXT_PROMPT, "caption": TEXT_PROMPT,
           "footnote": TEXT_PROMPT, "header": TEXT_PROMPT, "footer": TEXT_PROMPT, "page_number": TEXT_PROMPT,
           "table": TABLE_PROMPT, "formula": FORMULA_PROMPT}
CROP_DPI = 200  # the resolution regions are rendered at (PaddleOCR-VL's processor resizes them within its bounds)
MARGIN = 3.0  # points of page around a region's box in its crop


def element_identity(config: VlmConfig) -> Identity:
    """What element mode's results depend on: the model, the pipeline that finds the regions (its settings and
    models), the crops' resolution and which text regions are read."""
    pipeline = pipeline_identity(config.pipeline or PIPELINE_DEFAULTS)
    settings = {**{f"pipeline {name}": value for name, value in pipeline.settings}, "crop_dpi": CROP_DPI,
                "text": config.text}
    return Identity(f"vlm:{config.model}:{ELEMENT_FORMAT}:{ENGINE_VERSION}", tuple(sorted(settings.items())),
                    pipeline.models)


class ElementEngine:
    """The pipeline's pages, each region read again by the model; called like the pipeline."""

    def __init__(self, config: VlmConfig, client: VlmClient, pipeline: Pipeline):
        self.config, self.client, self.pipeline = config, client, pipeline
        self.identity = element_identity(config)
        self.version = self.identity.version
        self.models, self.missing = pipeline.models, pipeline.missing

    def __call__(self, inputs: list[PageInput], source: PageSource | None = None) -> list[PageResult]:
        with batch_source(source) as pdfs:
            results = self.pipeline(inputs, pdfs)
            started = time.perf_counter()
            by_key = {page.key: page for page in inputs}
            asks = [(result, block, prompt) for result in results for block in result.blocks
                    if (prompt := self._prompt(result, block)) is not None]
            crops = [element_crop(pdfs.page(by_key[result.key]), block.bbox, result.turn)
                     for result, block, _ in asks]  # PyMuPDF in this thread only
        answers = self._answers([(prompt, crop) for (_, _, prompt), crop in zip(asks, crops)])
        for (result, block, prompt), answer in zip(asks, answers):
            if result.error is None:
                result.error = _apply(block, prompt, answer)
        share = (time.perf_counter() - started) / max(1, len(results))
        for result in results:
            result.engine_version = self.version
            result.stage_seconds["VlmElements"] = share
            if result.error is not None:
                result.blocks = []
        return results

    def describe(self) -> list[tuple[str, str]]:
        """What `folio engine info` shows: the server as for the other formats, and what is read."""
        return [("engine", f"vlm ({self.version})"), *server_rows(self.client, self.config),
                ("regions", f"folio's pipeline ({self.pipeline.version}); text regions of born-digital pages "
                            f"{'read by the model' if self.config.text == 'all' else 'from the text layer'}")]

    def _prompt(self, result: PageResult, block: Block) -> str | None:
        """The prompt a region is read with; None: it keeps what the pipeline found (a figure, or text of a trusted
        text layer)."""
        prompt = PROMPTS.get(block.type)
        if prompt == TEXT_PROMPT and result.text_layer and self.config.text != "all":
            return None
        return prompt

    def _answers(self, asks: list[tuple[str, np.ndarray]]) -> list[str | tuple[str, str | None]]:
        """Each crop's answer as (text, finish reason), or the reason the server refused it; a busy or silent server
        raises."""
        if not asks:
            return []
        with ThreadPoolExecutor(max_workers=min(self.config.concurrency, len(asks)),
                                thread_name_prefix="vlm-element") as pool:
            futures = [pool.submit(self._ask, prompt, crop) for prompt, crop in asks]
            done, _ = wait(futures, return_when=FIRST_EXCEPTION)
            for future in done:
                if future.exception() is not None:
                    for other in futures:
                        other.cancel()
                    raise future.exception()
        return [future.result() for future in futures]

    def _ask(self, prompt: str, crop: np.ndarray) -> str | tuple[str, str | None]:
        content = [{"type": "image_url", "image_url": {"url": png_data_url(crop)}}, {"type": "text", "text": prompt}]
        try:
            answer = self.client.complete(content)
        except ServerRefused as error:
            return f"vlm: {error}"
        return answer.text, answer.finish_reason


def element_crop(pdf_page: pymupdf.Page, box: BBox, turn: int) -> np.ndarray:
    """A region of the displayed page (`box`, with MARGIN around it) as an RGB image at CROP_DPI, turned clockwise
    by `turn` so that its text reads upright."""
    x0, y0, x1, y1 = box
    clip = pymupdf.Rect(x0 - MARGIN, y0 - MARGIN, x1 + MARGIN, y1 + MARGIN) & pdf_page.rect
    scale = CROP_DPI / 72
    pixmap = pdf_page.get_pixmap(matrix=pymupdf.Matrix(scale, scale), clip=clip, colorspace=pymupdf.csRGB,
                                 alpha=False)
    image = np.frombuffer(pixmap.samples, np.uint8).reshape(pixmap.height, pixmap.width, 3)
    return np.ascontiguousarray(turn_image(image, turn))


def _apply(block: Block, prompt: str, answer: str | tuple[str, str | None]) -> str | None:
    """The answer put into the region; the reason its page fails, where it cannot be."""
    if isinstance(answer, str):
        return answer
    text, finish = answer
    where = f"the {block.type} at ({', '.join(f'{v:.0f}' for v in block.bbox)})"
    if finish == "length":
        return f"vlm: the answer for {where} was cut off at the server's token limit"
    try:
        if prompt == TABLE_PROMPT:
            block.table = otsl_table(text)
            block.text, block.lines = " ".join(cell.text for cell in block.table.cells if cell.text), []
        elif prompt == FORMULA_PROMPT:
            latex = bare_latex(text)
            if not latex:
                raise UnreadableAnswer("an empty formula")
            block.formula = Formula(latex=latex, display=True)
        elif read := plain(text):
            block.text, block.lines, block.confidence = read, [], None
    except UnreadableAnswer as error:
        return f"vlm: unreadable {ELEMENT_FORMAT} answer for {where}: {error}"
    return None
