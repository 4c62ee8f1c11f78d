"""The parsing engine: pages in, typed blocks in reading order out. No Prefect, no database."""

ENGINE_VERSION = "0.4.11"
