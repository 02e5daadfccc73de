"""Named hyper-parameter sets for the enwik8 loop: "paper" (the RDA paper's
section 6.1: embedding 64, 1800 units, BPTT 250, Adam at 1e-3, clipping to
[-1, 1], batches of 100, so 3,600 steps an epoch; for a GPU or TPU), "small"
(the default: learns visibly in minutes on a CPU, `enwik6` from 8 to ~2.3
BPC) and "tiny" (for unit tests).
"""

import dataclasses

from keras_rda.utils import validation


@dataclasses.dataclass(frozen=True)
class Preset:
    """Hyper-parameters of one enwik8 run (see the module docstring)."""

    units: int
    bptt: int
    batch_size: int
    steps: int
    learning_rate: float = 1e-3
    clipvalue: float = 1.0
    embedding_dim: int = 64
    eval_batch_size: int = 0  # 0: the training batch size
    eval_every: int = 0  # 0: only at the end
    eval_chars: int = 0  # validation characters during training (0: all)
    checkpoint_every: int = 100
    log_every: int = 10

    def __post_init__(self):
        """Checks every field (overrides come from the command line) and
        stores it as a Python int or float (so that it serialises to JSON)."""
        positive = ("units", "bptt", "batch_size", "steps", "embedding_dim")
        for name in positive + ("checkpoint_every", "log_every"):
            self._set(name, validation.positive_int(name, getattr(self, name)))
        for name in ("eval_batch_size", "eval_every", "eval_chars"):
            self._set(name, validation.non_negative_int(name, getattr(self, name)))
        self._set(
            "learning_rate",
            validation.positive_number("learning_rate", self.learning_rate),
        )
        # 0: no clipping.
        self._set(
            "clipvalue", validation.non_negative_number("clipvalue", self.clipvalue)
        )

    def _set(self, name, value):
        object.__setattr__(self, name, value)  # the dataclass is frozen


PRESETS = {
    "paper": Preset(
        units=1800,
        bptt=250,
        batch_size=100,
        steps=36_000,
        eval_every=1000,
        eval_chars=500_000,
        checkpoint_every=500,
        log_every=50,
    ),
    "small": Preset(
        units=128,
        bptt=100,
        batch_size=32,
        steps=1000,
        eval_every=250,
        checkpoint_every=100,
        log_every=10,
    ),
    "tiny": Preset(
        units=8,
        bptt=10,
        batch_size=4,
        steps=20,
        checkpoint_every=5,
        log_every=1,
    ),
}
DEFAULT_PRESET = "small"


def get_preset(name, **overrides):
    """Preset `name` with the fields in `overrides` that are not None replaced."""
    validation.one_of("preset", name, tuple(PRESETS))
    overrides = {k: v for k, v in overrides.items() if v is not None}
    return dataclasses.replace(PRESETS[name], **overrides)
