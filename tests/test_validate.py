"""`zerodrill validate`: each bad input is reported at its exact place, never as a traceback."""

from __future__ import annotations

import contextlib
import errno
import json
import os
import re
import textwrap
import threading
import tracemalloc
from pathlib import Path

import pytest
from cli_support import run_cli

from zerodrill.cli import main
from zerodrill.deck import files
from zerodrill.deck.load import load_paths

HEADER = """\
deck: d
title: T
description: D
cards:
"""


run = run_cli


def write(tmp_path: Path, text: str, name: str = "deck.yaml") -> Path:
    path = tmp_path / name
    path.write_text(textwrap.dedent(text), encoding="utf-8")
    return path


def problems(capsys: pytest.CaptureFixture[str], path: Path) -> list[str]:
    code, out, err = run(capsys, "validate", str(path))
    assert code == 1
    assert "problem" in err
    return out.splitlines()


GOOD_CARD = """\
  - id: a
    kind: basic
    front: Q
    back: A
"""


def test_valid_deck_passes(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = write(tmp_path, HEADER + GOOD_CARD)
    code, out, _ = run(capsys, "validate", str(path))
    assert code == 0
    assert out.strip() == "1 deck, 1 card: ok"


@pytest.mark.parametrize(
    ("body", "expected"),
    [
        pytest.param(
            HEADER + "  - id: a\n    kind: basic\n    front: [unclosed\n    back: A\n",
            ":8:9: YAML syntax error: did not find expected ',' or ']' "
            "(while parsing a flow sequence started at line 7)",
            id="syntax",
        ),
        pytest.param(
            HEADER + "  - id: a\n    kind: basic\n\tfront: Q\n    back: A\n",
            ":7:1: tab character in indentation",
            id="tab",
        ),
        pytest.param(
            HEADER + GOOD_CARD + "  - id: b\n    kind: basic\n    front: Q\n    front: Q2\n"
            "    back: A\n",
            ":12:5: field 'front' is given twice (first at line 11)",
            id="duplicate-key",
        ),
        pytest.param(
            HEADER + "  - id: a\n    kind: follow_up\n    question: Q\n    anwser: A\n",
            ":8:5: unknown field 'anwser' in a follow_up card (did you mean 'answer'?)",
            id="unknown-field",
        ),
        pytest.param(
            HEADER + "  - id: a\n    kind: basic\n    front: Q\n",
            ":5:5: a basic card is missing required field 'back'",
            id="missing-field",
        ),
        pytest.param(
            HEADER + "  - id: a\n    kind: basic\n    front: Q\n    back: [A, B]\n",
            ":8:11: field 'back' must be text, not a list",
            id="wrong-type",
        ),
        pytest.param(
            HEADER + "  - id: a\n    kind: basic\n    front: Q\n    back: yes\n",
            ":8:11: field 'back' must be text, not a boolean (quote it)",
            id="yaml-boolean",
        ),
        pytest.param(
            HEADER + "  - id: a\n    kind: flashcard\n    front: Q\n    back: A\n",
            ":6:11: unknown kind 'flashcard' (expected one of basic, cloze, follow_up, red_flag)",
            id="unknown-kind",
        ),
        pytest.param(
            HEADER + GOOD_CARD + GOOD_CARD,
            ":9:9: card id 'a' is used twice (first at line 5)",
            id="duplicate-card-id",
        ),
        pytest.param(
            HEADER + "  - id: a\n    kind: cloze\n    text: No deletion here.\n",
            ":7:11: cloze card has no deletion",
            id="cloze-no-deletion",
        ),
        pytest.param(
            HEADER + "  - id: a\n    kind: cloze\n    text: The key is {{c1::stage.\n",
            ":7:22: cloze deletion is never closed",
            id="cloze-unclosed",
        ),
        pytest.param(
            HEADER + "  - id: a\n    kind: cloze\n    text: The key is stage}}.\n",
            ":7:27: '}}' has no matching '{{c1::' before it",
            id="cloze-stray-close",
        ),
        pytest.param(
            HEADER + "  - id: a\n    kind: cloze\n    text: |\n      Config:\n"
            '      {{c1::`{"zero_optimization": {"stage": 2}}`}}\n',
            ":9:47: '}}' inside code ends the cloze deletion early in Anki",
            id="cloze-braces-in-code",
        ),
        pytest.param(
            HEADER + "  - id: a\n    kind: basic\n    front: '   '\n    back: A\n",
            ":7:12: field 'front' is empty",
            id="empty-text",
        ),
        pytest.param(
            HEADER + "  - id: a\n    kind: basic\n    front: Q\n    back:\n",
            ":8:10: field 'back' must be text, not empty",
            id="null-text",
        ),
        pytest.param(
            "- just\n- a list\n",
            ":1:1: top level must be a mapping with deck, title, description and cards",
            id="top-level-list",
        ),
        pytest.param(
            "deck: d\ntitle: T\ndescription: D\ncards: []\n",
            ":4:8: 'cards' is empty",
            id="no-cards",
        ),
        pytest.param(
            "deck: D D\ntitle: T\ndescription: D\ncards:\n" + GOOD_CARD,
            ":1:7: deck id must be lowercase letters, digits and hyphens",
            id="bad-deck-id",
        ),
        pytest.param(
            HEADER + "  - id: a\n    kind: basic\n    front: Q\n    back: A\n    tags: config\n",
            ":9:11: field 'tags' must be a list, not text",
            id="tags-not-list",
        ),
        pytest.param(
            "retired: [gone]\n" + HEADER + GOOD_CARD,
            ":1:11: retired card 'gone' is not in the deck",
            id="retired-unknown",
        ),
    ],
)
def test_each_mistake_is_reported_at_its_place(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], body: str, expected: str
) -> None:
    path = write(tmp_path, body)
    lines = problems(capsys, path)
    assert any(line.startswith(str(path) + expected) for line in lines), lines


def test_empty_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = write(tmp_path, "# only a comment\n")
    assert problems(capsys, path) == [
        f"{path}:1:1: file is empty: a deck needs deck, title, description and cards"
    ]


def test_not_utf8(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "deck.yaml"
    path.write_bytes(b"deck: d\ntitle: caf\xe9\n")
    assert problems(capsys, path) == [f"{path}:2:11: file is not UTF-8 text"]


def test_oversized_file_is_refused_unread(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(files, "MAX_FILE_BYTES", 100)
    path = write(tmp_path, HEADER + GOOD_CARD * 3)
    assert problems(capsys, path) == [f"{path}:1:1: file is larger than the 100 bytes limit"]


def test_object_tags_construct_nothing(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    marker = tmp_path / "pwned"
    path = write(
        tmp_path,
        HEADER
        + "  - id: a\n    kind: basic\n"
        + f"    front: !!python/object/apply:os.system ['touch {marker}']\n"
        + "    back: A\n",
    )
    lines = problems(capsys, path)
    assert lines == [
        f"{path}:7:12: tag 'tag:yaml.org,2002:python/object/apply:os.system' is not allowed "
        "in decks (nothing was run)"
    ]
    assert not marker.exists()


def test_alias_bomb_is_refused_in_bounded_memory(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    levels = ["a0: &a0 [lol, lol, lol, lol, lol, lol, lol, lol, lol]"]
    for i in range(1, 12):
        levels.append(f"a{i}: &a{i} [" + ", ".join([f"*a{i - 1}"] * 9) + "]")
    path = write(tmp_path, HEADER + GOOD_CARD + "\n".join(levels) + "\n")
    tracemalloc.start()
    try:
        lines = problems(capsys, path)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    # Fully expanded this is 9**12 strings; refusing the aliases keeps it to a few MB.
    assert peak < 20 * 1024 * 1024
    assert any("anchors and aliases" in line for line in lines)
    assert any(line.startswith(f"{path}:9:1: unknown field 'a0' in the deck") for line in lines)


def test_a_symlink_leading_nowhere_says_why_not_that_it_is_missing(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # Issue 36, break 12: pathlib calls a symlink loop missing ("no such file").
    loop = tmp_path / "loop.yaml"
    loop.symlink_to(loop.name)
    dangling = tmp_path / "gone.yaml"
    dangling.symlink_to("elsewhere.yaml")
    code, out, _ = run(capsys, "validate", str(loop), str(dangling), str(tmp_path / "no.yaml"))
    assert code == 1
    assert out.splitlines() == [
        f"{loop}:1:1: cannot read: {os.strerror(errno.ELOOP)}",
        f"{dangling}:1:1: a symlink to 'elsewhere.yaml', which does not exist",
        f"{tmp_path / 'no.yaml'}:1:1: no such file or folder",
    ]


def test_every_problem_in_every_file_in_one_run(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    write(tmp_path, HEADER + "  - id: a\n    kind: basic\n    front: Q\n", "one.yaml")
    write(tmp_path, HEADER + "  - id: a\n    kind: nope\n    front: Q\n    back: A\n", "two.yaml")
    code, out, err = run(capsys, "validate", str(tmp_path))
    assert code == 1
    assert out.splitlines() == [
        f"{tmp_path / 'one.yaml'}:5:5: a basic card is missing required field 'back'",
        f"{tmp_path / 'two.yaml'}:6:11: unknown kind 'nope' (expected one of basic, cloze, "
        "follow_up, red_flag)",
    ]
    assert err.strip() == "2 problems in 2 files (2 files checked; 0 decks, 0 cards ok)"


def test_deck_id_used_by_two_files(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    first = write(tmp_path, HEADER + GOOD_CARD, "a.yaml")
    second = write(tmp_path, HEADER + GOOD_CARD, "b.yaml")
    lines = problems(capsys, tmp_path)
    assert lines == [f"{second}:1:1: deck id 'd' is already used by {first}"]


def test_missing_path(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    lines = problems(capsys, tmp_path / "nope.yaml")
    assert lines == [f"{tmp_path / 'nope.yaml'}:1:1: no such file or folder"]


def test_images_must_stay_in_the_deck_folder(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "img").mkdir()
    (tmp_path / "img" / "ok.png").write_bytes(b"\x89PNG")
    (tmp_path.parent / "secret.png").write_bytes(b"\x89PNG")
    path = write(
        tmp_path,
        HEADER
        + "  - id: a\n    kind: basic\n    front: |\n"
        + "      ![fine](img/ok.png)\n"
        + "      ![escape](../secret.png)\n"
        + "      ![gone](img/missing.png)\n"
        + "      ![remote](https://example.com/x.png)\n"
        + "    back: A\n",
    )
    assert problems(capsys, path) == [
        f"{path}:9:7: image '../secret.png' is outside the deck's folder",
        f"{path}:10:7: image 'img/missing.png' does not exist",
        f"{path}:11:7: image 'https://example.com/x.png' must be a file in the deck's folder, "
        "not a URL",
    ]


def test_unexpected_error_is_one_line_unless_debug(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    def boom(*_: object) -> None:
        raise RuntimeError("kaput")

    monkeypatch.setattr("zerodrill.cli.validate.load_paths", boom)
    code, out, err = run(capsys, "validate", str(tmp_path))
    assert code == 1
    # Where it was raised, and the last of zerodrill's lines on the way when that is elsewhere.
    line = boom.__code__.co_firstlineno + 1
    assert err.count("\n") == 1
    assert err.startswith(
        f"zerodrill: internal error: RuntimeError: kaput (raised at test_validate.py:{line}, "
        "called from zerodrill/cli/validate.py:"
    )
    assert err.endswith("; run again with --debug for the traceback)\n")
    with pytest.raises(RuntimeError, match="kaput"):
        main(["--debug", "validate", str(tmp_path)])
    monkeypatch.setenv("ZERODRILL_DEBUG", "1")
    with pytest.raises(RuntimeError, match="kaput"):
        main(["validate", str(tmp_path)])


def test_a_bare_assert_says_where_it_was_raised(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """A bare assert has no message ("AssertionError: " was all CI saw of one, once): the
    line names the place instead."""

    def bare(*_: object) -> None:
        raise AssertionError

    monkeypatch.setattr("zerodrill.cli.validate.load_paths", bare)
    code, _, err = run(capsys, "validate", str(tmp_path))
    assert code == 1
    line = bare.__code__.co_firstlineno + 1
    assert err.startswith(
        f"zerodrill: internal error: AssertionError (raised at test_validate.py:{line}, called "
        "from zerodrill/cli/validate.py:"
    ), err


def test_bundled_decks_validate(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "validate")
    assert code == 0
    assert out.strip().endswith(": ok")


def _pipe(tmp_path: Path, data: bytes) -> tuple[Path, threading.Thread]:
    """A named pipe that a thread fills with ``data`` once it is opened to be read."""
    fifo = tmp_path / "piped.yaml"
    os.mkfifo(fifo)

    def fill() -> None:
        with contextlib.suppress(BrokenPipeError), fifo.open("wb") as f:
            f.write(data)

    writer = threading.Thread(target=fill, daemon=True)
    writer.start()
    return fifo, writer


def test_size_limit_holds_for_a_pipe(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    # A pipe reports no size up front (nor does /dev/zero, which has no end): the read stops.
    monkeypatch.setattr(files, "MAX_FILE_BYTES", 100)
    fifo, writer = _pipe(tmp_path, textwrap.dedent(HEADER + GOOD_CARD * 3).encode())
    assert problems(capsys, fifo) == [f"{fifo}:1:1: file is larger than the 100 bytes limit"]
    writer.join(5)


def test_a_path_that_may_not_be_looked_at_is_a_problem_not_an_internal_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    # pathlib raises PermissionError, where it answers False for a missing path, when a
    # folder on the way may not be searched (simulated: the tests may run as root).
    locked = tmp_path / "locked" / "deck.yaml"
    is_dir = Path.is_dir

    def guarded(self: Path) -> bool:
        if self == locked:
            raise PermissionError(13, "Permission denied", str(self))
        return is_dir(self)

    monkeypatch.setattr(Path, "is_dir", guarded)
    code, out, err = run(capsys, "validate", str(locked))
    assert code == 1
    assert out.splitlines() == [f"{locked}:1:1: cannot read: Permission denied"]
    assert "internal error" not in err


def test_one_image_named_two_ways_is_one_media_file(tmp_path: Path) -> None:
    (tmp_path / "img").mkdir()
    (tmp_path / "img" / "ok.png").write_bytes(b"\x89PNG")
    path = write(
        tmp_path,
        HEADER
        + "  - id: a\n    kind: basic\n    front: |\n"
        + "      ![one](img/ok.png) and ![same](./img/ok.png)\n"
        + "    back: A\n",
    )
    (deck,) = load_paths([path]).decks
    assert deck.cards[0].media == ("img/ok.png",)


def test_problems_are_listed_in_line_order(tmp_path: Path) -> None:
    deck = tmp_path / "d.yaml"
    deck.write_text(
        "deck: d\ntitle: D\ndescription: x\ncards:\n"
        "  - id: a\n    kind: basic\n    front: q\n    bak: a\n    refs: [r]\n"
        "  - id: a\n    kind: nope\n    front: q\n    back: a\n    refs: [r]\n"
        "  - id: c\n    kind: cloze\n    text: no deletion here\n    refs: [r]\n",
        encoding="utf-8",
    )
    problems = load_paths([deck]).problems
    assert len(problems) >= 3
    places = [(p.pos.line, p.pos.col) for p in problems]
    assert places == sorted(places)


def test_the_pre_commit_hook_runs_validate_on_the_files_given(tmp_path: Path) -> None:
    """What pre-commit runs for the hook: its entry with the changed deck files appended."""
    import shlex

    import yaml

    hooks = yaml.safe_load((Path(__file__).parents[1] / ".pre-commit-hooks.yaml").read_text())
    (hook,) = hooks
    assert hook["id"] == "zerodrill-validate" and hook["pass_filenames"] is True
    program, *args = shlex.split(hook["entry"])
    assert program == "zerodrill"
    good = tmp_path / "good.yaml"
    good.write_text(
        "deck: g\ntitle: G\ndescription: x\ncards:\n"
        "  - id: a\n    kind: basic\n    front: q\n    back: a\n    refs: [r]\n",
        encoding="utf-8",
    )
    bad = tmp_path / "bad.yaml"
    bad.write_text(good.read_text().replace("deck: g", "deck: b").replace("back:", "bak:"))
    assert re.fullmatch(hook["files"], "x") is None and re.search(hook["files"], "d/b.yaml")
    main([*args, str(good)])  # returns: exit status 0
    with pytest.raises(SystemExit) as failed:
        main([*args, str(good), str(bad)])
    assert failed.value.code == 1


def _hook_runs(files: list[str]) -> list[str]:
    """The files pre-commit hands the hook: matched by `files`, not by `exclude`."""
    import yaml

    (hook,) = yaml.safe_load((Path(__file__).parents[1] / ".pre-commit-hooks.yaml").read_text())
    return [
        f
        for f in files
        if re.search(hook["files"], f) and not re.search(hook.get("exclude", "^$"), f)
    ]


def test_the_pre_commit_hook_never_checks_its_own_config_file() -> None:
    # Issue 24: every repository using the hook has .pre-commit-config.yaml, which the old
    # `files: \.ya?ml$` handed to validate ("unknown field 'repos' in the deck").
    given = [".pre-commit-config.yaml", "sub/.pre-commit-config.yaml", "decks/a.yaml", "b.yml"]
    assert _hook_runs(given) == ["decks/a.yaml", "b.yml"]


def test_the_hook_passes_over_yaml_that_is_not_a_deck_and_checks_every_deck(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    import shlex

    import yaml

    (hook,) = yaml.safe_load((Path(__file__).parents[1] / ".pre-commit-hooks.yaml").read_text())
    _, *args = shlex.split(hook["entry"])
    workflow = tmp_path / "ci.yml"
    workflow.write_text("name: CI\non: [push]\njobs:\n  t:\n    runs-on: x\n", encoding="utf-8")
    config = tmp_path / "config.yaml"
    config.write_text("repos:\n  - repo: local\n", encoding="utf-8")
    listing = tmp_path / "list.yaml"
    listing.write_text("- a\n- b\n", encoding="utf-8")
    broken = tmp_path / "broken.yaml"
    broken.write_text("title: [unclosed\n", encoding="utf-8")
    main([*args, str(workflow), str(config), str(listing), str(broken)])  # exit status 0
    assert "no decks among 4 files" in capsys.readouterr().out
    # A deck with its `deck:` key misspelt is still a deck to check, and fails.
    typo = tmp_path / "typo.yaml"
    typo.write_text(
        "dek: g\ntitle: G\ndescription: x\ncards:\n"
        "  - id: a\n    kind: basic\n    front: q\n    back: a\n",
        encoding="utf-8",
    )
    with pytest.raises(SystemExit) as failed:
        main([*args, str(workflow), str(typo)])
    assert failed.value.code == 1
    out = capsys.readouterr().out
    assert str(typo) in out and str(workflow) not in out
    # A broken deck is still a deck.
    broken_deck = tmp_path / "broken-deck.yaml"
    broken_deck.write_text("deck: x\ncards: [\n", encoding="utf-8")
    with pytest.raises(SystemExit):
        main([*args, str(broken_deck)])


def test_a_deck_that_requires_refs_names_each_card_without(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = write(
        tmp_path,
        "deck: d\ntitle: T\ndescription: D\nrefs: required\ncards:\n"
        "  - id: a\n    kind: basic\n    front: Q\n    back: A\n"
        "  - id: b\n    kind: basic\n    front: Q\n    back: A\n    refs: [paper §2]\n"
        "  - id: c\n    kind: basic\n    front: Q\n    back: A\n    refs: []\n",
    )
    assert problems(capsys, path) == [
        f"{path}:6:5: card 'a' has no refs, and the deck says 'refs: required': list the "
        "sources a reader can check it against",
        f"{path}:19:11: card 'c' has no refs, and the deck says 'refs: required': list the "
        "sources a reader can check it against",
    ]


@pytest.mark.parametrize("rule", ["", "refs: optional\n"])
def test_refs_stay_optional_unless_the_deck_requires_them(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], rule: str
) -> None:
    path = write(tmp_path, HEADER.replace("cards:\n", rule + "cards:\n") + GOOD_CARD)
    assert run(capsys, "validate", str(path))[:2] == (0, "1 deck, 1 card: ok\n")


def test_the_refs_rule_is_required_or_optional(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = write(tmp_path, HEADER.replace("cards:\n", "refs: yes\ncards:\n") + GOOD_CARD)
    assert problems(capsys, path) == [
        f"{path}:4:7: deck field 'refs' must be 'required' or 'optional'"
    ]


def _cloze(text: str) -> str:
    return HEADER + f"  - id: c\n    kind: cloze\n    text: {text}\n"


@pytest.mark.parametrize(
    ("text", "warned"),
    [
        # The answer sits in the text around the blank.
        ("'The default is {{c1::0}}; stage 0 means off.'", ["c1's answer '0'"]),
        # Another number's deletion is filled in while c2 is asked.
        ("'DDP moves {{c1::2Ψ}}; stages 1-2 move {{c2::2Ψ}} too.'", ["c1", "c2"]),
        # A hint that names the answer.
        ("'Partition {{c1::gradients::not the gradients}}.'", ["c1's answer 'gradients'"]),
        # Code marks and case do not hide it.
        ("'Set {{c1::`overlap_comm`}}; OVERLAP_COMM is a flag.'", ["c1"]),
    ],
)
def test_a_deletion_readable_elsewhere_is_a_warning(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], text: str, warned: list[str]
) -> None:
    path = write(tmp_path, _cloze(text))
    code, out, _ = run(capsys, "validate", str(path))
    assert code == 0, "a warning leaves the deck usable"
    lines = out.splitlines()
    assert lines[-1].endswith(f"ok ({len(warned)} warning{'s' if len(warned) > 1 else ''})")
    for expected, line in zip(warned, lines[:-1], strict=True):
        assert line.startswith(f"{path}:7:11: warning: card 'c': ")
        assert expected in line


@pytest.mark.parametrize(
    "text",
    [
        "'The default is {{c1::0}}; clipping is 1.0 and the ratio 0.4.'",  # 0 only inside numbers
        "'Stages {{c1::1}} and {{c1::1}} share one number, blanked together.'",
        "'The {{c1::engine}} trains; the engines list is elsewhere.'",  # not a whole word
        "'Stage {{c1::3}} gathers; see the Extra.'",
    ],
)
def test_a_deletion_seen_nowhere_else_is_not_warned(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], text: str
) -> None:
    path = write(tmp_path, _cloze(text))
    code, out, _ = run(capsys, "validate", str(path))
    assert (code, out.strip()) == (0, "1 deck, 1 card: ok")


def test_the_answer_in_the_extra_is_no_giveaway(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # The extra is shown only with the answer.
    path = write(tmp_path, _cloze("'Stage {{c1::3}} gathers.'") + "    extra: Stage 3 it is.\n")
    code, out, _ = run(capsys, "validate", str(path))
    assert (code, out.strip()) == (0, "1 deck, 1 card: ok")


def test_a_figure_worked_out_from_the_rest_is_a_warning(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = write(tmp_path, _cloze("'Each parameter: 2Ψ + 2Ψ + 12Ψ, {{c1::16Ψ}} in all.'"))
    code, out, _ = run(capsys, "validate", str(path))
    assert code == 0, "a warning leaves the deck usable"
    first, last = out.splitlines()
    assert first.startswith(f"{path}:7:11: warning: card 'c': c1's answer '16Ψ' can be worked out")
    assert "2Ψ + 2Ψ + 12Ψ" in first
    assert last.endswith("ok (1 warning)")


def test_a_front_that_asks_two_things_is_a_warning(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    card = "  - id: q\n    kind: basic\n    front: What is ZeRO++, and what does it claim?\n"
    path = write(tmp_path, HEADER + card + "    back: A.\n")
    code, out, _ = run(capsys, "validate", str(path))
    first, last = out.splitlines()
    assert code == 0
    assert first.startswith(f"{path}:7:12: warning: card 'q': its front asks 2 questions")
    assert "'What is ZeRO++' / 'what does it claim'" in first
    assert last.endswith("ok (1 warning)")


def test_a_list_of_five_in_prose_is_a_warning(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    card = "  - id: l\n    kind: follow_up\n    question: Which stages?\n"
    answer = "    answer: ZeRO-1, ZeRO-2, ZeRO-2 + offload, ZeRO-3, ZeRO-3 + offload.\n"
    path = write(tmp_path, HEADER + card + answer)
    code, out, _ = run(capsys, "validate", str(path))
    first, last = out.splitlines()
    assert code == 0
    assert first.startswith(f"{path}:8:13: warning: card 'l': its answer lists 5 items")
    assert last.endswith("ok (1 warning)")


def test_one_question_and_a_short_list_are_no_warning(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    card = "  - id: l\n    kind: basic\n    front: What do stage 1 and stage 2 shard?\n"
    answer = "    back: Stage 1 the optimizer states, stage 2 the gradients too, and no more.\n"
    path = write(tmp_path, HEADER + card + answer)
    code, out, _ = run(capsys, "validate", str(path))
    assert (code, out.strip()) == (0, "1 deck, 1 card: ok")


# -- refs that name their place (refs: required) ------------------------------------------------

REFS_HEADER = "deck: d\ntitle: T\ndescription: D\nrefs: required\ncards:\n"


def _card_with_refs(*refs: str) -> str:
    lines = "".join(f"      - {json.dumps(ref)}\n" for ref in refs)
    return (
        REFS_HEADER + "  - id: a\n    kind: basic\n    front: Q\n    back: A\n    refs:\n" + lines
    )


@pytest.mark.parametrize(
    ("ref", "message"),
    [
        pytest.param(
            "https://gitlab.com/group/sub/repo/-/blob/main/x.py#L10-20",
            "'main' is a branch or other name that moves",
            id="gitlab-branch",
        ),
        pytest.param(
            "https://codeberg.org/o/r/src/branch/main/x.py#L3",
            "'main' is a branch or other name that moves",
            id="gitea-branch",
        ),
        pytest.param(
            "https://github.com/o/r/tree/v1.2.3/src",
            "it links a folder, not a file",
            id="folder",
        ),
        pytest.param(
            "https://github.com/o/r/blob/v1.2.3/x.py#readme",
            "'#readme' is not a line anchor",
            id="not-lines",
        ),
        pytest.param(
            "https://arxiv.org/abs/1910.02054",
            "a link to a whole paper names no place in it",
            id="arxiv-link",
        ),
    ],
)
def test_a_required_ref_names_its_place_at_the_ref(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], ref: str, message: str
) -> None:
    path = write(tmp_path, _card_with_refs("https://example.org/page", ref))
    (line,) = problems(capsys, path)
    assert line.startswith(f"{path}:12:9: "), line
    assert message in line, line


def test_refs_that_name_their_place_pass(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = write(
        tmp_path,
        _card_with_refs(
            "https://github.com/o/r/blob/" + "a" * 40 + "/x.py#L10-L20",
            "https://gitlab.com/g/r/-/blob/v2.0.0/x.py#L10-20",
            "https://codeberg.org/o/r/src/commit/" + "b" * 40 + "/x.py#L3",
            "https://bitbucket.org/o/r/src/" + "c" * 40 + "/x.py#lines-3:5",
            "ZeRO paper, arXiv:1910.02054v3, §5.2",
            "A book, chapter 3",  # text: no rule tells its place
            "https://docs.example.org/config",  # a page: taken as written
            "https://github.com/o/r/pull/12",  # a thread beside the others
        ),
    )
    assert run(capsys, "validate", str(path))[:2] == (0, "1 deck, 1 card: ok\n")


def test_refs_are_not_checked_unless_required(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    body = _card_with_refs("https://github.com/o/r/blob/main/x.py", "https://github.com/o/r/pull/1")
    path = write(tmp_path, body.replace("refs: required\n", ""))
    assert run(capsys, "validate", str(path))[0] == 0


def test_pull_requests_and_issues_never_stand_alone(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = write(
        tmp_path,
        _card_with_refs("https://github.com/o/r/pull/12", "https://github.com/o/r/issues/3"),
    )
    assert problems(capsys, path) == [
        f"{path}:11:7: card 'a' cites only pull requests or issues: they say why something "
        "changed, not what is so; add the source lines or the paper's place they concern"
    ]


# -- tags --------------------------------------------------------------------------------------


def test_the_tag_rule_its_message_and_its_documentation_agree(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from zerodrill.deck import json_schema as schema
    from zerodrill.deck import model

    path = write(tmp_path, HEADER + GOOD_CARD + "    tags: [ok_tag, ok-tag, 1st, Bad, -x]\n")
    assert problems(capsys, path) == [
        f"{path}:9:33: 'Bad' in 'tags' must be {model.TAG_RULE}",
        f"{path}:9:38: '-x' in 'tags' must be {model.TAG_RULE}",
    ]
    assert "'_'" in model.TAG_RULE and re.fullmatch(model.TAG_PATTERN, "a_b-c")
    assert model.TAG_RULE in schema.readme_tables()
    tags = schema.schema()["$defs"]["basic"]["properties"]["tags"]
    assert model.TAG_RULE in tags["description"]


# -- config keys checked against the deck's facts file ----------------------------------------

FACTS = {
    "config_keys": {
        "block": "train",
        "keys": {
            "lr": {},
            "batch_size": {"aliases": ["train_bs"]},
            "optim": {},
            "optim.name": {"values": ["adam", "sgd"]},
            "extra": {},
        },
        "top_level": ["train", "seed", "train_seed"],
    },
    "anything_else": [1, 2, 3],
}
KEYS_HEADER = """\
deck: d
title: T
description: D
config_keys:
  facts: keys.json
  prefixes: [train_]
  known:
    - train_steps  # another tool's field
cards:
"""


def _keys_deck(
    tmp_path: Path, cards: str, facts: object = FACTS, header: str = KEYS_HEADER
) -> Path:
    if facts is not None:
        (tmp_path / "keys.json").write_text(json.dumps(facts), encoding="utf-8")
    return write(tmp_path, header + cards)


def test_config_keys_that_the_facts_accept_pass(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = _keys_deck(
        tmp_path,
        "  - id: a\n    kind: cloze\n"
        "    text: |\n"
        "      Set `train.{{c1::lr}}`, `train.optim.name`, `train_bs`, `seed`, `train_steps`,\n"
        '      `train.extra.anything`, `optim.name` and `"batch_size": 8`.\n'
        "    extra: |\n"
        "      ```json\n"
        '      {"seed": 1, "train": {"train_bs": 8, "optim": {"name": "sgd"}, "extra": {"x": 1}}}\n'
        "      ```\n",
    )
    assert run(capsys, "validate", str(path))[:2] == (0, "1 deck, 1 card: ok\n")


def test_config_keys_the_facts_lack_are_reported_at_their_place(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = _keys_deck(
        tmp_path,
        "  - id: a\n    kind: basic\n"
        "    front: Set `train.lrr` and `train_bz`, `optim.nme`, `batch_sise`.\n"
        "    back: |\n"
        "      ```json\n"
        '      {"train": {"optim": {"name": "adamw"}, "lr": 1}, "sed": 2}\n'
        "      ```\n"
        "  - id: b\n    kind: basic\n    front: Q\n    back: |\n"
        "      ```json\n"
        '      {"train": {"lr": 1,}}\n'
        "      ```\n",
    )
    assert problems(capsys, path) == [
        f"{path}:12:17: 'train.lrr' is not a key in keys.json (did you mean 'train.lr'?)",
        f"{path}:12:33: 'train_bz' looks like a config key, but keys.json has no such key (did "
        "you mean 'train_bs'?): correct it, or list it under config_keys' known with the "
        "reason it is right",
        f"{path}:12:45: 'optim.nme' is not a key in keys.json (did you mean 'optim.name'?)",
        f"{path}:12:58: 'batch_sise' looks like a config key, but keys.json has no such key "
        "(did you mean 'batch_size'?): correct it, or list it under config_keys' known with "
        "the reason it is right",
        f'{path}:15:36: \'train.optim.name\' takes "adam" or "sgd" in keys.json, not "adamw"',
        f"{path}:15:56: 'sed' is not a top-level key of the config in keys.json (did you mean "
        "'seed'?)",
        f"{path}:22:26: this json fence is not valid JSON (Expecting property name enclosed in "
        "double quotes), so the config keys in it cannot be checked: correct it, or mark the "
        "fence with another language",
    ]


@pytest.mark.parametrize(
    ("facts", "target", "message"),
    [
        pytest.param(None, "keys.json", "facts file 'keys.json' does not exist", id="missing"),
        pytest.param("{not json", "keys.json", "facts file 'keys.json' is not JSON", id="not-json"),
        pytest.param({"other": 1}, "keys.json", "has no 'config_keys' object", id="no-section"),
        pytest.param(
            {"config_keys": {"block": "t", "keys": {"a.b": {}}, "top_level": []}},
            "keys.json",
            "'config_keys.keys' has 'a.b' but not 'a'",
            id="no-parent",
        ),
        pytest.param(FACTS, "../keys.json", "a path with '..' leaves it", id="dot-dot"),
        pytest.param(FACTS, "/etc/keys.json", "must be a relative path", id="absolute"),
        pytest.param(FACTS, "sub\\\\keys.json", "must be written with '/' separators", id="bs"),
    ],
)
def test_a_facts_file_that_cannot_be_read_is_one_problem_at_the_field(
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    facts: object,
    target: str,
    message: str,
) -> None:
    header = KEYS_HEADER.replace("facts: keys.json", f'facts: "{target}"')
    if isinstance(facts, str):
        (tmp_path / "keys.json").write_text(facts, encoding="utf-8")
        facts = None
    path = _keys_deck(tmp_path, GOOD_CARD, facts, header)
    (line,) = problems(capsys, path)
    assert line.startswith(f"{path}:5:10: "), line
    assert message in line, line


def test_a_facts_file_may_not_lead_out_of_the_deck_s_folder(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "keys.json").write_text(json.dumps(FACTS), encoding="utf-8")
    folder = tmp_path / "deck"
    folder.mkdir()
    (folder / "keys.json").symlink_to(tmp_path / "keys.json")
    path = _keys_deck(folder, GOOD_CARD, None)
    assert problems(capsys, path) == [
        f"{path}:5:10: facts file 'keys.json' leads out of the deck's folder (through a symlink)"
    ]
    (folder / "keys.json").unlink()
    (folder / "keys.json").mkdir()
    assert problems(capsys, path) == [f"{path}:5:10: facts file 'keys.json' is not a regular file"]


def test_a_facts_file_is_read_up_to_its_limit(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(files, "MAX_BESIDE_BYTES", 100)
    path = _keys_deck(tmp_path, GOOD_CARD)
    assert problems(capsys, path) == [
        f"{path}:5:10: facts file 'keys.json' is larger than the 100 bytes a file beside a deck "
        "may have"
    ]


def test_the_config_keys_field_is_checked_like_any_other(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    header = KEYS_HEADER.replace("  prefixes: [train_]\n", "  prefix: [train_]\n").replace(
        "    - train_steps", "    - seed  # in the facts already\n    - 2x"
    )
    path = _keys_deck(tmp_path, GOOD_CARD, FACTS, header)
    assert problems(capsys, path) == [
        f"{path}:6:3: unknown field 'prefix' in config_keys (did you mean 'prefixes'?)",
        f"{path}:9:7: '2x' in 'known' must be an identifier (letters, digits and '_', not "
        "starting with a digit) or a key path (a.b)",
    ]
    header = KEYS_HEADER.replace("    - train_steps", "    - seed  # in the facts already")
    path = _keys_deck(tmp_path, GOOD_CARD, FACTS, header)
    assert problems(capsys, path) == [
        f"{path}:8:7: 'seed' is a key in keys.json already: drop it from known"
    ]


def test_the_hook_checks_the_deck_and_passes_over_its_facts_file(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The hook hands validate only YAML; a facts file named all the same is no deck."""
    path = _keys_deck(tmp_path, GOOD_CARD)
    facts = tmp_path / "keys.json"
    code, out, _ = run(capsys, "validate", "--skip-non-decks", str(path), str(facts))
    assert (code, out) == (0, "1 deck, 1 card: ok\n")
    # A folder is searched for YAML only: the facts file beside the deck is not a deck.
    assert run(capsys, "validate", str(tmp_path))[:2] == (0, "1 deck, 1 card: ok\n")


def test_config_keys_are_checked_in_deletions_and_in_the_sheet(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = _keys_deck(
        tmp_path,
        "  - id: a\n    kind: cloze\n    text: 'Set `train.{{c1::lrr}}` and {{c2::`train_bz`}}.'\n"
        "sheet:\n  - text: '`train.optim.nam` picks the optimizer.'\n    cards: [a]\n",
    )
    assert [line.split(" is ")[0].split(" looks ")[0] for line in problems(capsys, path)] == [
        f"{path}:12:17: 'train.lrr'",  # a deletion read as its answer
        f"{path}:12:47: 'train_bz'",
        f"{path}:14:13: 'train.optim.nam'",
    ]
