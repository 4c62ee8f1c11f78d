"""A run's bookkeeping, without Prefect: opening and closing it, registering its files, reopening documents to
parse again, its heartbeat, and finding runs whose process died."""
