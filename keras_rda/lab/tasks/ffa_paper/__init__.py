"""The feed-forward attention paper's tasks (Raffel & Ellis 2016, section 2).

ffa-addition (`FFAAddingProblem`: the adding problem in Hochreiter &
Schmidhuber's original definition), ffa-multiplication
(`FFAMultiplicationProblem`) and their variable-length versions
(`FFAVariableAddingProblem`, `FFAVariableMultiplicationProblem`), on one
generator, `MarkedValueProblem`.
"""

from keras_rda.lab.tasks.ffa_paper.ffa_adding_problem import FFAAddingProblem
from keras_rda.lab.tasks.ffa_paper.ffa_multiplication_problem import (
    FFAMultiplicationProblem,
)
from keras_rda.lab.tasks.ffa_paper.ffa_variable_adding_problem import (
    FFAVariableAddingProblem,
)
from keras_rda.lab.tasks.ffa_paper.ffa_variable_multiplication_problem import (
    FFAVariableMultiplicationProblem,
)
from keras_rda.lab.tasks.ffa_paper.marked_value_problem import MarkedValueProblem
from keras_rda.lab.tasks.ffa_paper.marked_value_problem import tolerance_accuracy

__all__ = [
    "FFAAddingProblem",
    "FFAMultiplicationProblem",
    "FFAVariableAddingProblem",
    "FFAVariableMultiplicationProblem",
    "MarkedValueProblem",
    "tolerance_accuracy",
]
