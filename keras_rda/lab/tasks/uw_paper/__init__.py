"""The Uniform Writing paper's synthetic tasks (Le, Tran & Venkatesh 2019).

uw-double, uw-copy, uw-reverse, uw-add, uw-max (sections 3.1-3.3: `UWDouble`,
`UWCopy`, `UWReverse`, `UWAdd`, `UWMax`, on the generator `UWSequenceTask`)
and the sinusoid continuation, clean and noisy (section 3.4: `Sinusoid`,
`NoisySinusoid`).
"""

from keras_rda.lab.tasks.uw_paper.noisy_sinusoid import NoisySinusoid
from keras_rda.lab.tasks.uw_paper.sinusoid import Sinusoid
from keras_rda.lab.tasks.uw_paper.uw_add import UWAdd
from keras_rda.lab.tasks.uw_paper.uw_copy import UWCopy
from keras_rda.lab.tasks.uw_paper.uw_double import UWDouble
from keras_rda.lab.tasks.uw_paper.uw_max import UWMax
from keras_rda.lab.tasks.uw_paper.uw_reverse import UWReverse
from keras_rda.lab.tasks.uw_paper.uw_sequence_task import UWSequenceTask

__all__ = [
    "NoisySinusoid",
    "Sinusoid",
    "UWAdd",
    "UWCopy",
    "UWDouble",
    "UWMax",
    "UWReverse",
    "UWSequenceTask",
]
