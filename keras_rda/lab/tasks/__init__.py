"""Seeded generators for the synthetic tasks of the five papers.

One sub-package per paper, so the folder says where a task comes from, and
one public class per file, named after it (`rwa_paper/adding_problem.py`
holds `AddingProblem`). The command line finds a task by its registry name
(`keras-rda tasks` lists them): `get_task(name, **params)` returns a
`Task`, `task_names()` lists the names, `register_task` and
`register_preset` (class decorators) add one.

One name per idea. Where several papers run the same task, one class is
named after the idea and keeps the settings its name had before; another
paper's run of it is named after that paper. A preset (`register_preset`)
is a subclass that runs its parent's generator with the paper's defaults;
where a paper defines the idea with a generator of its own, its class
carries the paper's name without subclassing. The ideas, with their
registry names:

- The adding problem (Hochreiter & Schmidhuber 1997): `AddingProblem`
  ("adding-problem", RWA paper 3.5); presets `RDAAddingProblem`
  ("addition", RDA paper 6.3); Hochreiter's original definition as the
  feed-forward attention paper runs it, `FFAAddingProblem` ("ffa-addition",
  on `MarkedValueProblem`), and its variable-length preset
  `FFAVariableAddingProblem` ("ffa-addition-variable", section 2.3).
- The multiplication problem (Hochreiter & Schmidhuber 1997):
  `FFAMultiplicationProblem` ("ffa-multiplication"), preset
  `FFAVariableMultiplicationProblem` ("ffa-multiplication-variable").
- Classify by length: `ClassifyLength` ("classify-length", RDA paper 6.3);
  preset `RWAClassifyLength` ("classify-by-length", RWA paper 3.3).
- Copy: `Copy` ("copy", RDA paper 6.3: Henaff et al.'s variable copy
  problem); `RWACopy` ("variable-copy", RWA paper 3.4: the same sequences,
  sized by its blanks and scored by cross-entropy); the UW paper's
  encode-then-decode copy, `UWCopy` ("uw-copy", section 3.2, on
  `UWSequenceTask`).
- Multiple copies in one sequence: `Multicopy` ("multicopy", RDA paper 6.4).
- Sequential MNIST: `SequentialMnist` ("mnist", RDA paper 6.3, RWA paper
  3.6); preset `PermutedMnist` ("pmnist").
- The Reber grammar: `Reber` ("reber", RWA paper 3.2).
- The UW paper's other encode-then-decode tasks (sections 3.1-3.3):
  `UWDouble` ("uw-double"), `UWReverse` ("uw-reverse"), `UWAdd` ("uw-add":
  floored means of mirrored pairs, not the adding problem), `UWMax`
  ("uw-max").
- Sinusoid continuation (UW paper 3.4): `Sinusoid` ("sinusoid"); preset
  `NoisySinusoid` ("sinusoid-noisy").
- Associative recall (WeiNet paper, after Ba et al. 2016):
  `AssociativeRecall` ("associative-recall").

`core` holds the `Task` base class, the registry and the NumPy sequence
helpers.
"""

from keras_rda.lab.tasks.core.registry import get_task
from keras_rda.lab.tasks.core.registry import get_task_class
from keras_rda.lab.tasks.core.registry import register_preset
from keras_rda.lab.tasks.core.registry import register_task
from keras_rda.lab.tasks.core.registry import task_names
from keras_rda.lab.tasks.core.task import Task
from keras_rda.lab.tasks.ffa_paper import FFAAddingProblem
from keras_rda.lab.tasks.ffa_paper import FFAMultiplicationProblem
from keras_rda.lab.tasks.ffa_paper import FFAVariableAddingProblem
from keras_rda.lab.tasks.ffa_paper import FFAVariableMultiplicationProblem
from keras_rda.lab.tasks.ffa_paper import MarkedValueProblem
from keras_rda.lab.tasks.rda_paper import ClassifyLength
from keras_rda.lab.tasks.rda_paper import Copy
from keras_rda.lab.tasks.rda_paper import Multicopy
from keras_rda.lab.tasks.rda_paper import PermutedMnist
from keras_rda.lab.tasks.rda_paper import RDAAddingProblem
from keras_rda.lab.tasks.rda_paper import SequentialMnist
from keras_rda.lab.tasks.rwa_paper import AddingProblem
from keras_rda.lab.tasks.rwa_paper import Reber
from keras_rda.lab.tasks.rwa_paper import RWAClassifyLength
from keras_rda.lab.tasks.rwa_paper import RWACopy
from keras_rda.lab.tasks.uw_paper import NoisySinusoid
from keras_rda.lab.tasks.uw_paper import Sinusoid
from keras_rda.lab.tasks.uw_paper import UWAdd
from keras_rda.lab.tasks.uw_paper import UWCopy
from keras_rda.lab.tasks.uw_paper import UWDouble
from keras_rda.lab.tasks.uw_paper import UWMax
from keras_rda.lab.tasks.uw_paper import UWReverse
from keras_rda.lab.tasks.uw_paper import UWSequenceTask
from keras_rda.lab.tasks.weinet_paper import AssociativeRecall

__all__ = [
    # The registry and the base class.
    "Task",
    "get_task",
    "get_task_class",
    "register_preset",
    "register_task",
    "task_names",
    # Generators that only their subclasses register.
    "MarkedValueProblem",
    "UWSequenceTask",
    # The tasks, by idea.
    "AddingProblem",
    "RDAAddingProblem",
    "FFAAddingProblem",
    "FFAVariableAddingProblem",
    "FFAMultiplicationProblem",
    "FFAVariableMultiplicationProblem",
    "ClassifyLength",
    "RWAClassifyLength",
    "Copy",
    "RWACopy",
    "UWCopy",
    "Multicopy",
    "SequentialMnist",
    "PermutedMnist",
    "Reber",
    "UWDouble",
    "UWReverse",
    "UWAdd",
    "UWMax",
    "Sinusoid",
    "NoisySinusoid",
    "AssociativeRecall",
]
