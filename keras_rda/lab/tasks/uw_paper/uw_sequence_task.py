"""The base of the UW paper's synthetic discrete tasks.

Double, copy, reverse, add and max ("uw-double", "uw-copy", "uw-reverse",
"uw-add", "uw-max") share this generator and differ only in the output
sequence. Le, Tran & Venkatesh, "Learning to Remember More with Less
Memorization" (ICLR 2019), sections 3.1-3.3 and Appendix G (Table 5): a
sequence of `T` integers drawn uniformly from `[low, high]` (1-10; 1-50 for
max) is read ("encoding"), then the model emits an output ("decoding"):

| task | output |
|---|---|
| double  | x_1 ... x_T x_1 ... x_T |
| copy    | x_1 ... x_T |
| reverse | x_T ... x_1 |
| add     | floor((x_1 + x_T) / 2) ... floor((x_{T/2} + x_{T/2+1}) / 2) |
| max     | max(x_1, x_2) max(x_3, x_4) ... max(x_{T-1}, x_T) |

Layout of one example, `T` encoding steps, one end-of-sequence step, then
`len(output)` decoding steps (`T + 1 + len(output)` steps in all):

    step        0 .. T-1          T          T+1 .. T+len(output)
    inputs      one-hot(x_t)      <eos>      zeros
    targets     -                 -          y_1 .. y_len(output)
    weight      0                 0          1

`inputs` has `high - low + 1` one-hot channels for the values plus one
channel for `<eos>`; targets are class indices `y - low` (so 10 classes for
values 1-10). The loss and the accuracy count only the decoding steps:
the paper's "average accuracy across decoding steps" (section 3.1). The
task's `encoding_length` (= `T`) is the part a write schedule governs (the
Uniform Writing interval is floor(T / (D + 1)) over the input; the memory is
written every step from `<eos>` on).

The authors' code (`thaihungle/UW-DNC`, `synthetic_task.py`) differs in two
points, both reachable here: it draws the values from 1-9 (`high=9`) and
appends `<eos>` to the output as well, so the decoding has one more step
whose target is `<eos>` (class `num_values`), counted by its loss and its
accuracy (`eos_target=True`). With both, the accuracy is theirs
(`exact_acc`: matches over `len(output) + 1` steps).
"""

import abc
import inspect

import numpy as np

from keras_rda.lab.tasks.core.task import Task
from keras_rda.lab.tasks.uw_paper.settings import PAPER_OPTIMISER
from keras_rda.utils import validation


class _DefaultBaseline:
    """`Cls.baseline`: the baseline of the class's default parameters (an
    instance's own, set in `__init__`, takes precedence)."""

    def __get__(self, instance, cls):
        return None if inspect.isabstract(cls) else cls().baseline


class UWSequenceTask(Task):
    """Base of the UW paper's discrete sequence-to-sequence tasks.

    Subclasses define `decode(values)`, the output sequence of values for an
    input `[batch, T]` of values, and `baseline_accuracy()`, the accuracy of
    the best constant prediction.

    Args:
        length: `T`, the number of input values (50 or 100 in the paper).
        low: smallest value (1 in the paper).
        high: largest value (10; 50 for the max task).
        eos_target: False (the paper) or True (the authors' code): one more
            decoding step whose target is `<eos>` (class `num_values`),
            counted by the loss and the accuracy like the others.

    Attributes:
        encoding_length: `T`, the steps during which input values arrive.
        output_length: the number of decoding steps (`len(output)`, plus 1
            with `eos_target`).
        sequence_length: `T + 1 + output_length`, all steps of an example.
        num_values: `high - low + 1`; the number of classes (plus 1, for
            `<eos>`, with `eos_target`).
    """

    output = "classification"
    per_step = True
    metric = "accuracy"
    threshold = None
    paper_steps = 10000
    seq_len_param = "length"
    # `--scale small`: a length a CPU trains in minutes; `--scale paper`:
    # section 3.1-3.2 (batches of 64, 10,000 iterations, controller Nh 100;
    # Table 1 sizes the LSTM at 125 units and DNC+CUW at 95 to match the
    # parameter counts; "we fix the learning rate and gradient clipping to
    # 0.001 and 10" for every model, the LSTM baseline included).
    scales = {"small": {"length": 20}}
    training_scales = {
        "small": {
            "steps": 500,
            "batch_size": 32,
            "units": 64,
            "eval_every": 50,
            **PAPER_OPTIMISER,
        },
        "paper": {
            "batch_size": 64,
            "units": 100,
            "model_units": {"lstm": 125, "dnc-cuw": 95},
            "eval_every": 200,
            **PAPER_OPTIMISER,
        },
    }
    baseline = _DefaultBaseline()
    default_high = 10
    min_length = 1

    def __init__(self, length=50, low=1, high=None, eos_target=False):
        if high is None:
            high = self.default_high
        self.length = validation.int_at_least("length", length, self.min_length)
        self.low = validation.int_at_least("low", low, 0)
        self.high = validation.int_at_least("high", high, 0)
        if self.high <= self.low:
            raise ValueError(
                f"Received an invalid value for argument `high`, expected an "
                f"integer > low={self.low}, got {self.high}"
            )
        self.eos_target = validation.boolean("eos_target", eos_target)
        self.num_values = self.high - self.low + 1
        self.num_classes = self.num_values + int(self.eos_target)
        self.input_dim = self.num_values + 1
        self.encoding_length = self.length
        values = self.decode(np.full((1, self.length), self.low)).shape[1]
        self.output_length = values + int(self.eos_target)
        self.sequence_length = self.length + 1 + self.output_length
        baseline = self.baseline_accuracy()
        if self.eos_target:
            # The most frequent value on the value steps, `<eos>` on the last.
            baseline = (baseline * values + 1.0) / self.output_length
        self.baseline = float(baseline)

    @abc.abstractmethod
    def decode(self, values):
        """Output values `[batch, output_length]` for input values `[batch, T]`."""

    def baseline_accuracy(self):
        """Accuracy of always predicting the most frequent output value."""
        return 1.0 / self.num_values

    def generate(self, batch_size, rng):
        batch_size = validation.positive_int("batch_size", batch_size)
        steps, eos = self.length, self.num_values
        values = rng.integers(self.low, self.high + 1, size=(batch_size, steps))
        inputs = np.zeros(
            (batch_size, self.sequence_length, self.input_dim), np.float32
        )
        rows = np.arange(batch_size)[:, None]
        inputs[rows, np.arange(steps)[None, :], values - self.low] = 1.0
        inputs[:, steps, eos] = 1.0
        targets = np.zeros((batch_size, self.sequence_length), np.int32)
        outputs = self.decode(values) - self.low
        if self.eos_target:
            outputs = np.concatenate(
                [outputs, np.full((batch_size, 1), eos, outputs.dtype)], axis=1
            )
        targets[:, steps + 1 :] = outputs
        sample_weight = np.zeros((batch_size, self.sequence_length), np.float32)
        sample_weight[:, steps + 1 :] = 1.0
        return inputs, targets, sample_weight

    def config(self):
        config = {"length": self.length, "low": self.low, "high": self.high}
        if self.eos_target:
            config["eos_target"] = True
        return config
