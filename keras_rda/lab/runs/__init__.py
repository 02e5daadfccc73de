"""keras_rda.lab.runs: zoo models trained on a task with `model.fit`.

A `RunSpec` describes what `keras-rda train`/`compare` run (task, models,
seeds, steps, optimiser, outputs); `run(spec)` runs it. Modules, one job
each:

- `spec`: `RunSpec`, the one run description, and its errors;
- `experiment`: `run(spec)`: every model over every seed, then the JSON
  record, the plots and the results table;
- `run_loop`: one run: build, compile, `fit`, evaluate (`train`);
- `recording`: what a run records: the learning-curve callback, the
  clock, the `RunResult`;
- `checkpoint`: `RunCheckpoint`: a run's checkpoint directory, atomic
  writes, resuming and extending a run;
- `early_stopping_fit`: the UW paper's validation-based stopping over
  epochs of a fixed data set, checkpointed the same way;
- `summaries`: TensorBoard scalars (also for the enwik8 loop).
"""

from keras_rda.lab.runs.checkpoint import CheckpointMismatch
from keras_rda.lab.runs.checkpoint import RunCheckpoint
from keras_rda.lab.runs.early_stopping_fit import fit_with_early_stopping
from keras_rda.lab.runs.experiment import describe
from keras_rda.lab.runs.experiment import run
from keras_rda.lab.runs.recording import RunResult
from keras_rda.lab.runs.recording import make_recorder
from keras_rda.lab.runs.recording import threshold_met
from keras_rda.lab.runs.run_loop import compile_for_task
from keras_rda.lab.runs.run_loop import strategy_name
from keras_rda.lab.runs.run_loop import train
from keras_rda.lab.runs.run_loop import warn_quadratic_keras_rnns_under_xla
from keras_rda.lab.runs.spec import RunSpec
from keras_rda.lab.runs.spec import RunSpecError
from keras_rda.lab.runs.spec import StrategyUnavailable

__all__ = [
    "CheckpointMismatch",
    "RunCheckpoint",
    "RunResult",
    "RunSpec",
    "RunSpecError",
    "StrategyUnavailable",
    "compile_for_task",
    "describe",
    "fit_with_early_stopping",
    "make_recorder",
    "run",
    "strategy_name",
    "threshold_met",
    "train",
    "warn_quadratic_keras_rnns_under_xla",
]
