"""The multiplication problem with lengths from 50 to 10,000 in one model."""

from keras_rda.tasks.ffa_multiplication import FFAMultiplication
from keras_rda.tasks.task import register_task


@register_task
class FFAMultiplicationVariable(FFAMultiplication):
    """`FFAMultiplication` with lengths uniform in [50, 10000] (section 2.3).

    Every batch is padded to `max_length` (10,000 steps); the model masks
    the padding. Raffel & Ellis report 99.4% accuracy with attention and
    55.5% with the unweighted mean after 100 epochs.

    Args:
        min_length: shortest sequence (50 in the paper).
        max_length: longest sequence (10,000 in the paper).

    Reference:
        Raffel & Ellis 2016, section 2.3.
    """

    name = "ffa-multiplication-variable"
    paper = "Raffel & Ellis 2016, section 2.3"
    description = "ffa-multiplication with lengths uniform in [50, 10000]"
    seq_len_param = "max_length"
    scales = {"small": {"min_length": 50, "max_length": 500}}

    def __init__(self, min_length=50, max_length=10000):
        super().__init__(min_length=min_length, max_length=max_length)
