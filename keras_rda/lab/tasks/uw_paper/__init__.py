"""The Uniform Writing paper's synthetic tasks (Le, Tran & Venkatesh 2019).

uw-double, uw-copy, uw-reverse, uw-add, uw-max (sections 3.1-3.3) and the
sinusoid continuation, clean and noisy (section 3.4).
"""

from keras_rda.lab.tasks.uw_paper.sequence_tasks import UWAddTask
from keras_rda.lab.tasks.uw_paper.sequence_tasks import UWCopyTask
from keras_rda.lab.tasks.uw_paper.sequence_tasks import UWDoubleTask
from keras_rda.lab.tasks.uw_paper.sequence_tasks import UWMaxTask
from keras_rda.lab.tasks.uw_paper.sequence_tasks import UWReverseTask
from keras_rda.lab.tasks.uw_paper.sequence_tasks import UWSequenceTask
from keras_rda.lab.tasks.uw_paper.sinusoid import NoisySinusoidTask
from keras_rda.lab.tasks.uw_paper.sinusoid import SinusoidTask
