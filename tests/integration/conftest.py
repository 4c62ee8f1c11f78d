"""Integration fixtures: one Prefect test server for the session."""

from collections.abc import Iterator

import pytest


@pytest.fixture(scope="session", autouse=True)
def prefect_server() -> Iterator[None]:
    """Flows in these tests report to one Prefect server started for the whole session."""
    from prefect.testing.utilities import prefect_test_harness

    with prefect_test_harness(server_startup_timeout=180):
        yield
