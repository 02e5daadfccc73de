"""SIGINT/SIGTERM as a request to stop after the step in flight."""

import signal
import threading


class StopSignals:
    """A context manager in which SIGINT and SIGTERM only set `reason`.

    The training loop checks `reason` between steps: the step in flight
    finishes, then the loop checkpoints and returns. A second signal stops
    at once (`KeyboardInterrupt`). Outside the main thread (where Python
    cannot install handlers) only `request` sets it. The previous handlers
    are restored on exit.
    """

    def __init__(self):
        self.reason = None
        self._previous = {}

    def request(self, reason="request_stop"):
        """Asks the loop to stop after this step (from any thread)."""
        self.reason = reason

    def _handler(self, signum, frame):
        del frame
        if self.reason is not None:  # second signal: stop now
            raise KeyboardInterrupt
        self.reason = signal.Signals(signum).name

    def __enter__(self):
        self.reason = None
        if threading.current_thread() is threading.main_thread():
            self._previous = {
                s: signal.signal(s, self._handler)
                for s in (signal.SIGINT, signal.SIGTERM)
            }
        return self

    def __exit__(self, *exc_info):
        for s, handler in self._previous.items():
            signal.signal(s, handler)
        self._previous = {}
        return False
