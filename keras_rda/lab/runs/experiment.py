"""`run(spec)`: every run of a `RunSpec`, then its record, plots and table.

Each run (one model, one seed) checkpoints under its
`RunSpec.checkpoint_dir` and resumes there. Under `multi-worker` (and on
several JAX hosts) only the chief writes; every other worker trains alike in
a temporary folder that starts with a copy of the chief's checkpoints.
"""

import dataclasses
import pathlib
import shutil
import tempfile

from keras_rda.lab.files import FolderLock
from keras_rda.lab.files import check_folder
from keras_rda.lab.files import make_folder
from keras_rda.lab.reporting import report
from keras_rda.lab.runs.run_loop import train
from keras_rda.lab.runs.spec import RunSpecError
from keras_rda.lab.runs.spec import StrategyUnavailable
from keras_rda.lab.strategies import check_even_split
from keras_rda.lab.strategies import error_line
from keras_rda.lab.strategies import is_chief
from keras_rda.lab.strategies import make_strategy
from keras_rda.lab.zoo.registry import get_model_spec

DEFAULT_FROM_ZOO = "each model's own"


def run(spec):
    """Trains every model of the `RunSpec` over every seed (`train`, resuming
    its checkpoint), then writes the record, the plot and the memory models'
    heat maps and prints the table; returns the `RunResult`s, in
    `spec.runs()` order.

    Raises:
        RunSpecError: an unknown task or model, task parameters the task
            refuses or model arguments a model does not take;
            `StrategyUnavailable` (a `RunSpecError`) when the strategy
            cannot be made. Nothing but the output folders is written
            before either.
        keras_rda.lab.files.FolderInUse: another run writes in `spec.out`.
        keras_rda.lab.files.FolderUnusable: an output folder cannot be
            made.
        CheckpointMismatch: a run's checkpoint directory holds a run with
            other settings, or a longer one.
        keras_rda.lab.files.DamagedFile: a file of a run's checkpoint is
            damaged or missing (`restart` discards them).
    """
    task, settings = resolve(spec)
    check_folder(spec.out)  # before the strategy loads a backend
    strategy = _make_strategy(spec, settings)
    if not is_chief(strategy):
        return _run_as_worker(spec, task, settings, strategy)
    return _run_all(spec, task, settings, strategy)


def _run_all(spec, task, settings, strategy):
    """`run` after its checks: every run of `spec`, then the outputs."""
    owner = " ".join(spec.command["argv"]) if spec.command else ""
    with FolderLock(spec.out, owner=owner):
        for folder in (spec.record_path.parent, spec.tensorboard_dir):
            if folder is not None:
                make_folder(folder)
        print(describe(task, settings, spec.scale), flush=True)
        results = [
            _train_one(spec, task, settings, strategy, model, seed)
            for model, seed in spec.runs()
        ]
        write_outputs(spec, task, results)
    return results


def resolve(spec):
    """`(task, spec.training_settings())` of `spec`, its model names and
    model arguments checked.

    Raises:
        RunSpecError: with the task registry's, the task's or the zoo's
            message.
    """
    try:
        task = spec.make_task()
        settings = spec.training_settings()
        for name in (*spec.models, *settings.get("model_units", {})):
            get_model_spec(name)
        for name in spec.models:
            get_model_spec(name).check_arguments(spec.model_args)
    except (TypeError, ValueError) as error:
        raise RunSpecError(str(error)) from None
    return task, settings


def _make_strategy(spec, settings):
    """`spec`'s strategy, made once for all its runs, and checked against
    its batch sizes ("data-parallel" and "multi-worker" split them evenly
    over the replicas)."""
    try:
        strategy = make_strategy(spec.strategy, tpu=spec.tpu)
    except ValueError as error:
        raise StrategyUnavailable(str(error)) from None
    except Exception as error:  # noqa: BLE001  (TPU resolvers raise many kinds)
        raise StrategyUnavailable(error_line(error)) from None
    try:
        check_even_split(strategy, settings["batch_size"], settings["eval_examples"])
    except ValueError as error:
        raise StrategyUnavailable(str(error)) from None
    return strategy


def _run_as_worker(spec, task, settings, strategy):
    """`run` on a worker other than the chief: the same runs (the collective
    steps need every worker), written into a temporary folder that starts
    with a copy of the chief's checkpoints (TensorFlow's multi-worker
    recommendation; the chief's `--out` must be readable here, as it is on
    one machine or a shared file system)."""
    with tempfile.TemporaryDirectory(prefix="keras-rda-worker-") as folder:
        folder = pathlib.Path(folder)
        worker_spec = dataclasses.replace(
            spec,
            out=folder,
            results_dir=None,
            tensorboard_dir=folder / "tensorboard" if spec.tensorboard_dir else None,
        )
        for model, seed in spec.runs():
            chief_dir = spec.checkpoint_dir(model, seed)
            if chief_dir.is_dir() and not spec.restart:
                shutil.copytree(chief_dir, worker_spec.checkpoint_dir(model, seed))
        return _run_all(worker_spec, task, settings, strategy)


def units_of(settings, model_name):
    """The recurrent units of `model_name`: its own size, else the common one."""
    return settings.get("model_units", {}).get(model_name, settings["units"])


def _train_one(spec, task, settings, strategy, model, seed):
    """One run of `spec`: `model` with `seed`, checkpointed in its directory."""
    checkpoint_dir = spec.checkpoint_dir(model, seed)
    if spec.restart:
        shutil.rmtree(checkpoint_dir, ignore_errors=True)
    if spec.verbose:
        print(f"\n== {model} on {task.name}, seed {seed} ==", flush=True)
    return train(
        task,
        model,
        steps=settings["steps"],
        batch_size=settings["batch_size"],
        units=units_of(settings, model),
        eval_every=settings["eval_every"],
        eval_examples=settings["eval_examples"],
        seed=seed,
        learning_rate=settings.get("learning_rate"),
        clipvalue=settings.get("clipvalue"),
        clipnorm=settings.get("clipnorm"),
        global_clipnorm=settings.get("global_clipnorm"),
        jit_compile=spec.jit_compile,
        strategy=strategy,
        stop_at_threshold=spec.stop_at_threshold,
        verbose=spec.verbose,
        model_kwargs=spec.model_args,
        checkpoint_dir=checkpoint_dir,
        tensorboard_dir=spec.tensorboard_run_dir(model, seed),
        diagnose=spec.diagnose,
    )


def write_outputs(spec, task, results):
    """Writes the record, plot and heat maps of `spec`'s `results`, prints the
    table and returns the paths written (the record, the plot, the maps)."""
    data = report.record(results, task, spec.scale, spec.command)
    json_path = report.write_json(spec.record_path, data)
    png_path = report.plot_curves(data, spec.plot_path)
    heatmaps = memory_heatmaps(results, task, spec.out, spec.name or task.name)
    print()
    print(report.results_table(data))
    print(f"\nWrote {json_path} and {png_path}")
    for path in heatmaps:
        print(f"Wrote {path} (memory write/read weights over time)")
    return [json_path, png_path, *heatmaps]


def describe(task, settings, scale):
    """Lines of text: the task (as built), its paper, the data it reads, what
    differs from the paper's task parameters and training settings (whichever
    setting changed it, starting from `scale`), and the `settings`."""
    lines = [
        f"task {task!r}",
        f"  {task.paper}: {task.description}",
        f"  data: {task.data_source()['description']}",
    ]
    paper_task = type(task).paper_params()
    changed = [
        f"{k} {paper_task[k]} -> {v}"
        for k, v in task.config().items()
        if k in paper_task and paper_task[k] != v
    ]
    paper = type(task).training_settings("paper")
    changed += [
        f"{k} {paper.get(k, DEFAULT_FROM_ZOO)} -> {settings.get(k, DEFAULT_FROM_ZOO)}"
        for k in ("units", "batch_size", "steps", "learning_rate", "clipvalue")
        if paper.get(k) != settings.get(k)
    ]
    if changed:
        lines.append(
            f"  differs from the paper (--scale {scale}): " + ", ".join(changed)
        )
    lines.append("  training: " + ", ".join(f"{k}={v}" for k, v in settings.items()))
    return "\n".join(lines)


def memory_heatmaps(results, task, out, prefix):
    """For each memory model (DNC/NTM), its first seed's write and read
    weights over one held-out sequence as a heat map, like the UW paper's
    Figures 4-5, saved as `out/PREFIX-MODEL-memory.png`.

    Returns:
        The paths written.
    """
    from keras_rda.lab.reporting import memory_plots

    paths, seen = [], set()
    for result in results:
        if result.model in seen:
            continue
        seen.add(result.model)
        try:
            memory_plots.find_memory_layer(result.keras_model)
        except ValueError:
            continue
        inputs = task.held_out(1)[0]
        path = out / f"{prefix}-{result.model}-memory.png"
        memory_plots.save_memory_heatmap(
            result.keras_model,
            inputs,
            path,
            encoding_steps=getattr(task, "encoding_length", None),
            title=f"{result.model} on {task.name}",
        )
        paths.append(path)
    return paths
