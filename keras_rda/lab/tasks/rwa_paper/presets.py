"""The RWA paper's runs of two generators the RDA paper's tasks define.

The adding problem is the RDA paper's addition task (the same sequences)
with the channels in the RWA paper's order, T = 100 and the paper's
criterion; classify-by-length is classify-length with lengths from 0. Both
are registered presets (`register_preset`), not generators of their own.
"""

from keras_rda.lab.tasks.core.registry import register_preset
from keras_rda.lab.tasks.rda_paper.addition import Addition
from keras_rda.lab.tasks.rda_paper.classify_length import ClassifyLength
from keras_rda.lab.tasks.rwa_paper.settings import PAPER_OPTIMISER

AddingProblem = register_preset(
    Addition,
    "AddingProblem",
    name="adding-problem",
    doc="""Hochreiter & Schmidhuber's adding problem as the RWA paper runs it.

    The same sequences as `Addition`, with the channels in the RWA paper's
    order (indicator, value), T = 100 by default (the paper also runs
    T = 1000: `--seq-len 1000`), and the paper's criterion: beat the naive
    MSE of 0.167 (always answering 1).

    Args:
        length: steps per sequence T (100 or 1000 in the paper).

    Reference:
        Ostmeyer & Cowell 2017 (RWA paper), section 3.5, Figure 5.
    """,
    defaults={"length": 100},
    paper="RWA paper, section 3.5 (Figure 5)",
    description="indicator + U[0,1] value, add the 2 marked values (T=100/1000)",
    threshold=("loss", "<", 1.0 / 6.0),
    paper_steps=20000,
    training_scales={"small": {"steps": 300}, "paper": PAPER_OPTIMISER},
    value_channel=1,
)

ClassifyByLength = register_preset(
    ClassifyLength,
    "ClassifyByLength",
    name="classify-by-length",
    doc="""`ClassifyLength` as the RWA paper runs it: lengths 0..T, T = 1000.

    Lengths are uniform over every length 0 to T (a length-0 sequence is all
    padding), values N(0, 1), label 1 when the length exceeds T / 2; the
    criterion is to beat the 50% of guessing.

    Args:
        max_length: T (the paper's 1000; it found T = 100 too easy).
        min_length: the shortest sequence (0 in the RWA paper).

    Reference:
        Ostmeyer & Cowell 2017 (RWA paper), section 3.3, Figure 3.
    """,
    defaults={"min_length": 0},
    paper="RWA paper, section 3.3 (Figure 3)",
    description="label: is the N(0,1) sequence of 0..T steps longer than T/2?",
    threshold=("accuracy", ">", 0.5),
    paper_steps=2000,
    training_scales=dict(ClassifyLength.training_scales, paper=PAPER_OPTIMISER),
)
