"""An error and the errors it was raised from, for the checks that look past the error raised last."""

from collections.abc import Iterator


def causes(error: BaseException) -> Iterator[BaseException]:
    """The error, then each error it was raised from (its cause, else its context), each once."""
    seen: set[int] = set()
    current: BaseException | None = error
    while current is not None and id(current) not in seen:
        seen.add(id(current))
        yield current
        current = current.__cause__ or current.__context__
