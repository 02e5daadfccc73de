"""The run loop: build, compile, fit and evaluate one zoo model on a task.

Training is `model.fit`, in the strategy's scope, on the task's endless
stream of fresh batches, cut into "epochs" of `eval_every` steps so that
Keras scores the fixed held-out set every `eval_every` steps: the learning
curve (`recording`), checkpointed after each evaluation (`checkpoint`).
"""

import contextlib
import math
import warnings

from keras_rda.lab import keras_compat
from keras_rda.lab.reporting.records import json_safe
from keras_rda.lab.runs.checkpoint import fingerprint
from keras_rda.lab.runs.checkpoint import make_checkpoint_callback
from keras_rda.lab.runs.checkpoint import open_checkpoint
from keras_rda.lab.runs.recording import Clock
from keras_rda.lab.runs.recording import RunResult
from keras_rda.lab.runs.recording import make_nonfinite_stop
from keras_rda.lab.runs.recording import make_recorder
from keras_rda.lab.runs.recording import run_result
from keras_rda.lab.strategies import check_even_split
from keras_rda.lab.strategies import local_rows
from keras_rda.lab.strategies import make_strategy
from keras_rda.lab.strategies import strategy_name
from keras_rda.lab.zoo.registry import get_model_spec
from keras_rda.utils import validation


def compile_for_task(model, task, optimizer, jit_compile=False):
    """`model`, compiled with `optimizer`, the task's loss and its weighted
    metrics (with XLA where `jit_compile`). The optimizer's variables are made
    here, not in the first train step: on TensorFlow a step that creates
    variables is traced twice."""
    if jit_compile:
        warn_quadratic_keras_rnns_under_xla(model)
    model.compile(
        optimizer=optimizer,
        loss=task.loss,
        weighted_metrics=task.keras_metrics(),
        jit_compile=jit_compile,
    )
    model.optimizer.build(model.trainable_variables)
    return model


def warn_quadratic_keras_rnns_under_xla(model):
    """Warns of each Keras LSTM/GRU/SimpleRNN in `model` that returns
    sequences, on TensorFlow: under XLA they cost O(T^2) per sequence
    (`benchmarks/rnn_speed.py --return-sequences`)."""
    import keras

    if keras.backend.backend() != "tensorflow":
        return
    keras_rnns = (keras.layers.LSTM, keras.layers.GRU, keras.layers.SimpleRNN)
    for layer in model._flatten_layers(include_self=False):
        if type(layer) in keras_rnns and layer.return_sequences:
            warnings.warn(
                f"jit_compile=True: Keras's {type(layer).__name__} "
                f"'{layer.name}' returns sequences, which costs O(T^2) per "
                "sequence under TensorFlow's XLA (9x its time without XLA at "
                "T = 1000); it trains faster without XLA (drop --jit).",
                stacklevel=3,
            )


def build_model(
    model_spec, task, units, model_kwargs, optimizer_args, jit_compile, strategy
):
    """The zoo model `model_spec` for `task`, built and compiled (with
    `ModelSpec.optimizer(**optimizer_args)`) in `strategy`'s scope (a
    strategy, a name or None); its first output only, where the builder
    attaches more (e.g. attention maps for plots)."""
    import keras

    with _strategy(strategy).scope():
        model = model_spec.build(task, units=units, **(model_kwargs or {}))
        if len(model.outputs) > 1:
            model = keras.Model(model.inputs, model.outputs[0], name=model.name)
        optimizer = model_spec.optimizer(**optimizer_args)
        compile_for_task(model, task, optimizer, jit_compile)
    return model


def run_settings(model_spec, steps, eval_every, optimizer_args, **settings):
    """The settings a run records (in its `RunResult` and checkpoint).

    The zoo entry's learning rate and clip apply where `optimizer_args`
    leaves them None; `steps` is rounded up to a multiple of `eval_every`;
    `settings` are `train`'s other arguments. The keys keep the order records
    have always had.

    Raises:
        ValueError: `clipnorm` or `global_clipnorm` next to an element-wise
            clip or to each other (checked before a checkpoint directory is
            claimed for the run).
    """
    clipvalue, clipnorm = optimizer_args["clipvalue"], optimizer_args["clipnorm"]
    global_clipnorm = optimizer_args["global_clipnorm"]
    recorded = {
        "steps": max(1, math.ceil(steps / eval_every)) * eval_every,
        "batch_size": settings["batch_size"],
        "units": settings["units"],
        "eval_every": eval_every,
        "eval_examples": int(settings["eval_examples"]),
        "learning_rate": optimizer_args["learning_rate"] or model_spec.learning_rate,
        "clipvalue": clipvalue if clipvalue is not None else model_spec.clipvalue,
        "seed": settings["seed"],
        "jit_compile": bool(settings["jit_compile"]),
        "strategy": strategy_name(settings["strategy"]),
        "model_kwargs": dict(settings["model_kwargs"] or {}),
        "stop_at_threshold": bool(settings["stop_at_threshold"]),
    }
    model_spec.gradient_clip(clipvalue, clipnorm, global_clipnorm)
    # Each norm only when set, so that the checkpoints of runs made before
    # these options keep their fingerprint and still resume.
    if clipnorm:
        recorded["clipnorm"] = clipnorm
    if global_clipnorm:
        recorded["global_clipnorm"] = global_clipnorm
    return recorded


def train(
    task,
    model_name,
    *,
    steps,
    batch_size,
    units,
    eval_every,
    eval_examples,
    seed=0,
    learning_rate=None,
    clipvalue=None,
    clipnorm=None,
    global_clipnorm=None,
    jit_compile=False,
    strategy=None,
    stop_at_threshold=False,
    verbose=1,
    model_kwargs=None,
    checkpoint_dir=None,
    tensorboard_dir=None,
    diagnose=False,
):
    """Trains zoo model `model_name` on `task`; returns a `RunResult`.

    Args:
        task: a `keras_rda.lab.tasks.Task`.
        model_name: a registered zoo model.
        steps: training steps (rounded up to a multiple of `eval_every`).
        batch_size: sequences per step.
        units: recurrent units, passed to the model builder.
        eval_every: steps between held-out evaluations (and checkpoints).
        eval_examples: size of the fixed held-out set.
        seed: seeds Keras's initialisers and the training stream.
        learning_rate: overrides the zoo entry's learning rate.
        clipvalue: overrides the zoo entry's element-wise gradient clip.
        clipnorm: clip each gradient tensor's norm instead (with
            `clipvalue=0`; see `ModelSpec.optimizer`).
        global_clipnorm: clip the gradient's global norm instead (with
            `clipvalue=0`, and without `clipnorm`).
        jit_compile: compile the train step with XLA.
        strategy: a strategy from `keras_rda.lab.strategies.make_strategy`,
            or its name ("default", "data-parallel", "mirrored",
            "multi-worker" or "tpu"). `batch_size` and `eval_examples` must
            split evenly over its replicas for "data-parallel" and
            "multi-worker".
        stop_at_threshold: stop once the task's threshold is met.
        verbose: 0 silent, 1 Keras's progress bar, 2 one line per
            evaluation (for logs written to files).
        model_kwargs: extra keyword arguments for the builder.
        checkpoint_dir: where to checkpoint after every evaluation (see
            `RunCheckpoint`); a run already there, interrupted or finished,
            is resumed, and a finished run asked for more `steps` trains on
            from where it ended. None: no checkpoints.
        tensorboard_dir: where to write the curve as TensorBoard scalars.
        diagnose: also record, per evaluation, the gradient norm and the
            RWA/RDA unit's internals in the curve (keys `diag_*`, see
            `keras_rda.lab.runs.diagnostics`).

    Returns:
        A `RunResult`.

    Raises:
        CheckpointMismatch: `checkpoint_dir` holds a run with other settings,
            or one trained for more than `steps`.
        ValueError: for "data-parallel" or "multi-worker", `batch_size` or
            `eval_examples` does not split over the replicas.
    """
    import keras

    validation.int_in_range("verbose", verbose, 0, 2)
    strategy = _strategy(strategy)
    check_even_split(strategy, batch_size, eval_examples)
    spec = get_model_spec(model_name)
    optimizer_args = dict(
        learning_rate=learning_rate,
        clipvalue=clipvalue,
        clipnorm=clipnorm,
        global_clipnorm=global_clipnorm,
    )
    settings = run_settings(
        spec,
        steps,
        eval_every,
        optimizer_args,
        batch_size=batch_size,
        units=units,
        eval_examples=eval_examples,
        seed=seed,
        jit_compile=jit_compile,
        strategy=strategy,
        model_kwargs=model_kwargs,
        stop_at_threshold=stop_at_threshold,
    )
    checkpoint = open_checkpoint(
        checkpoint_dir,
        fingerprint(model_name, task, settings),
        settings["steps"],
        steps,
    )
    keras.utils.set_random_seed(seed)
    model = build_model(
        spec, task, units, model_kwargs, optimizer_args, jit_compile, strategy
    )
    finished = _finished_run(checkpoint, model, settings, strategy, verbose)
    if finished is not None:
        return finished
    prefix = f"{model_name} (seed {seed}) "
    recorder = make_recorder(
        task,
        eval_every,
        settings["steps"],
        stop_at_threshold,
        log_lines=verbose == 2,
        tensorboard_dir=tensorboard_dir,
        prefix=prefix,
    )
    with strategy.scope():
        initial_epoch, clock = _resume(checkpoint, model, recorder, eval_every, verbose)
    stop = make_nonfinite_stop(eval_every, prefix=prefix)
    callbacks = _callbacks(task, recorder, stop, checkpoint, clock, diagnose)
    with _fit_scope(strategy):
        _fit(
            model, task, settings, recorder, callbacks, initial_epoch, verbose, strategy
        )
    result = run_result(model_name, task, recorder, clock.totals(), model, settings)
    if checkpoint is not None:
        checkpoint.finish(model, json_safe(result.to_dict()))
    return result


def _strategy(strategy):
    """`strategy`, made from its name (None: "default") where it is one."""
    if strategy is None or isinstance(strategy, str):
        return make_strategy(strategy)
    return strategy


def _finished_run(checkpoint, model, settings, strategy, verbose):
    """The `RunResult` of the run `checkpoint` finished earlier (its
    weights loaded into `model`), or None where it has none to give."""
    if checkpoint is None:
        return None
    with strategy.scope():  # loading builds the optimizer's variables
        finished = checkpoint.take_finished(
            model, settings["steps"], settings["stop_at_threshold"]
        )
    if finished is None:
        return None
    if verbose:
        model_name = checkpoint.fingerprint["model"]
        print(f"{model_name}: finished earlier ({checkpoint.directory})")
    result = RunResult.from_dict(finished)
    result.keras_model = model
    return result


def _callbacks(task, recorder, stop, checkpoint, clock, diagnose):
    """The run's callbacks: the diagnostics (before the recorder, which
    keeps what they add to the logs), the recorder, `stop` (on a NaN or
    infinite loss: one line, recorded as diverged) and the checkpoints."""
    callbacks = [recorder, stop]
    if diagnose:
        from keras_rda.lab.runs.diagnostics import make_diagnostics

        callbacks.insert(0, make_diagnostics(task))
    if checkpoint is not None:
        callbacks.append(make_checkpoint_callback(checkpoint, recorder, clock))
    return callbacks


def _fit_scope(strategy):
    """Keras's data parallelism on JAX splits the batches of `model.fit`
    only inside its scope; `tf.distribute` strategies need no scope there."""
    if strategy_name(strategy) == "data-parallel":
        return strategy.scope()
    return contextlib.nullcontext()


def _resume(checkpoint, model, recorder, eval_every, verbose):
    """Restores the newest checkpoint, if any, into `model` and `recorder`;
    returns `(initial_epoch, clock)`: the intervals done (0 for a fresh run)
    and a `Clock` continuing the run's totals."""
    state = checkpoint.latest() if checkpoint is not None else None
    if state is None:
        return 0, Clock()
    checkpoint.restore(model, state)
    recorder.curve = list(state["curve"])
    recorder.steps_to_threshold = state["steps_to_threshold"]
    epoch = int(state["epoch"])
    if verbose:
        print(
            f"{checkpoint.fingerprint['model']}: resuming after step "
            f"{epoch * eval_every} ({checkpoint.directory})",
            flush=True,
        )
    return epoch, Clock(state["seconds"], state["cpu_seconds"])


def build_before_fit(model, strategy, batch):
    """Prepares `model` for `fit` under a `MultiWorkerMirroredStrategy`.

    Keras 3's `fit` on TensorFlow fails with several workers
    (keras-team/keras#20585), in two places this works around:

    - it builds the model from one batch of the distributed dataset,
      averaged eagerly over the replicas, which fails; the build needs only
      shapes and dtypes, so it is done here from `batch` (`(x, y,
      sample_weight)` of one example), and `fit`'s own is skipped;
    - it averages each step's logs over all workers along an axis 0 that
      scalars lack; every replica holds the metrics' values in full, so
      Keras's path for one worker gives the same number.
    """
    trainer = keras_compat.tensorflow_trainer()
    with strategy.scope():
        model._symbolic_build(data_batch=batch)
    model._maybe_symbolic_build = lambda iterator=None, data_batch=None: None
    trainer._collective_all_reduce_multi_worker = lambda strategy: False


def worker_rows(strategy, dataset, batch_size):
    """The global batches of `dataset` (a `tf.data.Dataset` of `(x, y,
    sample_weight)`, `batch_size` = B rows each, a multiple of the replicas)
    as a distributed dataset for `model.fit`: every worker of the
    `MultiWorkerMirroredStrategy` draws the same stream and keeps rows
    `[w * B / W, (w + 1) * B / W)`, cut into one part per local replica, so
    the replicas together see each global batch once, as one device would
    (`tf.distribute`'s own sharding cannot split a generator's stream)."""
    import tensorflow as tf

    def per_worker(context):
        workers = context.num_input_pipelines
        local = context.num_replicas_in_sync // workers
        rows = batch_size // (workers * local)

        def parts(*batch):
            mine = [
                tf.reshape(t, tf.concat([[workers, local, rows], tf.shape(t)[1:]], 0))[
                    context.input_pipeline_id
                ]
                for t in batch
            ]
            return tf.data.Dataset.from_tensor_slices(tuple(mine))

        return dataset.flat_map(parts)

    return strategy.distribute_datasets_from_function(per_worker)


def _fit(model, task, settings, recorder, callbacks, initial_epoch, verbose, strategy):
    """`model.fit` from `initial_epoch` to the run's end (nothing when the run
    is done, or stopped at its threshold already). Every replica count sees
    the same global batches; evaluation batches split over the replicas."""
    eval_every = settings["eval_every"]
    epochs = settings["steps"] // eval_every
    x_val, y_val, w_val = task.held_out(settings["eval_examples"])
    done = settings["stop_at_threshold"] and recorder.steps_to_threshold is not None
    if initial_epoch >= epochs or done:
        return
    data = task.dataset(
        settings["batch_size"], seed=settings["seed"], skip=initial_epoch * eval_every
    )
    if strategy_name(strategy) == "data-parallel":
        data = (local_rows(batch) for batch in data)
    elif strategy_name(strategy) == "multi-worker":
        data = worker_rows(strategy, data, settings["batch_size"])
        build_before_fit(model, strategy, (x_val[:1], y_val[:1], w_val[:1]))
    replicas = strategy.num_replicas_in_sync
    val_batch = min(len(y_val), max(settings["batch_size"], 100))
    model.fit(
        data,
        steps_per_epoch=eval_every,
        epochs=epochs,
        initial_epoch=initial_epoch,
        validation_data=(x_val, y_val, w_val),
        validation_batch_size=val_batch - val_batch % replicas,
        callbacks=callbacks,
        shuffle=False,
        verbose=1 if verbose == 1 else 0,
    )
