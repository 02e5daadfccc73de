"""The UW paper's sinusoid continuation task (section 3.4, Appendix J).

Each example is a sinusoid

    y = 5 + A sin(2 pi f x + phi),  A ~ U(1, 5), f ~ U(10, 30), phi ~ U(0, 100),

sampled at x_t = (t + e_t) / 1000, e_t ~ U(-1, 1), t = 1 .. 2T. The model
reads the first `T` points ("encoding") and must generate the next `T`
("decoding"); T = 100 in the paper. In the noisy variant (`NoisySinusoid`)
the *input* points get added noise U(-2, 2). The loss and the score are the
mean squared error over the decoding steps.

Layout (`2T` steps): `inputs[..., 0]` is the (noisy) point y_t during
encoding and 0 during decoding, `inputs[..., 1]` is a decoding flag (0 then
1); `targets` is `[batch, 2T, 1]` with y_{T+1} .. y_{2T} on the decoding
steps; `sample_weight` is 1 exactly on the decoding steps. `encoding_length`
is `T`, the part a write schedule governs (the paper writes every step while
decoding, Appendix J).

Naive baseline: predicting the centre line y = 5 scores
E[A^2 sin^2] = E[A^2] / 2 = 31/6 ~ 5.17 MSE. For reference the paper reports
LSTM at about 1.05 (clean) and 1.39 (noisy), UW 0.44 / 0.98 and CUW 0.61 /
0.55 after 20,000 iterations (Figure 3).
"""

import numpy as np

from keras_rda.lab.tasks.core.registry import register_task
from keras_rda.lab.tasks.core.task import Task
from keras_rda.utils import validation

# E[A^2] / 2 for A ~ U(1, 5): (5^3 - 1^3) / (3 * 4) / 2.
_CENTRE_LINE_MSE = (5.0**3 - 1.0**3) / (3.0 * 4.0) / 2.0


def sinusoid_points(num, steps, rng):
    """Clean sinusoids `[num, steps]`, sampled as in section 3.4."""
    amplitude = rng.uniform(1.0, 5.0, size=(num, 1))
    frequency = rng.uniform(10.0, 30.0, size=(num, 1))
    phase = rng.uniform(0.0, 100.0, size=(num, 1))
    t = np.arange(1, steps + 1)[None, :]
    x = (t + rng.uniform(-1.0, 1.0, size=(num, steps))) / 1000.0
    return 5.0 + amplitude * np.sin(2.0 * np.pi * frequency * x + phase)


@register_task
class Sinusoid(Task):
    """Sinusoid continuation: read `length` points, generate the next `length`.

    The layout and the naive baseline are in this module's docstring.

    Args:
        length: `T`, points read and points generated (100 in the paper).
        noise: half-width of the uniform noise added to the input points
            (0 for the clean task, 2 for the noisy one, `NoisySinusoid`).
    """

    name = "sinusoid"
    paper = "UW paper (Le et al. 2019), section 3.4, Figure 3 and Appendix J"
    description = "UW sinusoid continuation, clean: read 100 points, write 100"
    output = "regression"
    per_step = True
    metric = "mse"
    baseline = _CENTRE_LINE_MSE
    threshold = None
    paper_steps = 20000
    seq_len_param = "length"
    scales = {"small": {"length": 50}}
    training_scales = {
        "small": {"steps": 500, "batch_size": 32, "units": 64, "eval_every": 50},
        "paper": {"batch_size": 64, "units": 100, "eval_every": 200},
    }
    input_dim = 2

    def __init__(self, length=100, noise=0.0):
        self.length = validation.positive_int("length", length)
        self.noise = validation.in_range(
            "noise", noise, 0.0, float("inf"), high_inclusive=False
        )
        self.encoding_length = self.length
        self.output_length = self.length
        self.sequence_length = 2 * self.length

    def generate(self, batch_size, rng):
        batch_size = validation.positive_int("batch_size", batch_size)
        steps = self.length
        points = sinusoid_points(batch_size, 2 * steps, rng)
        seen = points[:, :steps]
        if self.noise:
            seen = seen + rng.uniform(-self.noise, self.noise, size=seen.shape)
        inputs = np.zeros((batch_size, 2 * steps, 2), np.float32)
        inputs[:, :steps, 0] = seen
        inputs[:, steps:, 1] = 1.0
        targets = np.zeros((batch_size, 2 * steps, 1), np.float32)
        targets[:, steps:, 0] = points[:, steps:]
        sample_weight = np.zeros((batch_size, 2 * steps), np.float32)
        sample_weight[:, steps:] = 1.0
        return inputs, targets, sample_weight

    def config(self):
        return {"length": self.length, "noise": self.noise}
