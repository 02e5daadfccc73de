"""Training zoo models on a task: the part `train` and `compare` share.

Each run checkpoints after every evaluation under
`OUT/checkpoints/STEM/MODEL-seedSEED/` and resumes from there when the same
command is rerun, or trains on when it is rerun with more `--steps` (see
`keras_rda.lab.runs.runner.RunCheckpoint`). The
JSON record goes to `--results-dir` (default: `--out`), the learning-curve
PNG and memory heat maps to `--out`.
"""

import pathlib
import shlex
import shutil

from keras_rda.lab.cli.options import CommandError
from keras_rda.lab.cli.options import common_options
from keras_rda.lab.cli.options import parse_int_list
from keras_rda.lab.cli.options import parse_kv
from keras_rda.lab.cli.options import positive
from keras_rda.lab.cli.options import resolve_verbose
from keras_rda.lab.cli.options import strategy_from

DEFAULT_OUT = "runs"
DEFAULT_FROM_ZOO = "each model's own"


def parent_parser():
    """The options of `train` and `compare` (common ones included)."""
    parser = common_options(
        out=f"directory for checkpoints, the PNG plots and (by default) the "
        f"JSON record (default {DEFAULT_OUT})"
    )
    parser.add_argument("task", help="task name (see `keras-rda tasks`)")
    group = parser.add_argument_group("run options")
    group.add_argument(
        "--steps",
        type=int,
        help="training steps (rerun with more to extend the checkpointed runs)",
    )
    group.add_argument("--batch-size", type=int, help="sequences per step")
    group.add_argument(
        "--units",
        metavar="N[,MODEL=N...]",
        help="recurrent units; MODEL=N sets one model's, e.g. "
        "100,lstm=125,dnc-cuw=95 (the UW paper's Table 1 sizes)",
    )
    group.add_argument(
        "--seq-len",
        type=int,
        help="the task's length parameter (e.g. sequence length T)",
    )
    group.add_argument("--learning-rate", type=float, help="Adam learning rate")
    group.add_argument(
        "--clipvalue",
        type=float,
        help="element-wise gradient clip for every model (0: none); default: "
        "the task's paper's where it trains all models alike, else each model's",
    )
    group.add_argument(
        "--clipnorm",
        type=float,
        help="clip each gradient tensor's norm to this instead of the "
        "element-wise clip (which it replaces; e.g. 5, the UW authors' code)",
    )
    group.add_argument(
        "--eval-every",
        type=int,
        help="steps between evaluations; also the checkpoint interval",
    )
    group.add_argument("--eval-examples", type=int, help="held-out set size")
    group.add_argument(
        "--seeds",
        metavar="S1,S2,...",
        help="run every model once per seed (e.g. 0,1,2); the table gives the "
        "median and range over seeds; overrides --seed",
    )
    group.add_argument(
        "--until-threshold",
        action="store_true",
        help="stop a run once it meets the task's threshold",
    )
    group.add_argument(
        "--task-arg",
        action="append",
        metavar="KEY=VALUE",
        help="extra task parameter (repeatable), e.g. --task-arg num_symbols=4",
    )
    group.add_argument(
        "--model-arg",
        action="append",
        metavar="KEY=VALUE",
        help="extra model-builder argument (repeatable)",
    )
    group.add_argument(
        "--results-dir",
        metavar="DIR",
        help="where the JSON record goes (default: --out); the repository's "
        "records live in results/",
    )
    group.add_argument(
        "--name",
        metavar="NAME",
        help="name of the record, plot and checkpoints (default TASK-compare "
        "or TASK-MODEL); give a comparison run with other settings its own, "
        "e.g. classify-length-learned-state, so it neither overwrites nor "
        "resumes the default one",
    )
    group.add_argument(
        "--tensorboard",
        metavar="DIR",
        help="also write the learning curve as TensorBoard scalars, one "
        "subdirectory per run (MODEL-seedSEED)",
    )
    group.add_argument(
        "--restart",
        action="store_true",
        help="discard this command's checkpoints and start over (default: "
        "resume an interrupted run)",
    )
    return parser


def setup(args):
    """Task and training settings from the command-line arguments."""
    from keras_rda.lab.tasks import get_task_class

    try:
        cls = get_task_class(args.task)
    except ValueError as error:
        raise CommandError(str(error)) from None
    overrides = parse_kv(args.task_arg, "--task-arg")
    if args.seq_len is not None:
        if cls.seq_len_param is None:
            raise CommandError(
                f"task {args.task!r} has no length to set with --seq-len"
            )
        overrides[cls.seq_len_param] = args.seq_len
    try:
        task = cls.at_scale(args.scale, **overrides)
    except (TypeError, ValueError) as error:
        raise CommandError(str(error)) from None
    settings = cls.training_settings(args.scale)
    for key in ("steps", "batch_size", "eval_every", "eval_examples"):
        value = positive(f"--{key.replace('_', '-')}", getattr(args, key))
        if value is not None:
            settings[key] = value
    if args.units is not None:
        # The flag's sizes replace the scale's, per-model ones included: a
        # plain `--units 64` sizes every model at 64.
        units, settings["model_units"] = parse_units(args.units)
        if units is not None:
            settings["units"] = units
    if args.learning_rate is not None:
        settings["learning_rate"] = args.learning_rate
    if args.clipvalue is not None:
        if args.clipvalue < 0:
            raise CommandError(
                f"--clipvalue expects a number >= 0 (0: no clipping); "
                f"got {args.clipvalue}"
            )
        settings["clipvalue"] = args.clipvalue
    if args.clipnorm is not None:
        if args.clipnorm <= 0:
            raise CommandError(f"--clipnorm expects a number > 0; got {args.clipnorm}")
        if args.clipvalue:
            raise CommandError(
                f"--clipnorm {args.clipnorm} replaces the element-wise clip; "
                f"drop --clipvalue {args.clipvalue}"
            )
        settings["clipvalue"] = 0.0
        settings["clipnorm"] = args.clipnorm
    settings["eval_every"] = min(settings["eval_every"], settings["steps"])
    return task, settings


def parse_units(text):
    """`"100,lstm=125"` -> `(100, {"lstm": 125})`; either part may be absent."""
    units, model_units = None, {}
    for item in text.split(","):
        name, _, value = item.strip().rpartition("=")
        try:
            number = int(value)
        except ValueError:
            number = 0
        if number < 1 or (not name and "=" in item):
            raise CommandError(
                f"--units expects N or MODEL=N (N >= 1), comma-separated; "
                f"got {item.strip()!r} in {text!r}"
            )
        if name:
            model_units[name] = number
        else:
            units = number
    return units, model_units


def units_of(settings, model_name):
    """The recurrent units of `model_name`: its own size, else the common one."""
    return settings.get("model_units", {}).get(model_name, settings["units"])


def describe(task, settings, scale):
    """What will run, and where it differs from the paper's settings.

    Compares the task as built (after `--scale`, `--seq-len` and
    `--task-arg`) and the training settings with the paper's, so the line
    names what this run changes, whichever option changed it.
    """
    lines = [f"task {task!r}", f"  {task.paper}: {task.description}"]
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


def check_models(names):
    from keras_rda.lab.zoo.registry import get_model_spec

    for name in names:
        try:
            get_model_spec(name)
        except ValueError as error:
            raise CommandError(str(error)) from None


def record_name(args, default):
    """`--name`, checked to be a plain file name, else `default`."""
    name = args.name
    if name is None:
        return default
    if not name or name.startswith(".") or any(c in name for c in "/\\"):
        raise CommandError(
            f"--name expects a plain file name (no directory, not hidden), "
            f"e.g. classify-length-learned-state; got {name!r}"
        )
    return name


def run_models(args, model_names, default_stem):
    """Trains every model over every seed, writes the record, plot and table.

    The record, plot and checkpoint directory are named `--name`, else
    `default_stem`.
    """
    from keras_rda.lab.reporting import report
    from keras_rda.lab.runs.runner import CheckpointMismatch
    from keras_rda.lab.runs.runner import train

    stem = record_name(args, default_stem)
    task, settings = setup(args)
    check_models(model_names)
    check_models(settings.get("model_units", {}))
    seeds = parse_int_list(args.seeds, "--seeds") if args.seeds else [args.seed]
    verbose = resolve_verbose(args.verbose)
    out = pathlib.Path(args.out or DEFAULT_OUT)
    results_dir = pathlib.Path(args.results_dir) if args.results_dir else out
    model_kwargs = parse_kv(args.model_arg, "--model-arg")
    strategy = strategy_from(args)
    print(describe(task, settings, args.scale), flush=True)
    results = []
    for name in model_names:
        for seed in seeds:
            run_name = f"{name}-seed{seed}"
            checkpoint_dir = out / "checkpoints" / stem / run_name
            if args.restart:
                shutil.rmtree(checkpoint_dir, ignore_errors=True)
            if verbose:
                print(f"\n== {name} on {task.name}, seed {seed} ==", flush=True)
            try:
                result = train(
                    task,
                    name,
                    steps=settings["steps"],
                    batch_size=settings["batch_size"],
                    units=units_of(settings, name),
                    eval_every=settings["eval_every"],
                    eval_examples=settings["eval_examples"],
                    seed=seed,
                    learning_rate=settings.get("learning_rate"),
                    clipvalue=settings.get("clipvalue"),
                    clipnorm=settings.get("clipnorm"),
                    jit_compile=args.jit,
                    strategy=strategy,
                    stop_at_threshold=args.until_threshold,
                    verbose=verbose,
                    model_kwargs=model_kwargs,
                    checkpoint_dir=checkpoint_dir,
                    tensorboard_dir=(
                        pathlib.Path(args.tensorboard) / run_name
                        if args.tensorboard
                        else None
                    ),
                )
            except CheckpointMismatch as error:
                raise CommandError(
                    f"{error}; rerun with --restart to discard it"
                ) from None
            results.append(result)
    command = "keras-rda " + " ".join(shlex.quote(a) for a in args.argv)
    data = report.record(results, task, args.scale, command)
    json_path = report.write_json(results_dir / f"{stem}.json", data)
    png_path = report.plot_curves(data, out / f"{stem}.png")
    heatmaps = memory_heatmaps(results, task, out, prefix=args.name or task.name)
    print()
    print(report.results_table(data))
    print(f"\nWrote {json_path} and {png_path}")
    for path in heatmaps:
        print(f"Wrote {path} (memory write/read weights over time)")
    return 0


def memory_heatmaps(results, task, out, prefix):
    """For each memory model (DNC/NTM), its first seed's write and read
    weights over one held-out sequence as a heat map, like the UW paper's
    Figures 4-5, saved as `out/PREFIX-MODEL-memory.png`."""
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
