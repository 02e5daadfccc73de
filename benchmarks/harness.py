"""The harness every benchmark runs on: its arguments, its timing loop, its record.

A benchmark compares things by time in one process, interleaved: each call
first runs `--warmup` times untimed (tracing, compilation, caches), then
every round times one run of each call in turn (A, B, C, then again), for
`--repeats` rounds, so that the machine's load falls on all of them alike.
A result is the median of the rounds and their range (`cell`).

- `add_arguments` gives a script the shared options: `--repeats` (timed
  rounds; 7 unless a script says why not, the measuring rule of
  docs/contributing.md), `--warmup`, `--json` and, where asked, `--clock`.
- `interleaved` is the timing loop, `time_steps` the same over Keras
  models' `train_on_batch`, and `each_round` the loop of a call that times
  itself (a chunk of training steps measured between its steps' ends).
- `LAYERS`, `build_model` and `jax_gradient_step` are the recurrent layers
  the speed, cost and profile scripts compare, the training step they time
  and the gradient program they count and profile.
- `Run` writes the record: the command that reruns it (`command`), what
  the script measured, the provenance (package version, git commit,
  library versions, machine, time) and the 1-minute load average when the
  run started and when the record was written (`load_average`).

The module imports neither Keras nor the package at import time, so that
a driver that runs each backend in its own process stays light. No
benchmark imports another: what two of them share is here.
"""

import os
import statistics
import sys
import time

#: `--clock` names: elapsed time, or this process's CPU time (steadier on a
#: shared machine).
CLOCKS = {"wall": time.perf_counter, "cpu": time.process_time}


def add_arguments(parser, repeats=7, warmup=2, clock=None, json_help=None):
    """Adds `--repeats`, `--warmup`, `--json` and, with `clock` (its default,
    "wall" or "cpu"), `--clock` to `parser`; returns `parser`."""
    parser.add_argument(
        "--repeats",
        type=int,
        default=repeats,
        help=f"timed rounds, every call once per round, interleaved ({repeats})",
    )
    parser.add_argument(
        "--warmup",
        type=int,
        default=warmup,
        help=f"untimed runs of each call before the first round ({warmup})",
    )
    if clock is not None:
        parser.add_argument(
            "--clock",
            choices=list(CLOCKS),
            default=clock,
            help="wall: elapsed time; cpu: this process's CPU time (steadier "
            f"on a loaded machine) ({clock})",
        )
    parser.add_argument(
        "--json", metavar="PATH", help=json_help or "write the record here"
    )
    return parser


def each_round(calls, rounds, after_round=None):
    """What each call returns in every round, the calls interleaved.

    Args:
        calls: `{name: fn}`, each `fn()` one run of the thing measured,
            returning its measurement (e.g. seconds per step of a chunk).
        rounds: runs of each call, one per round.
        after_round: called as `after_round(rounds_done, results)` after
            every round (e.g. to write the record so far).

    Returns:
        `{name: [result, one per round]}`, in the order of `calls`.
    """
    results = {name: [] for name in calls}
    for done in range(1, rounds + 1):
        for name, fn in calls.items():
            results[name].append(fn())
        if after_round is not None:
            after_round(done, results)
    return results


def interleaved(calls, warmup, rounds, clock=time.perf_counter, synchronize=None):
    """Seconds of each call in every round, the calls interleaved.

    Args:
        calls: `{name: fn}`, each `fn()` one run of the thing timed.
        warmup: untimed runs of each call before the first round.
        rounds: timed runs of each call, one per round.
        clock: `time.perf_counter` (wall) or `time.process_time` (CPU).
        synchronize: called before and after each timed run, and after the
            warm-up (an accelerator's queue drained, e.g.
            `torch.cuda.synchronize`), so that a run's time is its own.

    Returns:
        `{name: [seconds, one per round]}`, in the order of `calls`.
    """
    sync = synchronize or (lambda: None)
    for fn in calls.values():
        for _ in range(warmup):
            fn()
    sync()

    def timed(fn):
        def run():
            sync()
            start = clock()
            fn()
            sync()
            return clock() - start

        return run

    return each_round({name: timed(fn) for name, fn in calls.items()}, rounds)


def time_steps(
    models,
    x,
    y,
    warmup,
    repeats,
    clock=time.perf_counter,
    sample_weight=None,
    extra_calls=None,
):
    """Median seconds per `train_on_batch`, models interleaved
    (`interleaved`, `warmup` untimed steps, `repeats` rounds).

    `x` is the batch of every model, or a dict with each model's own.
    `extra_calls` (`{name: fn}`) are timed in the same rounds (e.g. the
    matmul floors of `rnn_speed.py`).
    """
    inputs = x if isinstance(x, dict) else {name: x for name in models}

    def step(name, model):
        return lambda: model.train_on_batch(
            inputs[name], y, sample_weight=sample_weight
        )

    calls = {name: step(name, model) for name, model in models.items()}
    calls.update(extra_calls or {})
    times = interleaved(calls, warmup, repeats, clock=clock)
    return {name: statistics.median(t) for name, t in times.items()}


def cell(times, reference, unit):
    """A table cell: `median [min, max] unit, ratio to the reference's
    median`, of `times` (one per round, already in `unit`)."""
    median = statistics.median(times)
    return (
        f"{median:.0f} [{min(times):.0f}, {max(times):.0f}] {unit}, "
        f"{median / statistics.median(reference):.2f}x"
    )


def _keras():
    import keras

    return keras


def _keras_rda():
    import keras_rda

    return keras_rda


def _autodiff(layer):
    """The layer on Keras's loop differentiated by the backend (the reference
    the fused recurrence replaces); a no-op on versions without it."""
    layer.fused_recurrence = False
    return layer


def _torch_lstm(units, return_sequences=False):
    """`torch.nn.LSTM` (oneDNN's fused loop on a CPU) as a Keras layer (PyTorch
    backend only): the reference a PyTorch user would otherwise take."""
    import torch

    keras = _keras()

    class TorchLSTM(keras.layers.Layer):
        def build(self, input_shape):
            self.lstm = keras.layers.TorchModuleWrapper(
                torch.nn.LSTM(input_shape[-1], units, batch_first=True)
            )

        def call(self, inputs):
            outputs, _ = self.lstm(inputs)
            return outputs if return_sequences else outputs[:, -1]

        def compute_output_shape(self, input_shape):
            if return_sequences:
                return (*input_shape[:-1], units)
            return (input_shape[0], units)

    return TorchLSTM()


#: `name -> (units, **layer kwargs) -> layer`: the recurrent layers that
#: `rnn_speed.py`, `rnn_cost.py` and `rnn_profile.py` compare.
LAYERS = {
    "LSTM": lambda units, **kw: _keras().layers.LSTM(units, **kw),
    "torch.nn.LSTM": _torch_lstm,
    "ParallelRDA": lambda units, **kw: _keras_rda().ParallelRDA(units, **kw),
    "GRU": lambda units, **kw: _keras().layers.GRU(units, **kw),
    "RDA layer": lambda units, **kw: _keras_rda().RDA(units, **kw),
    "RWA layer": lambda units, **kw: _keras_rda().RWA(units, **kw),
    "RNN(RDACell)": lambda units, **kw: _keras().layers.RNN(
        _keras_rda().RDACell(units), **kw
    ),
    "RDA layer (autodiff)": lambda units, **kw: _autodiff(
        _keras_rda().RDA(units, **kw)
    ),
    "RWA layer (autodiff)": lambda units, **kw: _autodiff(
        _keras_rda().RWA(units, **kw)
    ),
}


def build_model(name, units, length, input_dim, jit, return_sequences=False):
    """`Input -> LAYERS[name] -> Dense(1)`, compiled on MSE with Adam; with
    `return_sequences` the head and the loss apply to every step (targets
    `[batch, T, 1]`)."""
    keras = _keras()
    layer = LAYERS[name](units, return_sequences=return_sequences)
    model = keras.Sequential(
        [keras.Input((length, input_dim)), layer, keras.layers.Dense(1)]
    )
    model.compile(keras.optimizers.Adam(1e-3), "mse", jit_compile=jit)
    return model


def jax_gradient_step(name, units, length, batch_size, input_dim):
    """The jitted gradient of one training step's loss and its arguments.

    The program that `rnn_cost.py` counts and `rnn_profile.py` profiles:
    `grad(loss)(trainable, x, y)` of `Input((length, input_dim)) -> layer ->
    Dense(1)` with an MSE loss, on all-ones data (JAX backend).
    """
    import jax
    import jax.numpy as jnp

    keras = _keras()
    model = keras.Sequential(
        [keras.Input((length, input_dim)), LAYERS[name](units), keras.layers.Dense(1)]
    )
    trainable = [v.value for v in model.trainable_variables]
    non_trainable = [v.value for v in model.non_trainable_variables]

    def loss(trainable, x, y):
        out, _ = model.stateless_call(trainable, non_trainable, x, training=True)
        return jnp.mean((out - y) ** 2)

    x = jnp.ones((batch_size, length, input_dim))
    y = jnp.ones((batch_size, 1))
    return jax.jit(jax.grad(loss)), (trainable, x, y)


def load_average():
    """The machine's 1-minute load average."""
    return os.getloadavg()[0]


class Run:
    """One run of a benchmark script, from its start to its record.

    Args:
        argv: the script's arguments (default: `sys.argv[1:]`), for the
            record's command.
    """

    def __init__(self, argv=None):
        self.argv = list(sys.argv[1:] if argv is None else argv)
        self.load_start = load_average()
        self.started = time.time()

    def load_average(self):
        """`[start, now]`: the 1-minute load average when the run started and
        now (this process's own load included): how quiet the machine was."""
        return [self.load_start, load_average()]

    def command(self):
        """`python benchmarks/<script>.py <argv>` with its backend, structured
        (`keras_rda.lab.reporting.provenance.script_command`)."""
        from keras_rda.lab.reporting.provenance import script_command

        return script_command(self.argv)

    def record(self, fields, command=None, provenance=True):
        """The record: `fields` (their `kind` first: the renderer of the
        record, see `keras_rda.lab.reporting.report.render`), `command`
        (structured; default: `command()`) as its one command, the
        provenance (unless `provenance` is False: a driver whose workers
        give their own) and `load_average`.

        Raises:
            ValueError: `fields` has no `kind`.
        """
        if "kind" not in fields:
            raise ValueError(f"a benchmark record needs a kind, got {sorted(fields)}")
        record = {"kind": fields["kind"], "commands": [command or self.command()]}
        record.update(fields)
        if provenance:
            from keras_rda.lab.reporting import provenance as lab_provenance

            record.update(lab_provenance.provenance())
        record["load_average"] = self.load_average()
        return record

    def write(self, path, fields, command=None, provenance=True):
        """Writes `record(fields, ...)` as JSON to `path`; returns the path."""
        from keras_rda.lab.reporting.report import write_json

        return write_json(path, self.record(fields, command, provenance))

    def write_table(self, path, table, append=False, **lists):
        """Writes a `"timing"` table record (`{"benchmark", "columns",
        "rows"}` and optionally `notes`; see
        `keras_rda.lab.reporting.report.render`)
        with `load_average`; `append` adds the rows (and `lists`) to the
        record at `path`, keeping its commands (the load average is then
        this last command's). Returns the path."""
        from keras_rda.lab.reporting.report import write_table_record

        table = {**table, "load_average": self.load_average()}
        return write_table_record(
            path, table, self.command(), append, kind="timing", **lists
        )
