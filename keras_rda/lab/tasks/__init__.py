"""Seeded generators for the synthetic tasks of the five papers.

One sub-package per paper, so the folder says where a task comes from:

- `rda_paper` (Maginnis & Richemond 2017): addition, classify-length,
  copy, multicopy, mnist, pmnist.
- `rwa_paper` (Ostmeyer & Cowell 2017): reber, variable-copy,
  adding-problem, classify-by-length.
- `uw_paper` (Le, Tran & Venkatesh 2019): uw-double, uw-copy, uw-reverse,
  uw-add, uw-max, sinusoid, sinusoid-noisy.
- `weinet_paper` (Zhang & Zhou): associative-recall.
- `ffa_paper` (Raffel & Ellis 2016): ffa-addition, ffa-multiplication and
  their `-variable` versions.

`core` holds the `Task` base class, the registry (`get_task(name,
**params)` returns a `Task`, `task_names()` lists them) and the NumPy
sequence helpers. A task's variants (the same generator with other
defaults) are registered presets (`register_preset`); every task class is
importable from here, e.g. `keras_rda.lab.tasks.AddingProblem`.
"""

from keras_rda.lab.tasks.core.registry import get_task
from keras_rda.lab.tasks.core.registry import get_task_class
from keras_rda.lab.tasks.core.registry import register_preset
from keras_rda.lab.tasks.core.registry import register_task
from keras_rda.lab.tasks.core.registry import task_names
from keras_rda.lab.tasks.core.task import Task
from keras_rda.lab.tasks.ffa_paper import FFAAddition
from keras_rda.lab.tasks.ffa_paper import FFAAdditionVariable
from keras_rda.lab.tasks.ffa_paper import FFAMultiplication
from keras_rda.lab.tasks.ffa_paper import FFAMultiplicationVariable
from keras_rda.lab.tasks.ffa_paper import MarkedValueProblem
from keras_rda.lab.tasks.rda_paper import Addition
from keras_rda.lab.tasks.rda_paper import ClassifyLength
from keras_rda.lab.tasks.rda_paper import Copy
from keras_rda.lab.tasks.rda_paper import Multicopy
from keras_rda.lab.tasks.rda_paper import PermutedMnist
from keras_rda.lab.tasks.rda_paper import SequentialMnist
from keras_rda.lab.tasks.rwa_paper import AddingProblem
from keras_rda.lab.tasks.rwa_paper import ClassifyByLength
from keras_rda.lab.tasks.rwa_paper import Reber
from keras_rda.lab.tasks.rwa_paper import VariableCopy
from keras_rda.lab.tasks.uw_paper import NoisySinusoidTask
from keras_rda.lab.tasks.uw_paper import SinusoidTask
from keras_rda.lab.tasks.uw_paper import UWAddTask
from keras_rda.lab.tasks.uw_paper import UWCopyTask
from keras_rda.lab.tasks.uw_paper import UWDoubleTask
from keras_rda.lab.tasks.uw_paper import UWMaxTask
from keras_rda.lab.tasks.uw_paper import UWReverseTask
from keras_rda.lab.tasks.uw_paper import UWSequenceTask
from keras_rda.lab.tasks.weinet_paper import AssociativeRecall
