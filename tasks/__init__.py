"""One Prefect task per step, each a thin wrapper over a plain function that tests call directly."""
