"""What every layer above reads: the settings, the configured database (its schema brought up by Alembic) and
engine, and the records a run's outcome is told in."""
