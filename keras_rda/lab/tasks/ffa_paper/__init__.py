"""The feed-forward attention paper's tasks (Raffel & Ellis 2016, section 2).

ffa-addition, ffa-multiplication and their variable-length versions: four
presets of Hochreiter & Schmidhuber's marked-value problem generator.
"""

from keras_rda.lab.tasks.ffa_paper.marked_value_problem import MarkedValueProblem
from keras_rda.lab.tasks.ffa_paper.marked_value_problem import tolerance_accuracy
from keras_rda.lab.tasks.ffa_paper.presets import FFAAddition
from keras_rda.lab.tasks.ffa_paper.presets import FFAAdditionVariable
from keras_rda.lab.tasks.ffa_paper.presets import FFAMultiplication
from keras_rda.lab.tasks.ffa_paper.presets import FFAMultiplicationVariable
