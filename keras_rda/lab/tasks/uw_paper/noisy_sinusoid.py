"""The UW paper's noisy sinusoid continuation task (section 3.4)."""

from keras_rda.lab.tasks.core.registry import register_preset
from keras_rda.lab.tasks.uw_paper.sinusoid import Sinusoid


@register_preset
class NoisySinusoid(Sinusoid):
    """Sinusoid continuation from inputs with U(-2, 2) noise (section 3.4).

    `Sinusoid` with `noise=2`: the points the model reads get added noise
    U(-2, 2); the targets are the clean continuation.

    Args:
        length: `T`, points read and points generated (100 in the paper).
        noise: half-width of the uniform input noise (2 in the paper).
    """

    name = "sinusoid-noisy"
    description = "UW sinusoid continuation from noisy input (noise U(-2, 2))"

    def __init__(self, length=100, noise=2.0):
        super().__init__(length=length, noise=noise)
