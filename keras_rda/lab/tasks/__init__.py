"""Seeded generators for the synthetic tasks of the five papers.

One sub-package per paper and one public class per file, named after it
(`rwa_paper/adding_problem.py` holds `AddingProblem`). The command line
finds a task by its registry name (`keras-rda tasks` lists them):
`get_task(name, **params)` returns a `Task`, `task_names()` lists the names,
`register_task` and `register_preset` (class decorators) add one.

One name per idea. Where several papers run the same task, one class is
named after the idea; another paper's run of it is a preset
(`register_preset`: a subclass running its parent's generator with the
paper's defaults) named after that paper, and a paper that defines the idea
with a generator of its own has a class of its own. The ideas:

- the adding problem: `AddingProblem` (RWA paper 3.5), preset
  `RDAAddingProblem` (RDA paper 6.3); Hochreiter's original definition,
  `FFAAddingProblem` (on `MarkedValueProblem`), and its variable-length
  preset `FFAVariableAddingProblem`;
- the multiplication problem: `FFAMultiplicationProblem`, preset
  `FFAVariableMultiplicationProblem`;
- classify by length: `ClassifyLength` (RDA paper 6.3), preset
  `RWAClassifyLength` (RWA paper 3.3);
- copy: `Copy` (RDA paper 6.3, Henaff et al.'s variable copy problem),
  `RWACopy` (RWA paper 3.4: the same sequences, sized by its blanks, scored
  by cross-entropy), the UW paper's encode-then-decode `UWCopy` (on
  `UWSequenceTask`);
- multiple copies in one sequence: `Multicopy` (RDA paper 6.4);
- sequential MNIST: `SequentialMnist`, preset `PermutedMnist`;
- the Reber grammar: `Reber` (RWA paper 3.2);
- the UW paper's other encode-then-decode tasks: `UWDouble`, `UWReverse`,
  `UWAdd` (floored means of mirrored pairs, not the adding problem),
  `UWMax`;
- sinusoid continuation (UW paper 3.4): `Sinusoid`, preset `NoisySinusoid`;
- associative recall (WeiNet paper): `AssociativeRecall`.

`core` holds the `Task` base class, the registry and the NumPy helpers.
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
