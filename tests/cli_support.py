"""Running zerodrill's command line in-process, as its console script does."""

from __future__ import annotations

import pytest

from zerodrill.cli import main


def run_cli(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    """``zerodrill ARGS``: its exit status, standard output and standard error.

    Whatever the arguments, a user never sees a traceback.
    """
    try:
        main(list(args))
        code = 0
    except SystemExit as exc:
        code = int(exc.code or 0)
    out, err = capsys.readouterr()
    assert "Traceback" not in out + err
    return code, out, err


#: A deck of one's own, as a newcomer writes it: one card, naming the schema beside it.
ONE_CARD_DECK = """\
# yaml-language-server: $schema=deck.schema.json
deck: mine
title: Mine
description: A deck of one's own.
cards:
  - id: first
    kind: basic
    front: What is one?
    back: One.
"""
