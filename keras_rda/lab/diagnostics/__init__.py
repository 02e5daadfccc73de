"""keras_rda.lab.diagnostics: analyses behind the papers' verdicts.

Each module checks one part of a paper that a training run alone does not
settle, runs as `python -m keras_rda.lab.diagnostics.NAME` and writes a
table record (`--json`) that `keras-rda report` renders:

- `attention_table1`: Raffel & Ellis's Table 1, epochs until every
  held-out sequence is right, for attention (eq. 1) and the unweighted
  mean (eq. 2) on the addition and multiplication problems.
- `rda_discount_reach`: how much of a sequential-MNIST digit reaches an
  untrained RDA's last output through the discount gate (RDA paper,
  sections 5 and 6.1), for several discount-bias starts.
- `uw_metric_baselines`: what predictors that need no training score on
  the UW paper's copy task under each reading of its accuracy (section
  3.1, Table 1).
- `weinet_memory_gradient`: the gradient through WeiNet's memory (eq. 5)
  at initialisation, by recall length and recurrent path.
"""
