"""keras_rda.lab.runs: zoo models trained on a task with `model.fit`.

A `RunSpec` (`spec`) describes what `keras-rda train`/`compare` run;
`run(spec)` (`experiment`) runs every model over every seed, then writes
the record, the plots and the table. `run_loop` is one run (`train`),
`recording` what it records, `checkpoint` its checkpoints;
`early_stopping_fit` the UW paper's validation-based stopping over epochs;
`summaries` TensorBoard scalars.
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
