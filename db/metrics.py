"""What the database knows for monitoring, read in one statement (one round trip) when Prometheus scrapes."""

from typing import NamedTuple

from sqlalchemy import Engine, text

# Each part yields (metric, label value, value); the label is '' where the metric has none. Every part reads an
# index or a small table (runs), or counts by status: cheap enough for a scrape every 15 s.
STATE_QUERY = text("""
SELECT 'documents' AS metric, status AS label, count(*)::float8 AS value FROM documents GROUP BY status
UNION ALL SELECT 'pages', status, count(*) FROM pages GROUP BY status
UNION ALL SELECT 'runs', status, count(*) FROM runs GROUP BY status
UNION ALL SELECT 'last_run_finished', status, extract(epoch FROM max(finished_at))::float8
    FROM runs WHERE finished_at IS NOT NULL GROUP BY status
UNION ALL SELECT 'claimed_documents', '', count(*) FROM documents WHERE claimed_by IS NOT NULL
UNION ALL SELECT 'expired_claims', '', count(*) FROM documents
    WHERE claimed_by IS NOT NULL AND claimed_until < now()
UNION ALL SELECT 'oldest_claim_age', '',
    coalesce(extract(epoch FROM now() - min(coalesce(r.started_at, d.updated_at))), 0)
    FROM documents d LEFT JOIN runs r ON r.flow_run_id = d.claimed_by WHERE d.claimed_by IS NOT NULL
UNION ALL SELECT 'pages_by_engine', engine_version, count(*) FROM pages
    WHERE engine_version IS NOT NULL GROUP BY engine_version
UNION ALL SELECT 'page_issues', action, count(*) FROM page_issues GROUP BY action
UNION ALL SELECT 'last_page_stored', '', coalesce(extract(epoch FROM max(created_at)), 0) FROM pages
""")


class Sample(NamedTuple):
    metric: str  # the part of STATE_QUERY it came from
    label: str
    value: float


def database_state(database: Engine) -> list[Sample]:
    """Counts by status, claims, runs' last finish and pages' engines, as STATE_QUERY reads them."""
    with database.connect() as connection:
        return [Sample(metric, label or "", float(value)) for metric, label, value in connection.execute(STATE_QUERY)]
