"""Training-step time of DNC/NTM with Uniform and Cached Uniform Writing.

Le et al. 2019 (section 3.1, Fig. 2b) measure up to 60% less training time
for DNC+UW and 28% for NTM+UW than with regular writing. This benchmark
times one training step (forward, backward, Adam update) of

- DNC+UW, DNC+CUW (cache 5) and NTM+UW against their regular-writing
  versions, and the LSTM controller alone (`keras.layers.RNN(LSTMCell)`,
  the floor no schedule can reach below) against DNC,

with an LSTM controller of 100 units, 4 memory slots, word size 16, one read
and one write head, batch 64, sequence lengths T = 50 and 100 (UW interval
floor(T / 5), all steps governed by the schedule), in one process. The
models are timed interleaved (one step of each, round after round) and the
median step time of each is reported, with the ratio to its regular-writing
version.

Run:
    python benchmarks/memory_speed.py [--rounds 30] [--lengths 50 100] [--jit]
"""

import argparse
import os
import time

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")

import keras  # noqa: E402
import numpy as np  # noqa: E402

import keras_rda  # noqa: E402
from keras_rda.memory import CachedUniformWriting  # noqa: E402
from keras_rda.memory import UniformWriting  # noqa: E402

UNITS = 100
SLOTS = 4
WORD = 16
BATCH = 64
FEATURES = 11


def build(kind, schedule, length, jit):
    if kind == "lstm":
        cell = keras.layers.LSTMCell(UNITS)
    else:
        cell_class = keras_rda.DNCCell if kind == "dnc" else keras_rda.NTMCell
        cell = cell_class(
            keras.layers.LSTMCell(UNITS), SLOTS, WORD, write_schedule=schedule
        )
    model = keras.Sequential(
        [
            keras.Input((length, FEATURES)),
            keras.layers.RNN(cell, return_sequences=True),
            keras.layers.Dense(FEATURES),
        ]
    )
    model.compile(keras.optimizers.Adam(1e-3, clipvalue=10.0), "mse", jit_compile=jit)
    return model


def configurations(length):
    uw = UniformWriting(sequence_length=length)
    cuw = CachedUniformWriting(5)
    return {
        "DNC": ("dnc", "regular"),
        "DNC+UW": ("dnc", uw),
        "DNC+CUW": ("dnc", cuw),
        "NTM": ("ntm", "regular"),
        "NTM+UW": ("ntm", uw),
        # The controller alone, in the same RNN loop: the floor that no
        # schedule can go below.
        "LSTM": ("lstm", None),
    }


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--rounds", type=int, default=30)
    parser.add_argument("--lengths", type=int, nargs="+", default=[50, 100])
    parser.add_argument("--jit", action="store_true", help="compile with XLA")
    args = parser.parse_args()

    rng = np.random.default_rng(0)
    print(
        f"LSTM controller {UNITS}, {SLOTS} slots, word {WORD}, batch {BATCH}, "
        f"jit_compile={args.jit}, {args.rounds} interleaved rounds, "
        f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} CPUs"
    )
    rows = []
    for length in args.lengths:
        x = rng.random((BATCH, length, FEATURES), dtype=np.float32)
        y = rng.random((BATCH, length, FEATURES), dtype=np.float32)
        models = {
            name: build(kind, schedule, length, args.jit)
            for name, (kind, schedule) in configurations(length).items()
        }
        times = {name: [] for name in models}
        for model in models.values():  # trace and warm up
            model.train_on_batch(x, y)
            model.train_on_batch(x, y)
        for _ in range(args.rounds):
            for name, model in models.items():
                start = time.perf_counter()
                model.train_on_batch(x, y)
                times[name].append(time.perf_counter() - start)
        median = {name: float(np.median(t)) for name, t in times.items()}
        for name, reference in [
            ("DNC+UW", "DNC"),
            ("DNC+CUW", "DNC"),
            ("NTM+UW", "NTM"),
            ("LSTM", "DNC"),
        ]:
            rows.append(
                (
                    length,
                    name,
                    median[name] * 1e3,
                    reference,
                    median[reference] * 1e3,
                    median[name] / median[reference],
                )
            )
    print()
    print("| T | model | ms/step | reference | ms/step | ratio |")
    print("|---|---|---|---|---|---|")
    for length, name, ms, reference, ref_ms, ratio in rows:
        print(
            f"| {length} | {name} | {ms:.1f} | {reference} | {ref_ms:.1f} | "
            f"{ratio:.2f} |"
        )
    print(f"\nload average at the end: {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main()
