"""The drill and the interview share one app base: its plumbing is written once.

What that plumbing does is tested through each app (Ctrl+C and Ctrl+Q on every screen in
test_tui_mash.py and test_tui_interview.py, the too-small notice in test_tui_flow.py, a user
error ending the app in test_tui_flow.py); this checks neither app grows its own copy again.
"""

from __future__ import annotations

import inspect

import pytest

from zerodrill.tui.app_base import AppBase
from zerodrill.tui.drill_app import ZeroDrillApp
from zerodrill.tui.interview.answering import FollowUpScreen
from zerodrill.tui.interview.interview_app import InterviewApp

SHARED = ("_fail", "on_resize", "get_default_screen", "show", "action_finish", "action_quit")


@pytest.mark.parametrize("app", [ZeroDrillApp, InterviewApp])
def test_each_app_takes_its_plumbing_from_the_base(app: type[AppBase[object]]) -> None:
    assert issubclass(app, AppBase)
    assert not [name for name in SHARED if name in vars(app)]
    assert {"first_screen", "result_so_far"} <= set(vars(app))
    keys = {key for binding in AppBase.BINDINGS for key in binding.key.split(",")}
    assert keys == {"ctrl+q", "ctrl+c"}


def test_the_follow_up_screen_is_handed_the_run_alone() -> None:
    # Screens reach the store only through the interview run (InterviewRun.choices).
    assert list(inspect.signature(FollowUpScreen).parameters) == ["run"]
