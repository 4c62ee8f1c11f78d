"""The command line's help: every command has examples, every option and argument says what it is for."""

import argparse

import pytest

from folio.cli.parser import build_parser, whole_number


def commands() -> dict[str, argparse.ArgumentParser]:
    [subparsers] = [a for a in build_parser()._actions if isinstance(a, argparse._SubParsersAction)]
    return subparsers.choices


def test_every_command_has_examples_and_every_option_a_description():
    assert len(commands()) == 15
    for name, parser in commands().items():
        assert parser.epilog.startswith(f"examples:\n  folio {name}"), name
        assert parser.description, name
        for action in parser._actions:
            assert action.help, f"folio {name} {action.option_strings or action.dest}"


@pytest.mark.parametrize(("value", "message"), [("0", "must be from 1 to 512, not 0"),
                                                ("many", "not a whole number: 'many'")])
def test_numbers_are_checked_on_the_way_in(value: str, message: str):
    with pytest.raises(argparse.ArgumentTypeError, match=message):
        whole_number(1, 512)(value)
