"""The exit code and line of an interrupted command (folio/cli/errors.py)."""

import httpx

from folio.cli.errors import ExitCode, explain


def raised_while_handling(error: BaseException, handled: BaseException) -> BaseException:
    try:
        try:
            raise handled
        except BaseException:
            raise error  # noqa: B904 - the context is what is tested
    except BaseException as raised:
        return raised


def test_ctrl_c_and_what_broke_while_it_was_handled_are_the_interruption():
    """A terminal's Ctrl-C reaches Prefect's temporary server too: reporting the crashed flow run to it then fails
    with a connection error, raised while the KeyboardInterrupt was handled."""
    assert explain(KeyboardInterrupt()) == (ExitCode.INTERRUPTED, "interrupted")
    refused = raised_while_handling(httpx.ConnectError("[Errno 111] Connection refused"), KeyboardInterrupt())
    assert explain(refused) == (ExitCode.INTERRUPTED, "interrupted")
    assert explain(httpx.ConnectError("[Errno 111] Connection refused"))[0] != ExitCode.INTERRUPTED
