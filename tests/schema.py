"""What the models declare, read the way the database reports it."""

from sqlalchemy import CheckConstraint, Table


def declared_checks(table: Table) -> list[CheckConstraint]:
    """The check constraints a table declares, over several columns and on single columns."""
    over_columns = [constraint for constraint in table.constraints if isinstance(constraint, CheckConstraint)]
    on_a_column = [constraint for column in table.columns for constraint in column.constraints
                   if isinstance(constraint, CheckConstraint)]
    return over_columns + on_a_column
