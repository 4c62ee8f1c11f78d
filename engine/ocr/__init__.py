"""PP-OCR text detection and recognition on ONNX Runtime, batched across pages."""
