"""Random irregular writing (the paper's RW baseline)."""

import keras
import numpy as np
from keras import ops

from keras_rda.memory.schedules.write_schedule import WriteSchedule
from keras_rda.utils import validation


@keras.saving.register_keras_serializable(package="keras_rda")
class RandomWriting(WriteSchedule):
    """Access memory on steps drawn once at random, then fixed.

    Each of the first `P` steps is an access step with probability `p`
    (independent Bernoulli draws, the paper's binomial policy), with
    `p = rate`, or `p = (D + 1) / T` (the compression ratio) when `rate` is
    None. `P` is `encoding_steps` if given, else `sequence_length`; steps
    after `P` access memory every step. The draw depends only on `seed`
    (and `D` when `rate` is None), so one schedule object is one fixed policy,
    also after saving and loading; to average over policies, as the paper does
    over 3, build several schedules with different seeds.

    Input length (`WriteSchedule.check_length`): with `sequence_length`
    the policy is made for inputs (or, with `encoding_steps`, an encoding
    part) of exactly that many steps, and the `DNC` / `NTM` layers raise a
    `ValueError` on any other length, and on a time axis of unknown length
    unless `encoding_steps` is given; with only `encoding_steps` it takes
    inputs of any length. A policy with no access step among the steps an
    input has raises too.

    Args:
        rate: optional float in (0, 1], the write probability.
        sequence_length: positive int `T` for `p = (D + 1) / T`.
        encoding_steps: positive int; length of the governed part.
        seed: int seed of the policy; drawn at random (and kept in the
            config) when None.

    Reference:
        Le, Tran & Venkatesh 2019, section 3.2 (DNC+RW in Table 1).
    """

    def __init__(self, rate=None, sequence_length=None, encoding_steps=None, seed=None):
        super().__init__(encoding_steps=encoding_steps)
        self.sequence_length = validation.positive_int(
            "sequence_length", sequence_length, allow_none=True
        )
        if rate is not None and (
            isinstance(rate, bool)
            or not isinstance(rate, (int, float, np.floating, np.integer))
            or not 0.0 < float(rate) <= 1.0
        ):
            raise ValueError(
                "Received an invalid value for argument `rate`, expected a "
                f"probability in (0, 1], got {rate!r}"
            )
        self.rate = None if rate is None else float(rate)
        if self.encoding_steps is None and self.sequence_length is None:
            raise ValueError(
                "Received an invalid value for arguments `sequence_length` and "
                "`encoding_steps`, expected at least one of them (the length of "
                "the random policy), got None for both"
            )
        if seed is None:
            seed = int(np.random.SeedSequence().generate_state(1)[0] % (2**31))
        if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)):
            raise ValueError(
                "Received an invalid value for argument `seed`, expected an "
                f"integer, got {seed!r}"
            )
        self.seed = int(seed)

    @property
    def policy_length(self):
        """Number of steps `P` the random policy governs."""
        return self.encoding_steps or self.sequence_length

    def probability(self, memory_size):
        """The write probability `p` for a memory of `memory_size` slots."""
        if self.rate is not None:
            return self.rate
        length = self.sequence_length or self.encoding_steps
        p = (memory_size + 1) / length
        if p > 1.0:
            raise ValueError(
                "Received an invalid value for argument `memory_size`, expected "
                f"fewer than {length} slots so that p = (D + 1) / T <= 1, got "
                f"{memory_size!r}"
            )
        return p

    def validate(self, memory_size):
        self.probability(memory_size)

    @property
    def declared_length(self):
        return self.sequence_length

    def first_access_step(self, memory_size):
        steps = np.flatnonzero(self.policy(memory_size)) + 1
        return int(steps[0]) if steps.size else None

    def length_hint(self, num_steps):
        if self.sequence_length is None:
            return (
                "Its policy has no access step in that part: give another "
                "`seed` or a higher `rate`, or longer inputs."
            )
        return (
            f"Make it for this length (sequence_length={num_steps}), or give "
            "a `rate` and `encoding_steps` instead."
        )

    def policy(self, memory_size):
        """Boolean NumPy array `[P]`, True on the access steps `1..P`."""
        rng = np.random.default_rng(self.seed)
        return rng.random(self.policy_length) < self.probability(memory_size)

    def _scheduled(self, step, memory_size):
        policy = self.policy(memory_size)
        table = ops.convert_to_tensor(np.append(policy, True))
        index = ops.minimum(step - 1, len(policy))
        return ops.take(table, index)

    def _scheduled_numpy(self, steps, memory_size):
        policy = np.append(self.policy(memory_size), True)
        return policy[np.minimum(steps - 1, len(policy) - 1)]

    def get_config(self):
        return {
            "rate": self.rate,
            "sequence_length": self.sequence_length,
            "encoding_steps": self.encoding_steps,
            "seed": self.seed,
        }
