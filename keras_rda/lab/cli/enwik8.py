"""`keras-rda enwik8`: character-level enwik8 with the XLA truncated-BPTT loop.

On TensorFlow (`tf.function` under `tf.distribute`) or JAX (`jax.jit`
through Keras's stateless API), as `KERAS_BACKEND` says.

    keras-rda enwik8 [--data PATH] [--scale small|paper|tiny] [--model M]
                     [--steps N] [--strategy S] [--out DIR]

`--strategy`: default, mirrored or tpu on TensorFlow; default or
data-parallel on JAX. The loop runs on one host: multi-worker (and JAX on
several hosts) is a one-line error.

Rerunning the same command after an interruption (Ctrl-C, SIGTERM, a
preempted VM) resumes from the checkpoint in `--out`; `--restart` discards
it and starts over. One run at a time writes in an `--out`. The loop always
compiles with XLA, so there is no `--jit`. Old spellings still accepted:
`--preset` (now `--scale`), `--bptt` (now `--seq-len`), `--quiet` (now
`--verbose 0`). Also runnable as `python -m keras_rda.lab.enwik8 ...`.
"""

import argparse
import pathlib
import shlex

from keras_rda.lab.cli.options import EXIT_INTERRUPTED
from keras_rda.lab.cli.options import CommandError
from keras_rda.lab.cli.options import checked
from keras_rda.lab.cli.options import common_options
from keras_rda.lab.cli.options import deprecated_alias
from keras_rda.lab.cli.options import positive
from keras_rda.lab.cli.options import record_command
from keras_rda.lab.cli.options import resolve_verbose
from keras_rda.lab.cli.options import strategy_from
from keras_rda.lab.enwik8.char_model import MODELS
from keras_rda.lab.enwik8.presets import DEFAULT_PRESET
from keras_rda.lab.enwik8.presets import PRESETS
from keras_rda.lab.files import DamagedFile
from keras_rda.lab.files import FolderInUse
from keras_rda.lab.files import FolderLock
from keras_rda.lab.files import FolderUnusable
from keras_rda.lab.files import make_folder
from keras_rda.lab.files import read_json
from keras_rda.utils import validation

NAME = "enwik8"
HELP = "character-level enwik8 with the XLA truncated-BPTT loop"
DESCRIPTION = __doc__
SCALES = tuple(PRESETS)


def parent_parser():
    return common_options(
        scales=SCALES,
        default_scale=DEFAULT_PRESET,
        out="output directory: checkpoints, TensorBoard, results (default "
        "runs/enwik8-MODEL-SCALE)",
        jit=False,
    )


PARENTS = (parent_parser,)


def configure(parser):
    """Adds the enwik8 options; returns its `run(args)`."""
    parser.formatter_class = argparse.RawDescriptionHelpFormatter
    parser.add_argument(
        "--data",
        default=None,
        help="enwik8.zip, the unzipped enwik8 (or a prefix such as enwik6), or "
        "a directory holding one; default: $KERAS_RDA_DATA_DIR, else download",
    )
    parser.add_argument(
        "--model",
        default="rda",
        choices=MODELS,
        help="recurrent unit, built by the model zoo (default rda)",
    )
    parser.add_argument(
        "--steps",
        type=int,
        default=None,
        help="total training steps (default: the scale's)",
    )
    parser.add_argument("--units", type=int, default=None, help="recurrent units")
    parser.add_argument(
        "--seq-len",
        type=int,
        default=None,
        help="truncated-BPTT segment length (1800-unit paper setting: 250)",
    )
    parser.add_argument(
        "--batch-size", type=int, default=None, help="the global batch size"
    )
    parser.add_argument(
        "--learning-rate", type=float, default=None, help="Adam learning rate"
    )
    parser.add_argument(
        "--eval-every",
        type=int,
        default=None,
        help="steps between validation evaluations (default: the scale's)",
    )
    parser.add_argument(
        "--checkpoint-every",
        type=int,
        default=None,
        help="steps between checkpoints (default: the scale's)",
    )
    parser.add_argument(
        "--results-dir",
        metavar="DIR",
        help="also add the finished run to the record DIR/enwik8-SCALE.json "
        "(one record per scale, one run per model, a rerun replaces its "
        "model's run); the repository's records live in results/",
    )
    parser.add_argument(
        "--restart",
        action="store_true",
        help="discard the run in --out (checkpoints, logs, results) and start "
        "over (default: resume it)",
    )
    deprecated_alias(parser, "--preset", "scale", "--scale", choices=SCALES)
    deprecated_alias(parser, "--bptt", "seq_len", "--seq-len", type=int)
    deprecated_alias(parser, "--quiet", "verbose", "--verbose 0", const=0)
    return run


def run(args):
    """Runs the enwik8 command; returns the process exit code.

    The flags and the data are checked before the backend is imported.
    """
    preset = _preset(args)
    checked(validation.non_negative_int, "--seed", args.seed)
    if args.strategy == "multi-worker":
        raise CommandError(
            "--strategy multi-worker: the enwik8 loop runs on one host; use "
            "default, mirrored or tpu on TensorFlow, default or data-parallel on JAX"
        )
    out = args.out or f"runs/enwik8-{args.model}-{args.scale}"
    data = _load(args.data)
    _check_backend()
    _check_record(args)
    try:
        with FolderLock(out, owner=_command(args)):
            return _run_locked(args, data, preset, out)
    except (FolderInUse, FolderUnusable) as error:
        raise CommandError(f"--out: {error}") from None


def _run_locked(args, data, preset, out):
    """The run, once it holds `out`'s lock; returns the exit code."""
    if args.restart:
        from keras_rda.lab.enwik8.checkpointing import discard

        discard(out)
    strategy = strategy_from(args)
    # The trainer's verbose 2 is a progress bar drawn once, at the end.
    verbose = resolve_verbose(args.verbose)
    if verbose:
        print(_plan(args, data, preset, strategy, out), flush=True)
    trainer = _trainer(args, data, out, preset, strategy, verbose)
    result = trainer.train()
    if result["interrupted"]:
        return EXIT_INTERRUPTED
    print(
        f"{args.model}: valid BPC {result['valid_bpc']:.4f}, "
        f"test BPC {result['test_bpc']:.4f} after {result['step']} steps"
    )
    if args.results_dir:
        try:
            record = _add_to_record(args, data, out, trainer)
        except DamagedFile as error:
            raise CommandError(
                f"{error}; repair or remove it, then rerun the same command to "
                f"add the finished run in {out} to it"
            ) from None
        print(f"record: {record}")
    return 0


def _check_backend():
    """A one-line error unless Keras runs on a backend the loop supports."""
    import keras

    from keras_rda.lab.enwik8.enwik8_trainer import BACKENDS

    if keras.backend.backend() not in BACKENDS:
        raise CommandError(
            f"enwik8 runs on the backends {', '.join(BACKENDS)}, not on "
            f"KERAS_BACKEND={keras.backend.backend()}"
        )


def _record_path(args):
    """`--results-dir`/enwik8-SCALE.json, the record a finished run joins."""
    return pathlib.Path(args.results_dir) / f"enwik8-{args.scale}.json"


def _check_record(args):
    """Makes `--results-dir` and reads the record there, if any, before
    training, so that neither fails after it (a one-line error)."""
    if not args.results_dir:
        return
    try:
        make_folder(args.results_dir)
        if _record_path(args).exists():
            read_json(_record_path(args))
    except (FolderUnusable, DamagedFile) as error:
        raise CommandError(f"--results-dir: {error}") from None


def _preset(args):
    """The scale's preset with the size and cadence flags, checked."""
    from keras_rda.lab.enwik8.presets import get_preset

    flags = (
        "steps",
        "units",
        "seq_len",
        "batch_size",
        "eval_every",
        "checkpoint_every",
    )
    fields = {"seq_len": "bptt"}  # a flag's preset field, where it is another
    overrides = {
        fields.get(flag, flag): positive(
            f"--{flag.replace('_', '-')}", getattr(args, flag)
        )
        for flag in flags
    }
    overrides["learning_rate"] = checked(
        validation.positive_number,
        "--learning-rate",
        args.learning_rate,
        allow_none=True,
    )
    return get_preset(args.scale, **overrides)


def _load(path):
    """enwik8 from `--data` (or its default), a one-line error if unreadable."""
    from keras_rda.lab.datasets.enwik8 import enwik8

    try:
        return enwik8(path)
    except (OSError, ValueError) as error:
        raise CommandError(f"--data: {error}") from None


def _plan(args, data, preset, strategy, out):
    """One line: the data, the model and where the output goes."""
    return (
        f"enwik8 from {data.path}: {len(data.train):,} / {len(data.valid):,} / "
        f"{len(data.test):,} train/valid/test bytes, vocabulary "
        f"{data.vocab_size}; model {args.model} ({preset.units} units, bptt "
        f"{preset.bptt}, batch {preset.batch_size}) on "
        f"{strategy.num_replicas_in_sync} replica(s); output in {out}"
    )


def _trainer(args, data, out, preset, strategy, verbose):
    """The `Enwik8Trainer`; a checkpoint of another run in `out`, or one
    that is damaged, is a one-line error."""
    from keras_rda.lab.enwik8.enwik8_trainer import Enwik8Trainer

    try:
        return Enwik8Trainer(
            data,
            out,
            model=args.model,
            preset=preset,
            strategy=strategy,
            seed=args.seed,
            verbose=verbose,
        )
    except DamagedFile as error:
        raise CommandError(
            f"{error}; rerun with --restart to discard the run in {out} and start over"
        ) from None
    except ValueError as error:
        raise CommandError(str(error)) from None


def _command(args):
    """The command line as typed (for the lock file)."""
    return "keras-rda " + " ".join(shlex.quote(a) for a in args.argv)


def _add_to_record(args, data, out, trainer):
    """Adds the finished run to `--results-dir`/enwik8-SCALE.json; returns
    the record's path."""
    from keras_rda.lab.reporting import report

    return report.add_enwik8_run(
        _record_path(args),
        {
            # The trainer's `results.json`: the result, model and preset.
            **read_json(pathlib.Path(out) / "results.json"),
            "command": record_command(args.argv),
            "seed": args.seed,
            "data": pathlib.Path(data.path).name,
            "history": trainer.history(),
        },
    )
