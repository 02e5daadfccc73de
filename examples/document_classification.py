"""Document classification with DNC+UW and DNC+CUW against an LSTM (UW paper 3.6).

Le, Tran & Venkatesh (2019), section 3.6 and Table 4: words embedded in 300
dimensions (GloVe), a DNC with a 512-unit LSTM controller whose memory size
gives a 10-20% compression ratio of the average document length
((D + 1) / T), Uniform Writing with interval floor(T / (D + 1)) or Cached
Uniform Writing with a cache of 10, RMSprop with learning rate 1e-4, early
stopping after 5 epochs without improvement on the validation set. The paper
reports 93.7 (UW) and 93.9 (CUW) test accuracy on AG News (120,000 training
documents), against 93.5 for a standard LSTM.

Data: `keras_rda.lab.datasets.text_classification`. With `KERAS_RDA_DATA_DIR`
pointing at a directory holding `ag_news_test.csv` (the official 7,600-row
AG News *test* split) the example runs offline on that file: it is shuffled
and split 80/20 into 6,080 training and 1,520 test documents, and 10% of the
training part is held out for early stopping. This is a much smaller
training set than the paper's, so expect lower accuracies than Table 4.
Without the variable, the real data sets come from tensorflow-datasets.

    python examples/document_classification.py                       # AG News
    python examples/document_classification.py --dataset imdb_reviews
    python examples/document_classification.py --glove glove.840B.300d.txt
    python examples/document_classification.py --quick                # seconds
    python examples/document_classification.py --json results/uw_paper/ag_news.json

`--json PATH` writes the run's record (`keras_rda.lab.reporting.report`'s
table record: the command, commit, versions and machine, the table below,
the settings and every model's per-epoch history), which `keras-rda report`
renders into the docs.

Runs take hours at the paper's sizes on a CPU, so `fit_with_early_stopping`
(`keras_rda/lab/runs/early_stopping_fit.py`) checkpoints every epoch into
`--checkpoint-dir`/MODEL: rerunning the same command continues the model it
was killed in as an uninterrupted run would have gone on, and returns the
models that had finished without training them again.

Memory cells skip the padding: the embedding masks token 0, and a masked
step leaves the whole cell state, step counter included, unchanged, so the
write schedules count real words only.
"""

import argparse
import os
import tempfile

import keras
import numpy as np

import keras_rda
from keras_rda.lab.datasets import text_classification
from keras_rda.lab.runs.early_stopping_fit import fit_with_early_stopping
from keras_rda.memory import CachedUniformWriting
from keras_rda.memory import UniformWriting

parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
parser.add_argument(
    "--dataset",
    default="ag_news_subset",
    help="imdb_reviews, ag_news_subset, yelp_polarity_reviews, "
    "dbpedia or yahoo_answers",
)
parser.add_argument("--data-path", help="local data file or directory")
parser.add_argument("--glove", help="GloVe text file (e.g. glove.840B.300d.txt)")
parser.add_argument("--models", default="dnc-uw,dnc-cuw,lstm")
parser.add_argument("--units", type=int, default=512, help="controller / LSTM units")
parser.add_argument("--embedding-dim", type=int, default=300)
parser.add_argument("--word-size", type=int, default=64)
parser.add_argument("--cache-size", type=int, default=10)
parser.add_argument(
    "--compression",
    type=float,
    default=0.15,
    help="(D + 1) / average length, 0.1-0.2 in the paper",
)
parser.add_argument("--max-tokens", type=int, default=20000)
parser.add_argument(
    "--sequence-length",
    type=int,
    default=None,
    help="tokens per document (default: longest training one)",
)
parser.add_argument("--max-examples", type=int, default=None)
parser.add_argument("--epochs", type=int, default=50)
parser.add_argument("--batch-size", type=int, default=64)
parser.add_argument("--learning-rate", type=float, default=1e-4)
parser.add_argument("--seed", type=int, default=0, help="random seed of every model")
parser.add_argument("--json", help="write the run's record to this path")
parser.add_argument(
    "--checkpoint-dir",
    help="checkpoints, one directory per model, written after every epoch; "
    "rerunning the same command resumes (default: "
    "runs/document_classification; none with --quick)",
)
parser.add_argument("--quick", action="store_true", help="a few seconds on a CPU")
args = parser.parse_args()
if args.checkpoint_dir is None and not args.quick:
    args.checkpoint_dir = os.path.join("runs", "document_classification")

if args.quick:
    args.units, args.embedding_dim, args.word_size = 8, 8, 4
    args.cache_size, args.max_tokens, args.sequence_length = 3, 300, 15
    args.compression = 0.2
    args.epochs, args.batch_size, args.learning_rate = 1, 32, 1e-3

if args.quick and not (args.data_path or os.environ.get("KERAS_RDA_DATA_DIR")):
    # No data at hand: a tiny random corpus, only to exercise the code.
    rng = np.random.default_rng(0)
    words = [f"w{i}" for i in range(50)]
    texts = [" ".join(rng.choice(words, 10)) for _ in range(40)]
    labels = rng.integers(0, 4, 40)
    # One fixed path (the same seeded corpus every time), so that a rerun
    # with --checkpoint-dir is the same run and resumes.
    path = os.path.join(tempfile.gettempdir(), "keras_rda_random_corpus.csv")
    with tempfile.NamedTemporaryFile("w", dir=os.path.dirname(path), delete=False) as f:
        for text, label in zip(texts, labels):
            f.write(f'"{label + 1}","{text}"\n')
    os.replace(f.name, path)  # whole, also with two runs at once
    args.data_path = path

data = text_classification(
    args.dataset,
    path=args.data_path,
    max_tokens=args.max_tokens,
    sequence_length=args.sequence_length,
    glove_path=args.glove,
    max_examples=24 if args.quick else args.max_examples,
)
lengths = (data.x_train > 0).sum(axis=1)
average_length = max(2, int(round(lengths.mean())))
memory_size = max(1, int(round(args.compression * average_length)) - 1)
print(f"data: {data.source}")
print(
    f"{data.x_train.shape[0]} training documents (10% of them for early "
    f"stopping), {data.x_test.shape[0]} test documents, {data.num_classes} "
    f"classes, vocabulary {data.vocabulary_size}, {data.sequence_length} "
    f"tokens per document, average length {average_length}"
)
print(
    f"memory: {memory_size} slots ((D + 1) / T = "
    f"{(memory_size + 1) / average_length:.2f}), UW interval "
    f"{max(1, average_length // (memory_size + 1))}, CUW cache {args.cache_size}"
)


def build(name):
    inputs = keras.Input((data.sequence_length,), dtype="int32")
    embedding_args = {}
    if data.embedding_matrix is not None:
        embedding_args = dict(
            embeddings_initializer=keras.initializers.Constant(data.embedding_matrix),
            trainable=False,
        )
        dim = data.embedding_matrix.shape[1]
    else:
        dim = args.embedding_dim
    x = keras.layers.Embedding(
        data.vocabulary_size, dim, mask_zero=True, **embedding_args
    )(inputs)
    if name == "lstm":
        x = keras.layers.LSTM(args.units)(x)
    else:
        schedule = {
            "dnc-uw": UniformWriting(sequence_length=average_length),
            "dnc-cuw": CachedUniformWriting(args.cache_size),
        }[name]
        cell = keras_rda.DNCCell(
            keras.layers.LSTMCell(args.units),
            memory_size=memory_size,
            word_size=args.word_size,
            write_schedule=schedule,
        )
        x = keras.layers.RNN(cell)(x)
    outputs = keras.layers.Dense(data.num_classes)(x)
    return keras.Model(inputs, outputs, name=name.replace("-", "_"))


# What a checkpoint belongs to: every setting that changes the training
# (not where the record or the checkpoints go).
run_settings = {
    k: v for k, v in vars(args).items() if k not in ("json", "checkpoint_dir")
}
results, histories = [], []
for name in args.models.split(","):
    print(f"\n== {name} ==")
    keras.utils.set_random_seed(args.seed)
    model = build(name)
    model.compile(
        optimizer=keras.optimizers.RMSprop(args.learning_rate),
        loss=keras.losses.SparseCategoricalCrossentropy(from_logits=True),
        metrics=["accuracy"],
        run_eagerly=args.quick,  # tiny runs: eager beats tracing the graph
    )
    run = fit_with_early_stopping(
        model,
        data.x_train,
        data.y_train,
        epochs=args.epochs,
        batch_size=args.batch_size,
        validation_split=0.1,
        patience=5,
        seed=args.seed,
        checkpoint_dir=args.checkpoint_dir and os.path.join(args.checkpoint_dir, name),
        fingerprint={"model": name, "settings": run_settings},
    )
    accuracy = model.evaluate(data.x_test, data.y_test, verbose=0)[1]
    results.append(
        (name, model.count_params(), run["epochs"], run["seconds"], accuracy)
    )
    histories.append({"model": name, "history": run["history"]})

print(f"\n{data.name}: test accuracy (%)")
print("| model | parameters | epochs | seconds | test accuracy |")
print("|---|---|---|---|---|")
for name, params, epochs, seconds, accuracy in results:
    print(f"| {name} | {params:,} | {epochs} | {seconds:.0f} | {100 * accuracy:.1f} |")

if args.json:
    from keras_rda.lab.reporting.provenance import script_command
    from keras_rda.lab.reporting.report import write_table_record

    table = {
        "benchmark": "document_classification",
        "columns": ["model", "parameters", "epochs", "seconds", "test accuracy (%)"],
        "align": ["---", "---:", "---:", "---:", "---:"],
        "rows": [
            [name, f"{params:,}", epochs, round(seconds), round(100 * accuracy, 1)]
            for name, params, epochs, seconds, accuracy in results
        ],
        "notes": [
            f"{data.name} ({data.source}): {data.x_train.shape[0]} training "
            f"documents (10% held out for early stopping), "
            f"{data.x_test.shape[0]} test documents; memory {memory_size} "
            f"slots of {args.word_size}, controller {args.units} units; "
            f"seed {args.seed}."
        ],
        "settings": vars(args),
    }
    path = write_table_record(args.json, table, script_command(), histories=histories)
    print(f"record: {path}")
