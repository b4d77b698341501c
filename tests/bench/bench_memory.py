"""Peak memory of the drill on a 10,000-card deck vs a bare Textual app.

Each side runs in a fresh process (headless, 100x30) until its first screen is up, then
exits; the figure is the process's peak resident set (``ru_maxrss``, from ``os.wait4``).
The drill's deck cache is warm, as it is on every day but the first.

Run by hand: ``PYTHONPATH=. python tests/bench/bench_memory.py``.
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
import textwrap
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from gen import write_deck  # noqa: E402

BARE = textwrap.dedent(
    """
    import asyncio, sys
    sys.path.insert(0, sys.argv[1])
    from bench_drill import _bare_class

    async def main():
        app = _bare_class()()
        async with app.run_test(size=(100, 30)) as pilot:
            await pilot.pause()

    asyncio.run(main())
    """
)

DRILL = textwrap.dedent(
    """
    import asyncio, sys
    from pathlib import Path
    from zerodrill.cli.common import load_decks
    from zerodrill.srs.store import Store
    from zerodrill.tui.drill_app import create_app
    from zerodrill.tui.widgets.card_view import CardView

    async def main(deck, db):
        decks = load_decks([Path(deck)]).decks
        with Store.open(db) as store:
            app = create_app(decks, store)
            async with app.run_test(size=(100, 30)) as pilot:
                await pilot.pause()
                while not app.screen.query(CardView) or app.screen.query_one(CardView).item is None:
                    await pilot.pause()

    asyncio.run(main(sys.argv[2], sys.argv[3]))
    """
)


def _peak_mib(args: list[str], env: dict[str, str]) -> float:
    proc = subprocess.Popen([sys.executable, "-c", *args], env=env)
    _, status, usage = os.wait4(proc.pid, 0)
    proc.returncode = os.waitstatus_to_exitcode(status)
    if proc.returncode != 0:
        raise RuntimeError(f"benchmark child failed with status {proc.returncode}")
    return usage.ru_maxrss / 1024  # KiB on Linux


def run(cards: int = 10_000) -> dict[str, float]:
    here = str(Path(__file__).resolve().parent)
    root = str(Path(__file__).resolve().parents[2])
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        deck = write_deck(folder, cards)
        env = dict(os.environ)
        env["PYTHONPATH"] = root + os.pathsep + env.get("PYTHONPATH", "")
        env["ZERODRILL_CACHE_DIR"] = str(folder / "cache")
        drill_args = [DRILL, here, str(deck), str(folder / "r.db")]
        _peak_mib(drill_args, env)  # fills the deck cache
        bare = _peak_mib([BARE, here], env)
        drill = _peak_mib(drill_args, env)
    return {"cards": cards, "bare_mib": bare, "drill_mib": drill, "ratio": drill / bare}


if __name__ == "__main__":
    r = run()
    print(
        f"peak RSS: bare Textual app {r['bare_mib']:.0f} MiB, drill on {r['cards']:,} cards "
        f"{r['drill_mib']:.0f} MiB, ratio {r['ratio']:.2f}x"
    )
