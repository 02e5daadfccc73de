"""The RDA paper's tasks (Maginnis & Richemond 2017, section 6).

addition, classify-length, copy, multicopy, sequential and permuted MNIST.
"""

from keras_rda.lab.tasks.rda_paper.addition import Addition
from keras_rda.lab.tasks.rda_paper.classify_length import ClassifyLength
from keras_rda.lab.tasks.rda_paper.copy import Copy
from keras_rda.lab.tasks.rda_paper.multicopy import Multicopy
from keras_rda.lab.tasks.rda_paper.sequential_mnist import PermutedMnist
from keras_rda.lab.tasks.rda_paper.sequential_mnist import SequentialMnist
