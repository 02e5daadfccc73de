"""keras_rda.lab: what reruns the papers' experiments.

The lab uses the library (`keras_rda`) through its public API only; the
library never imports the lab. Import the parts you need:

- `keras_rda.lab.tasks`: seeded generators of the papers' synthetic tasks;
- `keras_rda.lab.datasets`: real data (MNIST, enwik8, text classification);
- `keras_rda.lab.zoo`: the named models of the papers' comparisons;
- `keras_rda.lab.runs`: runs of a model on a task with `model.fit`;
- `keras_rda.lab.enwik8`: the truncated-BPTT character-model loop;
- `keras_rda.lab.reporting`: provenance, records, the docs' tables, plots;
- `keras_rda.lab.diagnostics`: the analyses behind the paper pages;
- `keras_rda.lab.cli`: the `keras-rda` command.

Importing `keras_rda.lab` itself imports nothing else.
"""
