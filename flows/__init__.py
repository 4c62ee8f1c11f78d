"""Prefect flows and the `folio` command line."""
