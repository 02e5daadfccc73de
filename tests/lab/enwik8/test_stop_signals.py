"""SIGINT/SIGTERM only set a flag inside `StopSignals`; handlers come back."""

import os
import signal
import threading

import pytest

from keras_rda.lab.enwik8.stop_signals import StopSignals


def test_signal_sets_reason_and_second_signal_stops_at_once():
    before = {s: signal.getsignal(s) for s in (signal.SIGINT, signal.SIGTERM)}
    stop = StopSignals()
    with stop:
        assert stop.reason is None
        os.kill(os.getpid(), signal.SIGTERM)
        assert stop.reason == "SIGTERM"
        with pytest.raises(KeyboardInterrupt):
            os.kill(os.getpid(), signal.SIGINT)
    assert {s: signal.getsignal(s) for s in before} == before


def test_entering_clears_an_old_request():
    stop = StopSignals()
    stop.request()
    with stop:
        assert stop.reason is None
        stop.request("asked")
        assert stop.reason == "asked"


def test_other_threads_install_no_handler_but_can_request():
    before = signal.getsignal(signal.SIGTERM)
    stop, seen = StopSignals(), []

    def worker():
        with stop:
            seen.append(signal.getsignal(signal.SIGTERM))
            stop.request()
            seen.append(stop.reason)

    thread = threading.Thread(target=worker)
    thread.start()
    thread.join()
    assert seen == [before, "request_stop"]
