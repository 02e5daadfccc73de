"""`keras-rda enwik8`: the enwik8 character-modelling run from the shell.

    keras-rda enwik8 [--data PATH] [--preset NAME] [--model M] [--steps N]
                     [--strategy default|mirrored|tpu] [--out DIR]

Also runnable as `python -m keras_rda.training ...` (same arguments).
Rerunning the same command after an interruption (Ctrl-C, SIGTERM, a
preempted VM) resumes from the checkpoint in `--out`.
"""

import argparse
import sys

from keras_rda.training.char_model import MODELS
from keras_rda.training.presets import DEFAULT_PRESET
from keras_rda.training.presets import PRESETS

EXIT_INTERRUPTED = 130


def add_arguments(parser):
    """Adds the enwik8 options to an `argparse` parser."""
    parser.add_argument(
        "--data",
        default=None,
        help="enwik8.zip, the unzipped enwik8 (or a prefix such as enwik6), or "
        "a directory holding one; default: $KERAS_RDA_DATA_DIR, else download.",
    )
    parser.add_argument(
        "--preset",
        default=DEFAULT_PRESET,
        choices=sorted(PRESETS),
        help=f"hyper-parameters (default {DEFAULT_PRESET!r}; "
        "'paper' is section 6.1's 1800 units, bptt 250)",
    )
    parser.add_argument(
        "--model", default="rda", choices=MODELS, help="recurrent unit (default rda)"
    )
    parser.add_argument(
        "--steps",
        type=int,
        default=None,
        help="total training steps (default: the preset's)",
    )
    parser.add_argument(
        "--strategy", default="default", choices=("default", "mirrored", "tpu")
    )
    parser.add_argument(
        "--tpu",
        default=None,
        help="TPU address for --strategy tpu (default: local/Colab)",
    )
    parser.add_argument(
        "--out",
        default=None,
        help="output directory (checkpoints, TensorBoard, results); "
        "default runs/enwik8-<model>-<preset>",
    )
    parser.add_argument("--units", type=int, default=None, help="override units")
    parser.add_argument("--bptt", type=int, default=None, help="override bptt")
    parser.add_argument(
        "--batch-size", type=int, default=None, help="override the global batch size"
    )
    parser.add_argument("--learning-rate", type=float, default=None)
    parser.add_argument("--eval-every", type=int, default=None)
    parser.add_argument("--checkpoint-every", type=int, default=None)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--quiet", action="store_true", help="no progress bar")
    return parser


def add_parser(subparsers):
    """Registers the `enwik8` subcommand on `argparse` subparsers."""
    parser = subparsers.add_parser(
        "enwik8",
        help="character-level enwik8 with the XLA truncated-BPTT loop",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    add_arguments(parser)
    parser.set_defaults(func=run)
    return parser


def run(args):
    """Runs the enwik8 command; returns the process exit code."""
    from keras_rda.datasets.enwik8 import enwik8
    from keras_rda.training.enwik8_trainer import Enwik8Trainer
    from keras_rda.training.presets import get_preset
    from keras_rda.training.strategies import make_strategy

    preset = get_preset(
        args.preset,
        steps=args.steps,
        units=args.units,
        bptt=args.bptt,
        batch_size=args.batch_size,
        learning_rate=args.learning_rate,
        eval_every=args.eval_every,
        checkpoint_every=args.checkpoint_every,
    )
    out = args.out or f"runs/enwik8-{args.model}-{args.preset}"
    strategy = make_strategy(args.strategy, tpu=args.tpu)
    data = enwik8(args.data)
    verbose = 0 if args.quiet else 1
    if verbose:
        print(
            f"enwik8 from {data.path}: {len(data.train):,} / {len(data.valid):,} / "
            f"{len(data.test):,} train/valid/test bytes, vocabulary "
            f"{data.vocab_size}; model {args.model} ({preset.units} units, bptt "
            f"{preset.bptt}, batch {preset.batch_size}) on "
            f"{strategy.num_replicas_in_sync} replica(s); output in {out}"
        )
    trainer = Enwik8Trainer(
        data,
        out,
        model=args.model,
        preset=preset,
        strategy=strategy,
        seed=args.seed,
        verbose=verbose,
    )
    result = trainer.train()
    if result["interrupted"]:
        return EXIT_INTERRUPTED
    print(
        f"{args.model}: valid BPC {result['valid_bpc']:.4f}, "
        f"test BPC {result['test_bpc']:.4f} after {result['step']} steps"
    )
    return 0


def _register_with_keras_rda_cli():
    """Adds `enwik8` to the `keras-rda` command (keras_rda.experiments.cli)."""
    try:
        from keras_rda.experiments.cli import register_subcommand
    except ImportError:  # the main CLI is optional for `python -m`
        return

    @register_subcommand(
        "enwik8", help="character-level enwik8 with the XLA truncated-BPTT loop"
    )
    def configure(parser):
        add_arguments(parser)
        return run


_register_with_keras_rda_cli()


def main(argv=None):
    """`python -m keras_rda.training` entry point."""
    parser = argparse.ArgumentParser(
        prog="python -m keras_rda.training",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    add_arguments(parser)
    return run(parser.parse_args(argv))


if __name__ == "__main__":
    sys.exit(main())
