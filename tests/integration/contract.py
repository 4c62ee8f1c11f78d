"""What every exported document must be (shared/contract/export-format.md), checked the same way for each engine."""

BLOCK_TYPES = {"title", "text", "list_item", "table", "formula", "figure", "caption", "header", "footer", "footnote",
               "page_number"}


def assert_export_contract(export: dict) -> None:
    """The document's fields, its pages in order with their blocks typed, in reading order and inside the page."""
    document = export["document"]
    assert len(document["sha256"]) == 64 and document["status"] in ("done", "failed", "quarantined")
    assert (document["error"] is None) == (document["status"] == "done")
    assert isinstance(document["source"], str) and isinstance(document["page_count"], int)
    for page in export["pages"]:
        assert page["page_no"] >= 1 and page["fingerprint"]
        assert [block["order"] for block in page["blocks"]] == list(range(len(page["blocks"])))
        for block in page["blocks"]:
            assert block["type"] in BLOCK_TYPES
            x0, y0, x1, y1 = block["bbox"]
            assert 0 <= x0 <= x1 <= page["width"] and 0 <= y0 <= y1 <= page["height"]
            assert 0 <= block.get("confidence", 0) <= 1
            if block["type"] == "table":
                assert block["table"]["html"].startswith("<table>") and block["table"]["cells"]
            if block["type"] == "formula":
                assert block["latex"]
