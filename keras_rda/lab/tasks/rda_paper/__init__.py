"""The RDA paper's tasks (Maginnis & Richemond 2017, section 6).

addition (`RDAAddingProblem`, its run of the RWA paper's adding problem),
classify-length (`ClassifyLength`), copy (`Copy`), multicopy
(`Multicopy`), sequential and permuted MNIST (`SequentialMnist`,
`PermutedMnist`).
"""

from keras_rda.lab.tasks.rda_paper.classify_length import ClassifyLength
from keras_rda.lab.tasks.rda_paper.copy import Copy
from keras_rda.lab.tasks.rda_paper.multicopy import Multicopy
from keras_rda.lab.tasks.rda_paper.permuted_mnist import PermutedMnist
from keras_rda.lab.tasks.rda_paper.rda_adding_problem import RDAAddingProblem
from keras_rda.lab.tasks.rda_paper.sequential_mnist import SequentialMnist

__all__ = [
    "ClassifyLength",
    "Copy",
    "Multicopy",
    "PermutedMnist",
    "RDAAddingProblem",
    "SequentialMnist",
]
