from alembic.autogenerate import compare_metadata
from alembic.migration import MigrationContext
from sqlalchemy import inspect

from base.database import database as configured_database
from base.migrate import current_revision, downgrade, head_revision, upgrade
from db.models import Base
from tests.schema import declared_checks

TABLES = {"documents", "document_sources", "pages", "page_issues", "blocks", "tables", "table_cells", "formulas",
          "runs"}


def test_upgrade_and_downgrade(empty_database):
    database = configured_database()
    upgrade(database)
    assert current_revision(database) == head_revision() == "0010"
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
