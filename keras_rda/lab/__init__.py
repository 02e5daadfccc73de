"""keras_rda.lab: what reruns the papers' experiments.

The lab uses the library (`keras_rda`) through its public API only; the
library never imports the lab. Import the parts you need:

- `keras_rda.lab.tasks`: seeded generators of every synthetic task of the
  five papers, with the papers' parameters as presets;
- `keras_rda.lab.datasets`: real data (MNIST, enwik8, text classification),
  each with its download path and a local-copy path;
- `keras_rda.lab.zoo`: the named models of the papers' comparisons;
- `keras_rda.lab.runs`: one run of a model on a task with `model.fit`,
  its checkpoints and its JSON record;
- `keras_rda.lab.enwik8`: the truncated-BPTT character-model loop;
- `keras_rda.lab.reporting`: provenance, the tables regenerated from
  `results/`, the benchmark renderers and the plots;
- `keras_rda.lab.diagnostics`: the analyses behind the paper pages (a
  gradient at initialisation, a metric's trivial scores, a paper's table),
  each run as `python -m keras_rda.lab.diagnostics.NAME`;
- `keras_rda.lab.cli`: the `keras-rda` command.

Importing `keras_rda.lab` itself imports nothing else.
"""
