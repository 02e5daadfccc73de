"""The optimiser settings the RWA paper trains every model with.

Section 3.1: Adam with "a step size of 0.001 ... throughout this study" and
the other settings at their published defaults; the Discussion adds that
gradient clipping "was not used in this study". Its LSTM baseline trained
this way too, so `--scale paper` gives these to every model of a
comparison: without them the zoo's LSTM would be clipped at 1 (the RDA
paper's setting, section 6.1).
"""

#: `training_scales["paper"]` entries of the RWA paper's tasks (a clip of 0
#: means none).
PAPER_OPTIMISER = {"learning_rate": 1e-3, "clipvalue": 0.0}
