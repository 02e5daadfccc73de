"""What the subcommands share: the common options of every subcommand that
trains (`common_options`), one-line errors, helpers."""

import argparse
import json
import os
import sys

from keras_rda.lab.strategies import STRATEGIES
from keras_rda.utils import validation

EXIT_USAGE = 2
EXIT_INTERRUPTED = 130
# Options that say where a run's outputs go, not what it measures: a
# record's command leaves them out (a page names the record's own place).
SCRATCH_OPTIONS = ("--out", "--verbose", "--tensorboard", "--results-dir", "--name")


class CommandError(Exception):
    """A user error reported as one line on stderr (exit status 2)."""


class Parser(argparse.ArgumentParser):
    """An `ArgumentParser` whose usage errors are one line on stderr (exit 2)."""

    def error(self, message):
        self.exit(EXIT_USAGE, f"{self.prog}: error: {message}\n")


class DeprecatedAlias(argparse.Action):
    """A hidden old spelling of an option (`keras-rda enwik8`'s `--quiet`,
    `--preset`, `--bptt`): warns once, then sets the new one."""

    def __init__(self, option_strings, dest, replacement, const=None, **kwargs):
        self.replacement = replacement
        kwargs.setdefault("nargs", 0 if const is not None else None)
        super().__init__(option_strings, dest, const=const, **kwargs)

    def __call__(self, parser, namespace, values, option_string=None):
        print(
            f"keras-rda: warning: {option_string} is deprecated, use "
            f"{self.replacement}",
            file=sys.stderr,
        )
        setattr(namespace, self.dest, self.const if self.const is not None else values)


def record_command(argv):
    """The structured command (`keras_rda.lab.reporting.provenance.command`)
    of `keras-rda ARGV` for its record: without `SCRATCH_OPTIONS` and their
    values, with the backend where it is not Keras's default."""
    from keras_rda.lab.reporting.provenance import command

    kept, words = [], iter(argv)
    for word in words:
        option, equals, _ = word.partition("=")
        if option in SCRATCH_OPTIONS:
            if not equals:
                next(words, None)  # its value
            continue
        kept.append(word)
    backend = keras_backend()
    return command(["keras-rda", *kept], None if backend == "tensorflow" else backend)


def keras_backend():
    """The backend Keras runs on, read as Keras reads it, without importing
    Keras (a command line that fails on a flag loads no backend)."""
    if "keras" in sys.modules:
        return sys.modules["keras"].backend.backend()
    if os.environ.get("KERAS_BACKEND"):
        return os.environ["KERAS_BACKEND"]
    home = os.environ.get("KERAS_HOME", os.path.join(os.path.expanduser("~"), ".keras"))
    try:
        with open(os.path.join(home, "keras.json")) as config:
            return json.load(config).get("backend", "tensorflow")
    except (OSError, ValueError):
        return "tensorflow"


def deprecated_alias(parser, option, dest, replacement, **kwargs):
    """Adds `option` as a hidden deprecated spelling that sets `dest`."""
    parser.add_argument(
        option,
        dest=dest,
        action=DeprecatedAlias,
        replacement=replacement,
        help=argparse.SUPPRESS,
        default=argparse.SUPPRESS,
        **kwargs,
    )


def common_options(
    scales=("small", "paper"), default_scale="small", out=None, jit=True
):
    """The parent parser (`add_help=False`) of the training subcommands:
    `--scale` (of `scales`), `--seed`, `--out` (its help text `out`),
    `--verbose`, `--strategy`, `--tpu` and, with `jit`, `--jit` (the enwik8
    loop always compiles)."""
    parent = argparse.ArgumentParser(add_help=False)
    group = parent.add_argument_group("common options")
    group.add_argument(
        "--scale",
        choices=scales,
        default=default_scale,
        help=f"problem and training size (default {default_scale}); 'small' "
        "runs in minutes on a CPU, 'paper' uses the paper's settings",
    )
    group.add_argument("--seed", type=int, default=0, help="random seed (default 0)")
    group.add_argument(
        "--out",
        default=None,
        help=out or "output directory",
    )
    group.add_argument(
        "--verbose",
        type=int,
        choices=(0, 1, 2),
        default=None,
        help="0: quiet; 1: a progress bar; 2: one line per evaluation "
        "(default: 1 on a terminal, 2 when output goes to a file or pipe)",
    )
    group.add_argument(
        "--strategy",
        choices=STRATEGIES,
        default="default",
        help="default (one device); TensorFlow: mirrored (all local GPUs, "
        "else all logical CPUs), multi-worker (the cluster in TF_CONFIG) or "
        "tpu; JAX: data-parallel (each batch split over all devices). See "
        "the guide 'Training at scale'",
    )
    group.add_argument(
        "--tpu",
        default=None,
        metavar="ADDRESS",
        help="TPU address for --strategy tpu (default: the local or Colab TPU)",
    )
    if jit:
        group.add_argument(
            "--jit", action="store_true", help="compile the training step with XLA"
        )
    return parent


def strategy_from(args):
    """The strategy of `--strategy`/`--tpu`; one that cannot be made here
    (the backend does not run it, no TPU answers) is a one-line error."""
    from keras_rda.lab.strategies import error_line
    from keras_rda.lab.strategies import make_strategy

    try:
        return make_strategy(args.strategy, tpu=args.tpu)
    except ValueError as error:
        raise CommandError(f"--strategy {args.strategy}: {error}") from None
    except Exception as error:  # noqa: BLE001  (TPU resolvers raise many kinds)
        raise CommandError(f"--strategy {args.strategy}: {error_line(error)}") from None


def resolve_verbose(verbose, stream=None):
    """`--verbose` as given, or 1 on a terminal and 2 otherwise."""
    if verbose is not None:
        return verbose
    stream = sys.stdout if stream is None else stream
    try:
        interactive = stream.isatty()
    except (AttributeError, ValueError):
        interactive = False
    return 1 if interactive else 2


def parse_kv(items, flag):
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


def parse_int_list(text, flag):
    """`"0,1,2"` -> `[0, 1, 2]` (distinct integers, in order)."""
    try:
        values = [int(v) for v in text.split(",") if v.strip()]
    except ValueError:
        raise CommandError(
            f"{flag} expects comma-separated integers, got {text!r}"
        ) from None
    if not values or len(set(values)) != len(values):
        raise CommandError(f"{flag} expects distinct integers, got {text!r}")
    return values


def checked(check, flag, value, **kwargs):
    """`check(flag, value, **kwargs)`, a check of `keras_rda.utils.validation`,
    with its `ValueError` as a `CommandError` (one line naming `flag`)."""
    try:
        return check(flag, value, **kwargs)
    except ValueError as error:
        raise CommandError(str(error)) from None


def positive(flag, value):
    """`value` if it is None or >= 1, else a `CommandError` naming `flag`."""
    return checked(validation.positive_int, flag, value, allow_none=True)
