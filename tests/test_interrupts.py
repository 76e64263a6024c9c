"""portfolio/interrupts.py: Ctrl-C and SIGTERM remembered, so a swallowed KeyboardInterrupt still stops
a driver. (The whole path, a Ray driver interrupted mid-run, is in test_ray_engine.py.)"""

from __future__ import annotations

import os
import signal
import time

import pytest

from autofill.portfolio.interrupts import Interrupts


@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM])
def test_an_interrupt_swallowed_on_its_way_still_stops_the_run(sig):
    """The KeyboardInterrupt of a Ctrl-C can be raised where it is swallowed (a finaliser, Ray's own code
    while the driver waits); the engine remembers the signal and stops at its next look."""
    before = signal.getsignal(signal.SIGINT)  # the test process's own (a pytest-xdist worker ignores it)
    interrupts = Interrupts()
    interrupts.install()
    try:
        interrupts.check()  # nothing yet
        try:
            os.kill(os.getpid(), sig)
            time.sleep(1)  # the handler runs here
        except KeyboardInterrupt:
            pass  # swallowed
        with pytest.raises(KeyboardInterrupt):
            interrupts.check()
    finally:
        interrupts.restore()
    assert signal.getsignal(signal.SIGINT) is before
