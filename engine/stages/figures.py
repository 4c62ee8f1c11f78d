"""Figures: raster images and the layout models' pictures, with the text drawn in them."""

from engine.geometry import area, center_inside, overlaps, union
from engine.stages.blocks import join_lines
from engine.types import BBox, Block, PageInput, PageState

MIN_AREA = 0.01  # share of the page: smaller images are logos, bullets or rules
MAX_AREA = 0.8  # share of the page: larger images are the page itself (a scan with a text layer)
MIN_PICTURE_SCORE = 0.5  # the CDLA model's figure regions on rendered pages scored lower are often not figures
MAX_SCAN_PICTURE = 0.5  # share of the page: a larger CDLA figure region is the page taken for a picture
MAX_LABEL_WORDS = 5  # on a rendered page a figure takes only short lines (labels); prose in its box stays body


class FigureStage:
    """Adds a figure block for each picture region of the layout model (PyMuPDF's on a page read from its text
    layer where something besides text is drawn in it, CDLA's on a rendered page) and each sizeable image on a
    page read from its text layer.

    The text inside a picture region (a diagram's labels, an annotated screenshot) is the figure's text,
    not body paragraphs: its lines leave the page's text flow, except a caption the layout model marks.
    On a raster image that is no picture region, text the layout model leaves out of all its regions (a
    chart's labels) is the figure's too, while text in one of its text regions (a shaded box behind a
    paragraph) stays in the body; without layout regions the text stays in the body. CDLA's regions on a
    rendered page are coarser: a figure takes only the short lines in it (labels), and a region over half
    the page is not taken for a figure.
    """

    def __call__(self, pages: list[PageState]) -> list[PageState]:
        for page in pages:
            page_area = page.input.width * page.input.height
            pictures = [region.bbox for region in page.regions if region.type == "figure" and (
                drawn_in(region.bbox, page.input) if page.use_text_layer else (
                    region.score >= MIN_PICTURE_SCORE and area(region.bbox) <= MAX_SCAN_PICTURE * page_area))]
            captions = [region.bbox for region in page.regions if region.type == "caption"]
            textual = [region.bbox for region in page.regions if region.type not in ("figure", "table")]
            images = [box for box in page.input.image_boxes if MIN_AREA <= area(box) / page_area <= MAX_AREA
                      and page.use_text_layer]  # a rendered page's image is the page
            tables = [block.bbox for block in page.blocks if block.type == "table"]
            for box, picture in figure_boxes(pictures, images):
                if any(center_inside(table, box) or center_inside(box, table) for table in tables):
                    continue  # a table the layout model saw as a picture
                x0, y0, x1, y1 = box
                box = (max(0.0, x0), max(0.0, y0), min(page.input.width, x1), min(page.input.height, y1))
                if picture:
                    kept_out: list[BBox] | None = captions
                else:  # a bare image: its text is the page's where the layout model sees text, or sees nothing
                    kept_out = textual if page.regions else None
                inside = [] if kept_out is None else [
                    line for line in page.lines
                    if center_inside(line.bbox, box) and not any(center_inside(line.bbox, k) for k in kept_out)
                    and (page.use_text_layer or len(line.text.split()) <= MAX_LABEL_WORDS)]
                page.lines = [line for line in page.lines if line not in inside]
                page.blocks.append(Block(type="figure", bbox=box, lines=inside, text=join_lines(inside)))
        return pages


def drawn_in(region: BBox, page: PageInput) -> bool:
    """Whether anything but text is drawn in a region of a page read from its text layer: an image over it or a
    vector drawing centred in it. A picture region of the layout model that holds text alone (a large coloured
    title, a header band) is text."""
    return (any(overlaps(box, region) for box in page.image_boxes)
            or any(center_inside(box, region) for box in page.drawing_boxes))


def figure_boxes(pictures: list[BBox], images: list[BBox]) -> list[tuple[BBox, bool]]:
    """The picture regions (overlapping ones merged), then the images that overlap none of them (overlapping
    ones merged); with whether the box is a picture region. An image's box can reach far past what shows
    (a clipped image), so an image in a picture does not widen it."""
    boxes = [(box, True) for box in merge_overlapping(pictures)]
    rest = [image for image in images if not any(overlaps(image, box) for box, _ in boxes)]
    return boxes + [(box, False) for box in merge_overlapping(rest)]


def merge_overlapping(boxes: list[BBox]) -> list[BBox]:
    """The boxes with every group of overlapping ones replaced by their union."""
    merged: list[BBox] = []
    for box in boxes:
        while (other := next((m for m in merged if overlaps(m, box)), None)) is not None:
            merged.remove(other)
            box = union([box, other])
        merged.append(box)
    return merged
