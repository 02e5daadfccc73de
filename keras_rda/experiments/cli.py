"""The `keras-rda` command line: train and compare zoo models on tasks.

    keras-rda tasks                         # what tasks exist
    keras-rda models                        # what models exist
    keras-rda train multicopy --model rda   # one model, one task
    keras-rda compare multicopy --models rda,rwa,lstm,gru

`--scale small` (the default) shortens the task and the training to a few
minutes on a laptop CPU and prints what it shortened; `--scale paper` uses
the papers' settings. Each run writes a JSON record and a learning-curve PNG
to `--out` and prints a results table.

Other modules add subcommands with `register_subcommand`:

    from keras_rda.experiments.cli import register_subcommand

    @register_subcommand("enwik8", help="character modelling on enwik8")
    def configure(parser):
        parser.add_argument(...)
        return run            # run(args) -> exit code

and list their module in `PLUGIN_MODULES` so `main` imports it.
"""

import argparse
import json
import shlex
import sys

# Modules imported by `main` before parsing; each registers subcommands.
PLUGIN_MODULES = ("keras_rda.training.cli",)

_SUBCOMMANDS = {}


def register_subcommand(name, help=""):  # noqa: A002
    """Decorator: `configure(parser) -> run` becomes `keras-rda NAME`."""

    def decorator(configure):
        _SUBCOMMANDS[name] = (help, configure)
        return configure

    return decorator


class CommandError(Exception):
    """A user error reported as one line on stderr (exit status 2)."""


def _parse_kv(items, flag):
    """`["a=1", "b=x"]` -> `{"a": 1, "b": "x"}`; values parsed as JSON when valid."""
    out = {}
    for item in items or ():
        if "=" not in item:
            raise CommandError(f"{flag} expects KEY=VALUE, got {item!r}")
        key, value = item.split("=", 1)
        try:
            out[key.replace("-", "_")] = json.loads(value)
        except json.JSONDecodeError:
            out[key.replace("-", "_")] = value
    return out


def _add_run_arguments(parser):
    parser.add_argument("task", help="task name (see `keras-rda tasks`)")
    parser.add_argument(
        "--scale",
        choices=("small", "paper"),
        default="small",
        help="small: minutes on a CPU (default); paper: the papers' settings",
    )
    parser.add_argument("--steps", type=int, help="training steps")
    parser.add_argument("--batch-size", type=int, help="sequences per step")
    parser.add_argument("--units", type=int, help="recurrent units")
    parser.add_argument(
        "--seq-len",
        type=int,
        help="the task's length parameter (e.g. sequence length T)",
    )
    parser.add_argument("--learning-rate", type=float, help="Adam learning rate")
    parser.add_argument("--eval-every", type=int, help="steps between evaluations")
    parser.add_argument("--eval-examples", type=int, help="held-out set size")
    parser.add_argument("--seed", type=int, default=0, help="random seed")
    parser.add_argument("--jit", action="store_true", help="compile with XLA")
    parser.add_argument(
        "--strategy",
        choices=("default", "mirrored"),
        default="default",
        help="tf.distribute strategy (mirrored: all local GPUs)",
    )
    parser.add_argument(
        "--until-threshold",
        action="store_true",
        help="stop a run once it meets the task's threshold",
    )
    parser.add_argument(
        "--task-arg",
        action="append",
        metavar="KEY=VALUE",
        help="extra task parameter (repeatable), e.g. --task-arg num_symbols=4",
    )
    parser.add_argument(
        "--model-arg",
        action="append",
        metavar="KEY=VALUE",
        help="extra model-builder argument (repeatable)",
    )
    parser.add_argument("--out", default="runs", help="output directory")
    parser.add_argument(
        "--verbose",
        type=int,
        choices=(0, 1, 2),
        default=1,
        help="Keras fit verbosity (1: progress bar)",
    )


def _setup(args):
    """Task and training settings from the command-line arguments."""
    from keras_rda.tasks import get_task_class

    try:
        cls = get_task_class(args.task)
    except ValueError as error:
        raise CommandError(str(error)) from None
    overrides = _parse_kv(args.task_arg, "--task-arg")
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
    for key in ("steps", "batch_size", "units", "eval_every", "eval_examples"):
        value = getattr(args, key)
        if value is not None:
            if value < 1:
                raise CommandError(
                    f"--{key.replace('_', '-')} expects a positive integer, got {value}"
                )
            settings[key] = value
    if args.learning_rate is not None:
        settings["learning_rate"] = args.learning_rate
    settings["eval_every"] = min(settings["eval_every"], settings["steps"])
    return task, settings


DEFAULT_FROM_ZOO = "the zoo model's"


def _describe(task, settings, scale):
    lines = [f"task {task!r}", f"  {task.paper}: {task.description}"]
    if scale == "small":
        paper = type(task).training_settings("paper")
        changed = [f"{k} {a} -> {b}" for k, (a, b) in type(task).shortened().items()]
        changed += [
            f"{k} {paper.get(k, DEFAULT_FROM_ZOO)} -> {settings[k]}"
            for k in ("units", "batch_size", "steps", "learning_rate")
            if paper.get(k) != settings.get(k)
        ]
        if changed:
            lines.append("  --scale small shortened: " + ", ".join(changed))
    lines.append("  training: " + ", ".join(f"{k}={v}" for k, v in settings.items()))
    return "\n".join(lines)


def _check_models(names):
    from keras_rda.experiments.zoo import get_model_spec

    for name in names:
        try:
            get_model_spec(name)
        except ValueError as error:
            raise CommandError(str(error)) from None


def _run_models(args, model_names, stem):
    from keras_rda.experiments import report
    from keras_rda.experiments.runner import train

    task, settings = _setup(args)
    _check_models(model_names)
    print(_describe(task, settings, args.scale), flush=True)
    model_kwargs = _parse_kv(args.model_arg, "--model-arg")
    results = []
    for name in model_names:
        print(f"\n== {name} on {task.name} ==", flush=True)
        results.append(
            train(
                task,
                name,
                steps=settings["steps"],
                batch_size=settings["batch_size"],
                units=settings["units"],
                eval_every=settings["eval_every"],
                eval_examples=settings["eval_examples"],
                seed=args.seed,
                learning_rate=settings.get("learning_rate"),
                jit_compile=args.jit,
                strategy=args.strategy,
                stop_at_threshold=args.until_threshold,
                verbose=args.verbose,
                model_kwargs=model_kwargs,
            )
        )
    from pathlib import Path

    out = Path(args.out)
    command = "keras-rda " + " ".join(shlex.quote(a) for a in args.argv)
    json_path = report.write_json(
        out / f"{stem}.json", report.record(results, task, args.scale, command)
    )
    png_path = report.plot_curves(results, task, out / f"{stem}.png")
    heatmaps = _memory_heatmaps(results, task, out, stem)
    print()
    print(report.results_table(results, task))
    print(f"\nWrote {json_path} and {png_path}")
    for path in heatmaps:
        print(f"Wrote {path} (memory write/read weights over time)")
    return 0


def _memory_heatmaps(results, task, out, stem):
    """For each memory model (DNC/NTM), the write and read weights over one
    held-out sequence as a heat map, like the UW paper's Figures 4-5."""
    from keras_rda.experiments import memory_plots

    paths = []
    for result in results:
        try:
            memory_plots.find_memory_layer(result.keras_model)
        except ValueError:
            continue
        inputs = task.held_out(1)[0]
        path = out / f"{task.name}-{result.model}-memory.png"
        memory_plots.save_memory_heatmap(
            result.keras_model,
            inputs,
            path,
            encoding_steps=getattr(task, "encoding_length", None),
            title=f"{result.model} on {task.name}",
        )
        paths.append(path)
    return paths


@register_subcommand("train", help="train one model on one task")
def _configure_train(parser):
    _add_run_arguments(parser)
    parser.add_argument(
        "--model", default="rda", help="zoo model (see `keras-rda models`)"
    )

    def run(args):
        return _run_models(args, [args.model], f"{args.task}-{args.model}")

    return run


@register_subcommand("compare", help="train several models on one task and compare")
def _configure_compare(parser):
    _add_run_arguments(parser)
    parser.add_argument(
        "--models",
        default="rda,rwa,lstm,gru",
        help="comma-separated zoo models (default rda,rwa,lstm,gru)",
    )

    def run(args):
        names = [m.strip() for m in args.models.split(",") if m.strip()]
        if not names:
            raise CommandError("--models names no model")
        return _run_models(args, names, f"{args.task}-compare")

    return run


@register_subcommand("tasks", help="list the registered tasks")
def _configure_tasks(parser):
    def run(args):
        from keras_rda.tasks import get_task_class
        from keras_rda.tasks import task_names

        for name in task_names():
            cls = get_task_class(name)
            print(f"{name:24s} {cls.description}  [{cls.paper}]")
        return 0

    return run


@register_subcommand("models", help="list the registered models")
def _configure_models(parser):
    def run(args):
        from keras_rda.experiments.zoo import get_model_spec
        from keras_rda.experiments.zoo import model_names

        for name in model_names():
            spec = get_model_spec(name)
            clip = (
                "none"
                if spec.clipvalue is None
                else f"[-{spec.clipvalue}, {spec.clipvalue}]"
            )
            print(
                f"{name:20s} {spec.description}  "
                f"[lr {spec.learning_rate:g}, clip {clip}; {spec.paper}]"
            )
        return 0

    return run


def build_parser():
    """The argument parser with every registered subcommand."""
    import importlib

    import keras_rda.experiments  # noqa: F401  (registers the zoo)
    import keras_rda.tasks  # noqa: F401  (registers the tasks)

    for module in PLUGIN_MODULES:
        importlib.import_module(module)
    parser = argparse.ArgumentParser(
        prog="keras-rda",
        description="Train and compare attention-based recurrent units on the "
        "papers' tasks.",
    )
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name, (help_text, configure) in _SUBCOMMANDS.items():
        sub = subparsers.add_parser(name, help=help_text, description=help_text)
        sub.set_defaults(run=configure(sub))
    return parser


def main(argv=None):
    """Entry point of the `keras-rda` console script; returns the exit code."""
    argv = list(sys.argv[1:] if argv is None else argv)
    parser = build_parser()
    args = parser.parse_args(argv)
    if getattr(args, "run", None) is None:
        parser.print_help()
        return 2
    args.argv = argv
    try:
        return args.run(args) or 0
    except CommandError as error:
        print(f"keras-rda: error: {error}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
