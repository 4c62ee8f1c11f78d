"""Alembic revisions of folio's schema (run them with `folio db upgrade`)."""
