"""The RWA paper's tasks (Ostmeyer & Cowell 2017, section 3).

reber (`Reber`), adding-problem (`AddingProblem`), and the RWA paper's runs
of two tasks whose class the RDA paper's folder holds: classify-by-length
(`RWAClassifyLength`, a preset of `ClassifyLength`) and variable-copy
(`RWACopy`, Henaff et al.'s variable copy problem, a subclass of `Copy`).
(Its MNIST runs are the RDA paper's `mnist` / `pmnist` tasks.)
"""

from keras_rda.lab.tasks.rwa_paper.adding_problem import AddingProblem
from keras_rda.lab.tasks.rwa_paper.reber import Reber
from keras_rda.lab.tasks.rwa_paper.rwa_classify_length import RWAClassifyLength
from keras_rda.lab.tasks.rwa_paper.rwa_copy import RWACopy

__all__ = ["AddingProblem", "RWAClassifyLength", "RWACopy", "Reber"]
