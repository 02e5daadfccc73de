"""Zoo entries of the UW paper: DNC and NTM with the four write schedules
("dnc", "dnc-uw", "dnc-cuw", "dnc-rw", "ntm", "ntm-uw"). The random policy
of "dnc-rw" is drawn from the model argument `seed` (`--model-arg seed=N`),
not from the run's seed; the paper averages three policies.

Sizes of Table 1 (Le, Tran & Venkatesh 2019, section 3.2): an LSTM
controller with `Nh = 100` units (`units`), D = 4 memory slots, CUW cache
L = 5, Adam with learning rate 1e-3 and gradient clipping 10, batches of 64.
The paper does not state the word size or the number of read heads; one read
head of 64-wide words is what reproduces its parameter counts: the NTM
entry has 99,118 parameters on the copy task against Table 1's 99,112, the
DNC 98,714 against 98,840. (Table 1 also gives DNC+CUW a 95-unit controller
to match the parameter count; pass `units=95` for that.)

The schedules govern the task's encoding part only: the interval of UW is
`floor(T / (D + 1))` with `T = task.encoding_length` (10 for T = 50 and
D = 4), RW writes with probability (D + 1) / T there, and from step T + 1 on
(the `<eos>` step and the decoding) every schedule accesses memory every
step, as the paper does while decoding (Appendix J). Tasks without an
`encoding_length` are governed over their whole `sequence_length`.

The output `y_t = W_y [o_t, r_t] + b_y` is the model's output (logits for
classification), as in the DNC.
"""

import importlib

from keras_rda.lab.zoo.registry import register_model
from keras_rda.utils import validation

UW_PAPER = "UW paper (Le, Tran & Venkatesh 2019), section 3.2 and Table 1"
MEMORY_SIZE = 4
WORD_SIZE = 64
NUM_READ_HEADS = 1
CACHE_SIZE = 5
CONTROLLER_UNITS = 100
_TRAINING = dict(learning_rate=1e-3, clipvalue=10.0, batch_size=64, units=100)

# Controller name -> (module, cell class); the classes are imported when a
# model is built, so that registering the zoo imports no backend.
_CONTROLLERS = {
    "lstm": ("keras.layers", "LSTMCell"),
    "gru": ("keras.layers", "GRUCell"),
    "rnn": ("keras.layers", "SimpleRNNCell"),
    # The UW authors' code's default controller (see docs/papers/uw.md).
    "lstm_ln": ("keras_rda.cells", "LayerNormLSTMCell"),
}


def controller_cell(name, units):
    """The controller cell `name` (a key of `_CONTROLLERS`) of `units` units."""
    module, cls = _CONTROLLERS[name]
    return getattr(importlib.import_module(module), cls)(units, name="controller")


def governed_length(task, sequence_length=None):
    """`T` of eq. 8: `sequence_length`, else the task's encoding length, else
    its whole length (`ValueError` where it has neither)."""
    if sequence_length is not None:
        return sequence_length
    for attribute in ("encoding_length", "sequence_length"):
        value = getattr(task, attribute, None)
        if value:
            return int(value)
    raise ValueError(
        f"Received an invalid value for argument `task`, expected a task with "
        f"an `encoding_length` or `sequence_length` (or pass "
        f"`sequence_length=`), got {task!r}"
    )


def make_schedule(
    kind, task, sequence_length=None, encoding_steps=None, cache_size=CACHE_SIZE, seed=0
):
    """The write schedule `kind` ("regular", "uniform", "cached_uniform",
    "random") for `task`, governing its encoding part (the registry
    `keras_rda.memory.get_write_schedule` picks the arguments it takes)."""
    from keras_rda.memory import SCHEDULES
    from keras_rda.memory import get_write_schedule

    validation.one_of("kind", kind, tuple(SCHEDULES))
    if kind == "regular":
        return get_write_schedule(kind)
    length = governed_length(task, sequence_length)
    return get_write_schedule(
        kind,
        drop_unused=True,
        sequence_length=length,
        encoding_steps=length if encoding_steps is None else encoding_steps,
        cache_size=cache_size,
        seed=seed,
    )


def memory_model(
    task,
    memory,
    schedule,
    units=CONTROLLER_UNITS,
    memory_size=MEMORY_SIZE,
    word_size=WORD_SIZE,
    num_read_heads=NUM_READ_HEADS,
    controller="lstm",
    cache_size=CACHE_SIZE,
    sequence_length=None,
    encoding_steps=None,
    seed=0,
    clip_value=None,
    kernel_initializer="glorot_uniform",
    bias_initializer="zeros",
    loop_intervals=False,
    name=None,
):
    """A DNC or NTM over the task's inputs, with the task's output head.

    Args:
        task: a `keras_rda.lab.tasks.Task`.
        memory: `"dnc"` or `"ntm"`.
        schedule: `"regular"`, `"uniform"`, `"cached_uniform"` or `"random"`.
        units: controller units (`Nh`).
        memory_size: memory slots `D`.
        word_size: slot width.
        num_read_heads: read heads.
        controller: `"lstm"`, `"gru"`, `"rnn"` or `"lstm_ln"`
            (`keras_rda.LayerNormLSTMCell`), or a Keras RNN cell.
        cache_size: CUW cache size `L`.
        sequence_length: `T` of eq. 8; default `task.encoding_length`.
        encoding_steps: steps the schedule governs; default `T`.
        seed: seed of the random writing policy.
        clip_value: clip of the interface vector and the output (the
            memory cell's `clip_value`; the UW authors' code uses 20).
        kernel_initializer: initializer of the interface, output and
            cache weights (the memory cell's); any `keras.initializers.get`
            value. The UW authors' code draws the interface and output
            weights from N(0, 0.1^2): on the command line
            `--model-arg 'kernel_initializer={"class_name": "RandomNormal",
            "config": {"stddev": 0.1}}'`.
        bias_initializer: initializer of the interface and output biases
            (the authors' code has none; zeros, the default, starts the
            same).
        loop_intervals: the layer's `loop_intervals`: one loop over the
            equal write intervals, so one memory access in the compiled
            program (`--model-arg loop_intervals=true`); it shortens
            compilation under XLA (`benchmarks/memory_speed.py --models
            "DNC+UW intervals"` measures it).
        name: model name.

    Returns:
        An uncompiled `keras.Model`, `[batch, time, task.input_dim]` to
        `[batch, (time,) task.output_dim]`.
    """
    if isinstance(controller, str):
        if controller not in _CONTROLLERS:
            raise ValueError(
                "Received an invalid value for argument `controller`, expected "
                f"one of {', '.join(_CONTROLLERS)} or a Keras RNN cell, got "
                f"{controller!r}"
            )
        controller = controller_cell(controller, units)
    write_schedule = make_schedule(
        schedule, task, sequence_length, encoding_steps, cache_size, seed
    )
    import keras

    from keras_rda.memory import DNC
    from keras_rda.memory import NTM

    # A fixed length declared here lets the layer take its static schedule
    # path (no conditional; compiles with XLA) on `tf.data` batches too.
    masked = getattr(task, "masked", False)
    length = None if masked else getattr(task, "sequence_length", None)
    inputs = keras.Input((length, task.input_dim), name="inputs")
    features = inputs
    if masked:
        features = keras.layers.Masking(mask_value=0.0, name="padding_mask")(features)
    layer_class = {"dnc": DNC, "ntm": NTM}[memory]
    outputs = layer_class(
        controller,
        memory_size=memory_size,
        word_size=word_size,
        num_read_heads=num_read_heads,
        write_schedule=write_schedule,
        output_units=task.output_dim,
        clip_value=clip_value,
        kernel_initializer=kernel_initializer,
        bias_initializer=bias_initializer,
        loop_intervals=loop_intervals,
        return_sequences=task.per_step,
        name=memory,
    )(features)
    return keras.Model(inputs, outputs, name=name or memory)


def _entry(name, memory, schedule, description):
    @register_model(
        name,
        description=description,
        paper=UW_PAPER,
        passes_to=lambda: memory_model,
        fixed=("memory", "schedule", "name"),
        **_TRAINING,
    )
    def build(task, units=CONTROLLER_UNITS, **kwargs):
        return memory_model(
            task,
            memory,
            schedule,
            units=units,
            name=name.replace("-", "_"),
            **kwargs,
        )

    build.__name__ = "build_" + name.replace("-", "_")
    build.__doc__ = description
    return build


build_dnc = _entry("dnc", "dnc", "regular", "DNC, regular writing (LSTM 100, 4 slots)")
build_dnc_uw = _entry(
    "dnc-uw", "dnc", "uniform", "DNC + Uniform Writing, interval floor(T/(D+1))"
)
build_dnc_cuw = _entry(
    "dnc-cuw", "dnc", "cached_uniform", "DNC + Cached Uniform Writing, cache 5"
)
build_dnc_rw = _entry(
    "dnc-rw", "dnc", "random", "DNC + random writing, p = (D+1)/T (RW baseline)"
)
build_ntm = _entry("ntm", "ntm", "regular", "NTM, regular writing (LSTM 100, 4 slots)")
build_ntm_uw = _entry(
    "ntm-uw", "ntm", "uniform", "NTM + Uniform Writing, interval floor(T/(D+1))"
)
