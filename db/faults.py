"""Crash points for the fault tests: with MJLEDGER_CRASH_AT=<name> in its environment the process
kills itself (SIGKILL: no cleanup, no flush) when it reaches the point of that name. Unset, a
crash point costs one dictionary lookup. Names: after_draft_saved, after_hand_stored, mid_import,
after_booked (an update's first change to the books committed, the update not yet answered)."""

from __future__ import annotations

import os
import signal

ENV = "MJLEDGER_CRASH_AT"


def crash_point(name: str) -> None:
    if os.environ.get(ENV) == name:
        os.kill(os.getpid(), signal.SIGKILL)
