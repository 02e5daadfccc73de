"""The `Task` base class: a seeded, endless stream of batches `(inputs,
targets, sample_weight)` generated with NumPy, so that long sequences and
unlimited fresh batches cost no memory beyond one batch."""

import abc
import itertools

import numpy as np

from keras_rda.utils import validation

SCALES = ("small", "paper")

# Training settings every task starts from; a task overrides entries in its
# `training_scales`. "small" is sized for a few minutes on a laptop CPU,
# "paper" is the RDA paper's section 6.1 (250 units, batches of 100).
DEFAULT_TRAINING = {
    "small": {
        "steps": 300,
        "batch_size": 32,
        "units": 64,
        "eval_every": 25,
        "eval_examples": 200,
    },
    "paper": {
        "steps": 10000,
        "batch_size": 100,
        "units": 250,
        "eval_every": 100,
        "eval_examples": 1000,
    },
}


class Task(abc.ABC):
    """Base class of a synthetic sequence task.

    Subclasses set the class attributes below and implement `generate`.

    Class attributes:
        name: registry name, e.g. `"addition"`.
        paper: where the task comes from, e.g. `"RDA paper, section 6.3"`.
        description: one line for `keras-rda tasks`.
        output: `"regression"` (MSE loss) or `"classification"` (integer
            class targets, cross-entropy).
        per_step: True when there is a target at every time step, False
            when there is one per sequence.
        num_classes: number of classes for classification, else None.
        metric: the score reported in tables: `"mse"`, `"accuracy"` or
            `"crossentropy"`.
        baseline: the paper's naive baseline on `metric`, or None.
        threshold: `(metric, op, value)`, the paper's "solved" criterion
            (for "steps until threshold"), e.g. `("loss", "<", 0.001)`; or None.
        paper_steps: the training steps the paper reports on, or None.
        masked: True when sequences are zero-padded to a common length
            (padded steps are all-zero inputs, real steps never are, for
            `keras.layers.Masking(mask_value=0.0)`).
        learn_initial_state: True when the paper lets the units learn their
            initial state on this task.
        seq_len_param: the constructor argument `--seq-len` sets, or None.
        scales: `{"small": {...}}`, constructor arguments for `--scale
            small` (the constructor's defaults are the papers' settings).
        preset_of: for a preset (`register_preset`), the name of the task
            whose generator it runs with other defaults; else None.
        training_scales: per-scale overrides of `DEFAULT_TRAINING`
            (optionally with `learning_rate` and `clipvalue`, which then
            override the zoo model's: the paper trained every model alike).

    Instance attributes:
        input_dim: size of the last axis of `inputs`.
        output_dim: size of the model's output layer (1 for regression of
            one value, `num_classes` for classification).
    """

    name = None
    paper = ""
    description = ""
    output = "regression"
    per_step = False
    num_classes = None
    metric = "mse"
    baseline = None
    threshold = None
    paper_steps = None
    masked = False
    learn_initial_state = False
    preset_of = None
    seq_len_param = None
    scales = {}
    training_scales = {}

    input_dim = 1

    def data_source(self):
        """Which data the task reads, for a run's record: `kind` and a
        one-line `description` ("generated" here; a task backed by real data
        names its file and digest, or its download)."""
        return {"kind": "generated", "description": "generated from the seed"}

    @classmethod
    def at_scale(cls, scale="paper", **overrides):
        """The task with the parameters of `scale` (`"paper"`: the
        constructor's defaults; `"small"`: `cls.scales["small"]`), then the
        constructor arguments `overrides`."""
        validation.one_of("scale", scale, SCALES)
        kwargs = dict(cls.scales.get(scale, {}))
        kwargs.update(overrides)
        return cls(**kwargs)

    @classmethod
    def training_settings(cls, scale="paper"):
        """Steps, batch size, units and evaluation cadence for `scale`:
        `DEFAULT_TRAINING[scale]` updated with `cls.training_scales[scale]`
        (at paper scale `steps` defaults to `cls.paper_steps` when set)."""
        validation.one_of("scale", scale, SCALES)
        settings = dict(DEFAULT_TRAINING[scale])
        if scale == "paper" and cls.paper_steps:
            settings["steps"] = cls.paper_steps
        settings.update(cls.training_scales.get(scale, {}))
        return settings

    @classmethod
    def paper_params(cls):
        """The constructor's defaults: the paper's task parameters."""
        import inspect

        return {
            k: p.default
            for k, p in inspect.signature(cls.__init__).parameters.items()
            if p.default is not inspect.Parameter.empty
        }

    @property
    def output_dim(self):
        return self.num_classes if self.output == "classification" else 1

    @property
    def loss(self):
        """The Keras loss for this task (models emit logits for classes)."""
        import keras

        if self.output == "classification":
            return keras.losses.SparseCategoricalCrossentropy(from_logits=True)
        return keras.losses.MeanSquaredError()

    def keras_metrics(self):
        """The (weighted) Keras metrics of the task's scores: accuracy for
        classification, MSE for regression."""
        import keras

        if self.output == "classification":
            return [keras.metrics.SparseCategoricalAccuracy(name="accuracy")]
        return [keras.metrics.MeanSquaredError(name="mse")]

    @abc.abstractmethod
    def generate(self, batch_size, rng):
        """Draws one batch of `batch_size` sequences with the
        `numpy.random.Generator` `rng`: `(inputs, targets, sample_weight)`,
        float32 `[batch, time, input_dim]` inputs, float32 (regression) or
        int32 (classification) targets, and float32 weights shaped as the
        per-example loss (`[batch]` or `[batch, time]`), zero where a step
        must not count (padding, steps with no target)."""

    def batches(self, batch_size, seed=0):
        """An endless generator of batches drawn with `numpy` seeded by `seed`."""
        rng = np.random.default_rng(seed)
        while True:
            yield self.generate(batch_size, rng)

    def held_out(self, num_examples, seed=12345):
        """A fixed evaluation set of `num_examples` examples, drawn from a seed
        distinct from training streams (the same sequences every time)."""
        return self.generate(num_examples, np.random.default_rng(seed))

    def dataset(self, batch_size, seed=0, skip=0):
        """The endless stream `batches(batch_size, seed)` for `model.fit`, its
        first `skip` batches dropped (a resumed run sees the batches it would
        have seen): a `tf.data.Dataset` drawing them in the background on
        TensorFlow (prefetch 2), a Python generator on the other backends."""
        import keras

        skip = validation.non_negative_int("skip", skip)
        if keras.backend.backend() != "tensorflow":
            # `model.fit` takes a generator, not any iterator.
            return (
                b for b in itertools.islice(self.batches(batch_size, seed), skip, None)
            )
        import tensorflow as tf

        x, y, w = self.generate(1, np.random.default_rng(seed))

        def spec(a, width=None):
            # Batch and time may vary between batches; the inputs' width is
            # the task's own (`input_dim`), and a train step traced with it
            # known takes the loops' paths for narrow inputs.
            shape = (None,) * (a.ndim - 1) + (width if a.ndim > 1 else None,)
            return tf.TensorSpec(shape=shape, dtype=tf.as_dtype(a.dtype))

        data = tf.data.Dataset.from_generator(
            lambda: self.batches(batch_size, seed),
            output_signature=(spec(x, width=x.shape[-1]), spec(y), spec(w)),
        )
        # No autotuning: the batches come from one Python generator, so there
        # is nothing to tune, and the tuner's background thread can hold the
        # iterator's release at the end of `fit` for up to a minute.
        options = tf.data.Options()
        options.autotune.enabled = False
        return data.skip(skip).prefetch(2).with_options(options)

    def config(self):
        """The task's parameters as a dict (for JSON records)."""
        return {
            k: v
            for k, v in vars(self).items()
            if not k.startswith("_") and isinstance(v, (int, float, str, bool))
        }

    def __repr__(self):
        args = ", ".join(f"{k}={v!r}" for k, v in self.config().items())
        return f"{type(self).__name__}({args})"
