"""Pipeline stages: each takes a batch of pages and returns them enriched."""
