from alembic.autogenerate import compare_metadata
from alembic.migration import MigrationContext
from sqlalchemy import inspect, text

from base.database import database as configured_database
from base.migrate import current_revision, downgrade, head_revision, upgrade
from db.models import Base
from tests.schema import declared_checks

TABLES = {"documents", "document_sources", "pages", "page_issues", "blocks", "tables", "table_cells", "formulas",
          "runs"}


def test_upgrade_and_downgrade(empty_database):
    database = configured_database()
    upgrade(database)
    assert current_revision(database) == head_revision() == "0011"
    assert TABLES <= set(inspect(database).get_table_names())
    downgrade(database, "base")
    assert current_revision(database) is None
    assert not TABLES & set(inspect(database).get_table_names())
    upgrade(database)
    assert TABLES <= set(inspect(database).get_table_names())


def test_migrations_match_the_models(database):
    with database.connect() as connection:
        differences = compare_metadata(MigrationContext.configure(connection), Base.metadata)
    assert differences == []


def test_migrations_make_the_models_checks(database):
    """Alembic's comparison leaves check constraints out: the migrated tables hold, by name, the checks the models
    declare on their tables and on their columns."""
    inspector = inspect(database)
    for table in Base.metadata.sorted_tables:
        declared = {constraint.name for constraint in declared_checks(table)}
        assert {check["name"] for check in inspector.get_check_constraints(table.name)} == declared, table.name


def test_blocks_stored_before_lines_were_kept_get_none(empty_database):
    """0011 adds `blocks.lines`: a block stored before has an empty list (its lines were not kept), and the
    downgrade takes the column away again."""
    database = configured_database()
    upgrade(database, "0010")
    with database.begin() as connection:
        document = connection.execute(text(
            "INSERT INTO documents (sha256, status, size_bytes, first_source, metadata) "
            "VALUES (repeat('a', 64), 'done', 1, '/old.pdf', '{}') RETURNING id")).scalar_one()
        page = connection.execute(text(
            "INSERT INTO pages (document_id, page_no, status) VALUES (:d, 1, 'done') RETURNING id"),
            {"d": document}).scalar_one()
        connection.execute(text("INSERT INTO blocks (page_id, reading_order, type, x0, y0, x1, y1, text) "
                                "VALUES (:p, 0, 'text', 0, 0, 10, 10, 'old')"), {"p": page})
    upgrade(database)
    with database.connect() as connection:
        assert connection.execute(text("SELECT lines FROM blocks")).scalar_one() == []
    downgrade(database, "0010")
    assert "lines" not in {column["name"] for column in inspect(database).get_columns("blocks")}
