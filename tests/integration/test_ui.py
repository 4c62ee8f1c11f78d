"""The Prefect UI as people use it: `folio serve`, the deployments seen in headless Chromium, `ingest` started
with a parameter, and a flow run that failed retried with the UI's own Retry button; and a document's report
with its formulas typeset."""

import os
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import httpx
import pytest
from selenium import webdriver
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By
from selenium.webdriver.remote.webdriver import WebDriver
from selenium.webdriver.support.ui import WebDriverWait
from sqlalchemy import Engine, text

from base.database import database as configured_database
from base.settings import Settings
from engine import ENGINE_VERSION
from folio.cli import main as cli
from tests import pdfs
from tests.integration.folio_process import FolioProcess, free_port
from tests.integration.stored import store_sample

CHROMIUM, CHROMEDRIVER = "/usr/bin/chromium", "/usr/bin/chromedriver"  # Debian's; `make test` installs them
ARTIFACTS = Path(os.environ.get("FOLIO_TEST_ARTIFACTS", Path(__file__).resolve().parents[2] / "test-artifacts"))
# Chromium as root, with nothing reaching for the network this machine does not have
CHROMIUM_FLAGS = ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                  "--disable-background-networking", "--disable-component-update", "--disable-sync",
                  "--window-size=1400,900")
TERMINAL = ("COMPLETED", "FAILED", "CRASHED", "CANCELLED")


@pytest.fixture
def served(tmp_path: Path, new_database_url: Callable[[], str]) -> Iterator[tuple[str, str]]:
    """(UI address, database URL) of `folio serve` on a free port: its own Prefect server and worker."""
    port = free_port()
    url = new_database_url()
    serve = FolioProcess(["serve", "--port", str(port)], url, tmp_path / "home")
    try:
        serve.wait_for("Worker", timeout=300)
        yield f"http://127.0.0.1:{port}", url
    finally:
        serve.stop()


@pytest.fixture
def browser() -> Iterator[WebDriver]:
    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for flag in CHROMIUM_FLAGS:
        options.add_argument(flag)
    driver = webdriver.Chrome(service=Service(CHROMEDRIVER), options=options)
    yield driver
    driver.quit()


def start(api: str, deployment: str, parameters: dict) -> str:
    """A flow run of the deployment, as the UI's Run button makes it; returns its id."""
    [found] = [d for d in httpx.post(f"{api}/deployments/filter", json={}).json() if d["name"] == deployment]
    response = httpx.post(f"{api}/deployments/{found['id']}/create_flow_run", json={"parameters": parameters})
    response.raise_for_status()
    return response.json()["id"]


def final_state(api: str, flow_run_id: str, after_run: int = 0, timeout: float = 300) -> dict:
    """The flow run's state once it ended (its run count past `after_run`)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        run = httpx.get(f"{api}/flow_runs/{flow_run_id}").json()
        if run["state"]["type"] in TERMINAL and run["run_count"] > after_run:
            return run
        time.sleep(1)
    raise AssertionError(f"flow run {flow_run_id} did not end: {run['state']}")


def click_button(browser: WebDriver, label: str, last: bool = False) -> None:
    """The first button with this label; last: the newest of two or more (a dialog's, once it is drawn)."""

    def buttons(b: WebDriver) -> list:
        return [e for e in b.find_elements(By.TAG_NAME, "button") if e.text == label]

    WebDriverWait(browser, 60).until(lambda b: len(buttons(b)) >= (2 if last else 1))
    buttons(browser)[-1 if last else 0].click()


def test_deployments_ingest_and_a_retry_from_the_ui(served: tuple[str, str], browser: WebDriver, tmp_path: Path):
    ui, database_url = served
    api = f"{ui}/api"
    browser.get(f"{ui}/deployments")
    WebDriverWait(browser, 60).until(lambda b: all(
        name in b.find_element(By.TAG_NAME, "body").text for name in ("nightly-digitization", "ingest", "reprocess")))
    assert "At 02:00 AM every day" in browser.find_element(By.TAG_NAME, "body").text
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    screenshot = ARTIFACTS / "prefect-deployments.png"
    assert browser.save_screenshot(str(screenshot)) and screenshot.stat().st_size > 10_000

    delivery = tmp_path / "delivery"
    delivery.mkdir()
    pdfs.two_column_pdf(delivery)
    ingest = final_state(api, start(api, "ingest", {"source": str(delivery)}))
    assert ingest["state"]["type"] == "COMPLETED", ingest["state"]

    later = tmp_path / "arrives-later"
    failed_id = start(api, "ingest", {"source": str(later)})
    failed = final_state(api, failed_id)
    assert failed["state"]["type"] == "FAILED" and "source not found" in failed["state"]["message"]
    later.mkdir()  # what was missing arrives
    pdfs.scan_pdf(later)
    browser.get(f"{ui}/runs/flow-run/{failed_id}")
    click_button(browser, "Retry")  # on the run's page
    click_button(browser, "Retry", last=True)  # in the dialog that asks to confirm
    retried = final_state(api, failed_id, after_run=failed["run_count"])
    assert retried["state"]["type"] == "COMPLETED", retried["state"]

    with configured_database(Settings(database_url=database_url)).connect() as connection:
        stored = connection.execute(text("SELECT regexp_replace(first_source, '^.*/', ''), status FROM documents "
                                         "ORDER BY id")).all()
    assert stored == [("report.pdf", "done"), ("scan.pdf", "done")]


def test_a_report_typesets_its_formulas_offline(database: Engine, browser: WebDriver, tmp_path: Path):
    sample = store_sample(database, tmp_path / "archive")
    report = tmp_path / "report"
    assert cli.main(["report", sample.sha256[:12], "--out", str(report)]) == 0
    browser.get((report / "index.html").as_uri())  # from the folder alone: MathJax is copied there
    WebDriverWait(browser, 60).until(
        lambda b: b.find_elements(By.CSS_SELECTOR, ".formula mjx-container svg"))
    header = browser.find_element(By.TAG_NAME, "header").text
    assert sample.sha256 in header and str(sample.pdf) in header and "quarantined" in header
    assert "2: 1 done, 1 quarantined" in header and ENGINE_VERSION in header
    assert [link.text for link in browser.find_elements(By.CSS_SELECTOR, "nav a")] == ["1", "2", "top"]
    assert len(browser.find_elements(By.TAG_NAME, "mjx-container")) == 1  # the formula, and no other text
    browser.execute_script("document.querySelector('.formula').scrollIntoView({block: 'center'})")
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    screenshot = ARTIFACTS / "report-formula.png"
    assert browser.save_screenshot(str(screenshot)) and screenshot.stat().st_size > 10_000
