"""What `train` and `compare` share: their options, parsed into one
`keras_rda.lab.runs.RunSpec` that `keras_rda.lab.runs.run` runs; this
module only parses, and turns the lab's refusals into one-line errors."""

from keras_rda.lab.cli.options import CommandError
from keras_rda.lab.cli.options import checked
from keras_rda.lab.cli.options import common_options
from keras_rda.lab.cli.options import parse_int_list
from keras_rda.lab.cli.options import parse_kv
from keras_rda.lab.cli.options import positive
from keras_rda.lab.cli.options import record_command
from keras_rda.lab.cli.options import resolve_verbose
from keras_rda.utils import validation

# `keras_rda.lab.runs.spec.DEFAULT_OUT`; not imported, so that building the
# parser (`--help`) loads none of the lab.
DEFAULT_OUT = "runs"


def parent_parser():
    """The options of `train` and `compare` (common ones included)."""
    parser = common_options(
        out=f"directory for checkpoints, the PNG plots and (by default) the "
        f"JSON record (default {DEFAULT_OUT})"
    )
    parser.add_argument("task", help="task name (see `keras-rda tasks`)")
    group = parser.add_argument_group("run options")
    for add in (
        _size_options,
        _optimiser_options,
        _evaluation_options,
        _builder_options,
        _output_options,
    ):
        add(group)
    return parser


def _size_options(group):
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


def _optimiser_options(group):
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
        "--global-clipnorm",
        type=float,
        metavar="N",
        help="clip the gradient's global norm (all its tensors together) to "
        "this instead of the element-wise clip, which it replaces (Keras's "
        "global_clipnorm; not with --clipnorm)",
    )


def _evaluation_options(group):
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
        "--diagnose",
        action="store_true",
        help="also log, per evaluation, the gradient's global norm and the "
        "RWA/RDA unit's attention logits, discount and running maximum "
        "(curve keys diag_*; keras_rda.lab.runs.diagnostics)",
    )


def _builder_options(group):
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


def _output_options(group):
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


def run_models(args, model_names, comparison):
    """Runs `train`/`compare` (`comparison`) of `model_names`: one `RunSpec`,
    handed to the lab once; returns the exit code, 0."""
    from keras_rda.lab import files
    from keras_rda.lab import runs

    try:
        spec = run_spec(args, model_names, comparison)
        check_model_args(spec)
        runs.run(spec)
    except runs.StrategyUnavailable as error:
        raise CommandError(f"--strategy {args.strategy}: {error}") from None
    except runs.RunSpecError as error:
        raise CommandError(str(error)) from None
    except runs.CheckpointMismatch as error:
        raise CommandError(f"{error}; rerun with --restart to discard it") from None
    except files.DamagedFile as error:
        raise CommandError(
            f"{error}; rerun with --restart to discard this run's checkpoints "
            "and start over"
        ) from None
    except files.FolderInUse as error:
        raise CommandError(f"--out: {error}") from None
    except files.FolderUnusable as error:
        raise CommandError(f"{folder_flag(spec, error.folder)}: {error}") from None
    return 0


def check_model_args(spec):
    """`--model-arg`s, checked against every model's builder (so that the
    error names the flag; the lab checks them again when it runs).

    An unknown model is left to the lab's message.
    """
    from keras_rda.lab.zoo import get_model_spec
    from keras_rda.lab.zoo import model_names

    for name in spec.models:
        if name in model_names():
            try:
                get_model_spec(name).check_arguments(spec.model_args, "--model-arg")
            except ValueError as error:
                raise CommandError(str(error)) from None


def folder_flag(spec, folder):
    """The flag that names output folder `folder` (or a folder above it)."""
    flags = (
        ("--results-dir", spec.results_dir),
        ("--tensorboard", spec.tensorboard_dir),
        ("--out", spec.out),
    )
    for flag, path in flags:
        if path is not None and (folder == path or path in folder.parents):
            return flag
    return "--out"


def run_spec(args, model_names, comparison):
    """The `RunSpec` of a `train`/`compare` command line.

    Flags are checked here, so that an error names the flag; the lab checks
    what the flags name (tasks, models, task parameters) when it runs.
    """
    from keras_rda.lab.runs import RunSpec

    name = record_name(args)
    units, model_units = (None, None)
    if args.units is not None:
        # The flag's sizes replace the scale's, per-model ones included: a
        # plain `--units 64` sizes every model at 64.
        units, model_units = parse_units(args.units)
    return RunSpec(
        task=args.task,
        models=tuple(model_names),
        scale=args.scale,
        task_params=task_params(args),
        seeds=seeds(args),
        **positive_flags(args),
        units=units,
        model_units=model_units,
        learning_rate=checked(
            validation.positive_number,
            "--learning-rate",
            args.learning_rate,
            allow_none=True,
        ),
        **clip_flags(args),
        model_args=parse_kv(args.model_arg, "--model-arg"),
        jit_compile=args.jit,
        strategy=args.strategy,
        tpu=args.tpu,
        stop_at_threshold=args.until_threshold,
        name=name,
        comparison=comparison,
        out=args.out or DEFAULT_OUT,
        results_dir=args.results_dir,
        tensorboard_dir=args.tensorboard,
        diagnose=args.diagnose,
        restart=args.restart,
        verbose=resolve_verbose(args.verbose),
        command=record_command(args.argv),
    )


def seeds(args):
    """`--seeds`, else `(--seed,)`: distinct integers >= 0 (NumPy's seeds)."""
    if not args.seeds:
        return (checked(validation.non_negative_int, "--seed", args.seed),)
    values = parse_int_list(args.seeds, "--seeds")
    for value in values:
        checked(validation.non_negative_int, "--seeds", value)
    return tuple(values)


def task_params(args):
    """`--task-arg KEY=VALUE`s, and `--seq-len` as the task's length."""
    params = parse_kv(args.task_arg, "--task-arg")
    if args.seq_len is not None:
        from keras_rda.lab.tasks import get_task_class

        try:
            cls = get_task_class(args.task)
        except ValueError as error:
            raise CommandError(str(error)) from None
        if cls.seq_len_param is None:
            raise CommandError(
                f"task {args.task!r} has no length to set with --seq-len"
            )
        params[cls.seq_len_param] = args.seq_len
    return params


def positive_flags(args):
    """`--steps`, `--batch-size`, `--eval-every`, `--eval-examples`, checked."""
    return {
        key: positive(f"--{key.replace('_', '-')}", getattr(args, key))
        for key in ("steps", "batch_size", "eval_every", "eval_examples")
    }


def clip_flags(args):
    """`--clipvalue` (0: none), `--clipnorm` and `--global-clipnorm`, checked
    to be finite, >= 0 and > 0 (a norm replaces the clip; one norm)."""
    checked(
        validation.non_negative_number, "--clipvalue", args.clipvalue, allow_none=True
    )
    norms = {"--clipnorm": args.clipnorm, "--global-clipnorm": args.global_clipnorm}
    for flag, value in norms.items():
        checked(validation.positive_number, flag, value, allow_none=True)
        if value is not None and args.clipvalue:
            raise CommandError(
                f"{flag} {value} replaces the element-wise clip; "
                f"drop --clipvalue {args.clipvalue}"
            )
    if None not in norms.values():
        raise CommandError(
            f"--global-clipnorm {args.global_clipnorm} and --clipnorm "
            f"{args.clipnorm} are two clips; Keras takes one, drop either"
        )
    return {k: getattr(args, k) for k in ("clipvalue", "clipnorm", "global_clipnorm")}


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


def record_name(args):
    """`--name`, checked to be a plain file name, or None."""
    from keras_rda.lab.runs.spec import is_plain_name

    if args.name is not None and not is_plain_name(args.name):
        raise CommandError(
            f"--name expects a plain file name (no directory, not hidden), "
            f"e.g. classify-length-learned-state; got {args.name!r}"
        )
    return args.name
