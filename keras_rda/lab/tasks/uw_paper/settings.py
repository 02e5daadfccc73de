"""The optimiser settings the UW paper trains its sequence tasks with.

Section 3.2: "we fix the learning rate and gradient clipping to 0.001 and
10", for every model of the comparison (the LSTM baseline included);
section 3.3 (add, max) keeps "the same experimental setting". Section 3.1
(double) tuned them per model instead.
"""

#: `training_scales` entries of the UW paper's copy, reverse, add and max.
PAPER_OPTIMISER = {"learning_rate": 1e-3, "clipvalue": 10.0}
