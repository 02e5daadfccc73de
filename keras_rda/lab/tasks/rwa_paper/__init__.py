"""The RWA paper's tasks (Ostmeyer & Cowell 2017, section 3).

reber, variable-copy, and two presets of RDA-paper generators run with the
RWA paper's settings: adding-problem and classify-by-length. (Its MNIST
runs are the RDA paper's `mnist` / `pmnist` tasks.)
"""

from keras_rda.lab.tasks.rwa_paper.presets import AddingProblem
from keras_rda.lab.tasks.rwa_paper.presets import ClassifyByLength
from keras_rda.lab.tasks.rwa_paper.reber import Reber
from keras_rda.lab.tasks.rwa_paper.variable_copy import VariableCopy
