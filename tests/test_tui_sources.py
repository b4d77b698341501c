"""A card's sources on its answer side: folded into one line of the places they name, each
once, that key o unfolds into a list, one a line (issue 36, point 4); each a short label
linked to its address (issue 14 item 12), and only web addresses ever become links."""

from __future__ import annotations

from pathlib import Path

from rich.console import Console
from tui_support import Clock, make_app, run_async, shown

from zerodrill.deck.load import load_paths
from zerodrill.deck.source_labels import Source, source
from zerodrill.srs.store import Store
from zerodrill.tui.drill_app import ZeroDrillApp, create_app
from zerodrill.tui.screens.drill_screen import CardScroll
from zerodrill.tui.widgets.card_side import CardSide
from zerodrill.tui.widgets.card_view import CardView
from zerodrill.tui.widgets.key_bar import KeyBar

BLOB = (
    "https://github.com/deepspeedai/DeepSpeed/blob/edaa7221267243c7be7fb49c5d5f5c4fb97b4641"
    "/deepspeed/runtime/zero/config.py#L95-L138"
)
LONG_WORD = "https://example.com/" + "x" * 120
REFS = [
    BLOB,
    "ZeRO paper, arXiv:1910.02054v3, §7.2",
    "https://github.com/deepspeedai/DeepSpeed/pull/4695",
    "https://www.deepspeed.ai/docs/config-json/",
    "javascript:alert(1)",
    LONG_WORD,
    "A book, chapter 3",
]


def test_refs_become_short_labels_linked_to_their_address() -> None:
    assert source(BLOB) == Source("DeepSpeed zero/config.py L95-L138 @edaa722", BLOB, "edaa722")
    # The place without its version: what the folded line names.
    assert source(BLOB).place == "DeepSpeed zero/config.py L95-L138"
    assert source(REFS[1]).place == "ZeRO paper §7.2"
    assert source(REFS[1]) == Source("ZeRO paper §7.2", "https://arxiv.org/abs/1910.02054v3")
    assert source(REFS[2]) == Source("DeepSpeed PR #4695", REFS[2])
    assert source(REFS[3]) == Source("deepspeed.ai docs/config-json", REFS[3])
    tagged = "https://github.com/huggingface/transformers/blob/v4.57.1/src/a/b/c.py#L7"
    assert source(tagged).label == "transformers b/c.py L7 @v4.57.1"
    assert source(tagged).place == "transformers b/c.py L7"
    # Only http(s) links: anything else is shown as the text it is, and links nowhere.
    assert source("javascript:alert(1)") == Source("javascript:alert(1)", None)
    assert source("mailto:a@b.c").url is None
    assert source("A book, chapter 3") == Source("A book, chapter 3", None)
    assert source(LONG_WORD).label == "example.com " + "x" * 39 + "…"
    assert source("https://[::1").url == "https://[::1"  # malformed: its own text, no crash


def test_every_shipped_ref_has_a_label_that_fits_a_line_at_80_columns() -> None:
    decks = load_paths([Path(__file__).resolve().parents[1] / "decks"]).decks
    refs = {ref for deck in decks for card in deck.cards for ref in card.refs}
    assert len(refs) > 100
    for ref in refs:
        found = source(ref)
        # Whole words only, so wrapping (at 80 columns the card is 74 wide) never cuts one.
        assert max(len(word) for word in found.label.split()) < 70, ref
        assert found.url is None or found.url.startswith("https://")


#: The same place as BLOB at another commit: a version of its own in the list, one place.
OTHER_COMMIT = BLOB.replace("edaa7221267243c7be7fb49c5d5f5c4fb97b4641", "0123456" + "8" * 33)
DECK = f"""\
deck: sources
title: Sources
description: Every shape of ref.
cards:
  - id: many
    kind: basic
    front: Where is this written?
    back: |
      An answer long enough that its sources, in full, run below an 80x24 drill.

      - one
      - two
      - three

      In the sources below.
    refs: {[*REFS, BLOB, OTHER_COMMIT]!r}
"""
#: The list's labels, in the order of the refs, each once.
LABELS = [
    "DeepSpeed zero/config.py L95-L138 @edaa722",
    "ZeRO paper §7.2",
    "DeepSpeed PR #4695",
    "deepspeed.ai docs/config-json",
    "javascript:alert(1)",
    "example.com " + "x" * 39 + "…",
    "A book, chapter 3",
    "DeepSpeed zero/config.py L95-L138 @0123456",
]


def sources_app(tmp_path: Path, store: Store) -> ZeroDrillApp:
    path = tmp_path / "sources.yaml"
    path.write_text(DECK)
    result = load_paths([path])
    assert result.ok, result.problems
    return create_app(result.decks, store, clock=Clock())


def links_in(side: CardSide, width: int) -> dict[str, str]:
    """Each link the side draws at ``width``: its address, and the text that links to it."""
    console = Console(width=width, color_system="truecolor")
    links: dict[str, str] = {}
    for seg in console.render(side.renderable(), console.options.update(width=width)):
        if seg.style is not None and seg.style.link:
            links[seg.style.link] = links.get(seg.style.link, "") + seg.text
    return links


@run_async
async def test_sources_fold_to_one_line_of_the_places_they_name_each_once(tmp_path: Path) -> None:
    with Store.open(tmp_path / "reviews.db") as store:
        app = sources_app(tmp_path, store)
        async with app.run_test(size=(80, 24)) as pilot:
            await pilot.press("enter")
            side = app.screen.query_one("#answer", CardSide)
            width = side.content_size.width
            lines = shown(side).splitlines()
            # One line under the answer, cut at the side's width: nothing to scroll to.
            assert lines[-2:] == ["", lines[-1]] and lines[-3] == "In the sources below."
            folded = lines[-1]
            assert folded.startswith("Sources (8)  DeepSpeed zero/config.py L95-L138 · ZeRO")
            assert len(folded) == width and folded.endswith("…")
            # At any width the line has room for, each place once, without its version.
            side.styles.width = 400
            await pilot.pause()
            wide = shown(side).splitlines()[-1]
            places = [label.removesuffix(" @edaa722") for label in LABELS[:7]]
            assert wide == "Sources (8)  " + " · ".join(places)
            assert links_in(side, 400) == {
                BLOB: "DeepSpeed zero/config.py L95-L138",
                "https://arxiv.org/abs/1910.02054v3": "ZeRO paper §7.2",
                REFS[2]: "DeepSpeed PR #4695",
                REFS[3]: "deepspeed.ai docs/config-json",
                LONG_WORD: "example.com " + "x" * 39 + "…",
            }


@run_async
async def test_o_unfolds_the_sources_one_a_line_as_labels_linked_where_safe(
    tmp_path: Path,
) -> None:
    with Store.open(tmp_path / "reviews.db") as store:
        app = sources_app(tmp_path, store)
        async with app.run_test(size=(80, 24)) as pilot:
            await pilot.press("enter", "o")
            side = app.screen.query_one("#answer", CardSide)
            width = side.content_size.width
            lines = shown(side).splitlines()
            at = lines.index("Sources")
            # The ref given twice is listed once; the same place at another commit is not
            # the same source.
            assert [line.removeprefix("• ") for line in lines[at + 1 :]] == LABELS
            assert links_in(side, width) == {
                BLOB: LABELS[0],
                "https://arxiv.org/abs/1910.02054v3": "ZeRO paper §7.2",
                REFS[2]: "DeepSpeed PR #4695",
                REFS[3]: "deepspeed.ai docs/config-json",
                LONG_WORD: "example.com " + "x" * 39 + "…",
                OTHER_COMMIT: LABELS[-1],
            }
            # Scrolled down to them: the list is what the key asked to see.
            scroll = app.screen.query_one(CardScroll)
            assert scroll.max_scroll_y > 0 and scroll.scroll_y == scroll.max_scroll_y
            await pilot.press("o")
            assert shown(side).splitlines()[-1].startswith("Sources (8)  ")


def key_bar(app: ZeroDrillApp) -> str:
    return shown(app.screen.query_one(KeyBar))


@run_async
async def test_the_sources_key_is_on_the_answer_side_of_a_card_with_sources_only(
    tmp_path: Path,
) -> None:
    with Store.open(tmp_path / "reviews.db") as store:
        app = make_app(store, "zero")
        async with app.run_test(size=(80, 24)) as pilot:
            side = app.screen.query_one("#answer", CardSide)
            assert " o Sources " not in key_bar(app)
            await pilot.press("o")  # on the question side: nothing
            await pilot.press("enter")
            assert " o Sources " in key_bar(app)
            assert shown(side).splitlines()[-1] == "Sources  deepspeed.ai docs/config-json"
            await pilot.press("o")
            assert shown(side).splitlines()[-2:] == ["Sources", "• deepspeed.ai docs/config-json"]
            # The next card's sources are folded again.
            await pilot.press("4", "enter")
            assert shown(side).splitlines()[-1] == "Sources  ZeRO paper section 5"
            await pilot.press("4", "enter")  # the follow-up on FSDP has no sources
            card = app.screen.query_one(CardView)
            assert card.item is not None and card.item.key == "zero-tui/fsdp"
            assert " o Sources " not in key_bar(app) and "Sources" not in shown(side)
