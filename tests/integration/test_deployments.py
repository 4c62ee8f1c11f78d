"""The deployments register without prompts: nightly schedule, one run at a time, a form for ingest and reprocess."""

from prefect import get_client

from base.settings import Settings
from deployments.definitions import register_deployments


def test_deployments_register_with_their_schedule_and_forms():
    settings = Settings(nightly_source="s3://archive/inbox", nightly_cron="30 1 * * *", timezone="Europe/Berlin",
                        work_pool="folio-test-pool")
    ids = register_deployments(settings)
    assert set(ids) == {"nightly-digitization", "ingest", "reprocess"}
    assert register_deployments(settings) == ids  # registering again updates them in place

    with get_client(sync_client=True) as client:
        pool = client.read_work_pool("folio-test-pool")
        nightly = client.read_deployment_by_name("digitize/nightly-digitization")
        ingest = client.read_deployment_by_name("digitize/ingest")
        reprocess = client.read_deployment_by_name("reprocess/reprocess")
    assert pool.type == "process"
    [schedule] = nightly.schedules
    assert (schedule.schedule.cron, schedule.schedule.timezone, schedule.active) == (
        "30 1 * * *", "Europe/Berlin", True)
    assert nightly.parameters == {"source": "s3://archive/inbox"} and not nightly.paused
    assert nightly.global_concurrency_limit.limit == 1
    assert not ingest.schedules and ingest.work_pool_name == "folio-test-pool"
    form = ingest.parameter_openapi_schema["properties"]
    assert set(form) == {"source", "batch_size", "force"}
    assert "s3://bucket/prefix" in form["source"]["description"] and form["force"]["default"] is False
    form = reprocess.parameter_openapi_schema
    assert set(form["properties"]) == {"selection", "batch_size"}
    assert set(form["definitions"]["Selection"]["properties"]) == {"statuses", "ids", "since", "until",
                                                                  "engine_version", "force"}


def test_nightly_is_paused_until_its_source_exists(tmp_path):
    for settings, paused in ((Settings(work_pool="folio-test-pool"), True),
                             (Settings(work_pool="folio-test-pool", nightly_source=str(tmp_path / "inbox")), True),
                             (Settings(work_pool="folio-test-pool", nightly_source=str(tmp_path)), False)):
        register_deployments(settings)
        with get_client(sync_client=True) as client:
            assert client.read_deployment_by_name("digitize/nightly-digitization").paused is paused, settings
