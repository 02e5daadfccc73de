"""Steps per second of a paper comparison, this tree against an earlier one.

Runs the same `keras-rda compare TASK --scale paper --steps N` from this
checkout and from `--before` (another checkout of keras_rda, e.g. a git
worktree of an older commit), each as a fresh process with that tree on
`PYTHONPATH`, the two interleaved for `--repeats` rounds (`harness.each_round`).
Each run's record gives every model's training seconds (its `seconds`,
which holds what a user waits for in a comparison: the first step's tracing
and compilation, the evaluations, the steps) and its steps; a model's speed
is its steps over those seconds, and the result the median over the rounds
of each tree, with the ratio after / before (higher is faster).

There is no warm-up run: every round is a new process, which traces and
compiles again, as a user's comparison does.

    # The RDA paper's addition (T = 1,000) and the UW paper's copy (L = 50).
    git worktree add ../keras_rda_before <commit>
    python benchmarks/compare_speed.py --before ../keras_rda_before \
        --task addition --models rda,lstm --steps 10 \
        --json results/benchmarks/tensorflow_compare_speed_addition.json
"""

import argparse
import json
import os
import pathlib
import statistics
import subprocess
import sys
import tempfile

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")

import harness  # noqa: E402

HERE = pathlib.Path(__file__).resolve().parents[1]


def tree_commit(tree):
    """The commit `tree` has checked out (None outside a git checkout)."""
    try:
        return subprocess.run(
            ["git", "-C", str(tree), "rev-parse", "HEAD"],
            capture_output=True,
            text=True,
            check=True,
        ).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return None


def compare_arguments(args, out):
    """`keras-rda compare ...` arguments of one run, writing under `out`."""
    return [
        "compare",
        args.task,
        "--scale",
        args.scale,
        "--models",
        args.models,
        "--steps",
        str(args.steps),
        "--eval-every",
        str(args.steps),
        "--eval-examples",
        str(args.eval_examples),
        *(["--jit"] if args.jit == "on" else []),
        "--out",
        str(out / "runs"),
        "--results-dir",
        str(out / "records"),
        "--verbose",
        "0",
    ]


def run_comparison(tree, args):
    """`{model: steps per second}` of one comparison run from `tree`."""
    with tempfile.TemporaryDirectory() as scratch:
        out = pathlib.Path(scratch)
        environment = {**os.environ, "PYTHONPATH": str(tree)}
        command = [sys.executable, "-c", "import _keras_rda_cli; _keras_rda_cli.main()"]
        subprocess.run(
            command + compare_arguments(args, out),
            cwd=out,
            env=environment,
            check=True,
            stdout=subprocess.DEVNULL,
        )
        (path,) = (out / "records").glob("*.json")
        record = json.loads(path.read_text())
    return {run["model"]: run["steps"] / run["seconds"] for run in record["runs"]}


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument(
        "--before", required=True, help="the earlier checkout of keras_rda"
    )
    parser.add_argument("--task", default="addition")
    parser.add_argument("--scale", default="paper", help="the comparison's --scale")
    parser.add_argument("--models", default="rda,lstm", help="comma-separated")
    parser.add_argument("--steps", type=int, default=10, help="training steps")
    parser.add_argument(
        "--eval-examples", type=int, default=100, help="examples of the one eval"
    )
    parser.add_argument("--jit", choices=["on", "off"], default="on")
    harness.add_arguments(parser, repeats=7, warmup=0)
    args = parser.parse_args(argv)
    run = harness.Run(argv)
    trees = {"before": pathlib.Path(args.before).resolve(), "after": HERE}

    def after_round(done, results):
        line = ", ".join(
            f"{tree} {model} {results[tree][-1][model]:.3f}"
            for tree in results
            for model in results[tree][-1]
        )
        print(f"round {done}: steps/s {line}", flush=True)

    results = harness.each_round(
        {
            name: (lambda tree=tree: run_comparison(tree, args))
            for name, tree in trees.items()
        },
        args.repeats,
        after_round=after_round,
    )
    rows = []
    for model in args.models.split(","):
        speeds = {tree: [r[model] for r in results[tree]] for tree in trees}
        before, after = (statistics.median(speeds[tree]) for tree in trees)
        rows.append(
            {
                "model": model,
                "before_steps_per_s": before,
                "after_steps_per_s": after,
                "before_range": [min(speeds["before"]), max(speeds["before"])],
                "after_range": [min(speeds["after"]), max(speeds["after"])],
                "speedup": after / before,
            }
        )
        print(f"{model}: {before:.3f} -> {after:.3f} steps/s, {after / before:.2f}x")
    if args.json:
        import keras

        run.write(
            args.json,
            {
                "kind": "compare_speed",
                "benchmark": "compare_speed",
                "backend": keras.backend.backend(),
                "task": args.task,
                "scale": args.scale,
                "steps": args.steps,
                "eval_examples": args.eval_examples,
                "xla": args.jit == "on",
                "repeats": args.repeats,
                "commits": {name: tree_commit(tree) for name, tree in trees.items()},
                "rows": rows,
                "rounds": results,
            },
        )


if __name__ == "__main__":
    main()
