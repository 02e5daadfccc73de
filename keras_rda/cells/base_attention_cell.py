"""What the attention-average cells share: activations, gate blocks, sums.

The RWA / RDA cells (`BaseRDACell`) and `ParallelRDACell` compute the same
quantities from a projection of their input (RDA paper, section 5):

    [u, g, a, gamma] = W x_t (+ the recurrent part) + b
    z_t = u_t * tanh(g_t),   a_t = f_a(.),   gamma_t = sigmoid(.)
    h_t = f_h(n_t / d_t),    o_t = f_o(h_t)

`BaseAttentionCell` holds the three activations, the block layout of
`kernel` and `bias` (`num_blocks` blocks of `units`: u, g, a(, gamma)), the
bias initialisation with the discount gate at 1, the input projection and
the dtype of the running sums.
"""

from keras import ops

from keras_rda.cells.base_cell import BaseCell
from keras_rda.ops import attention_average
from keras_rda.utils import validation
from keras_rda.utils.initializers import independent

# The running sums are kept in these dtypes; any other compute dtype
# (float16, bfloat16 under mixed precision) accumulates in float32.
ACCUMULATION_DTYPES = ("float32", "float64")


def cast_like(values, like):
    """Each of `values` cast to the dtype of the tensor at its place in
    `like` (a step's new states in the dtypes its states came in)."""
    return [ops.cast(value, other.dtype) for value, other in zip(values, like)]


def per_block_initializer(initializer, rows, units, num_blocks, name):
    """Initialises each `[rows, units]` gate block of a concatenated kernel
    separately, so that a fan-based initialiser (Glorot) sees the shape of one
    gate's matrix, as in the paper (section 6.1: Xavier per weight matrix).
    Each block is its own draw (`keras_rda.utils.initializers.independent`,
    keyed `{name}/{block}`)."""

    def init(shape, dtype=None):
        del shape
        blocks = [
            independent(initializer, f"{name}/{block}")((rows, units), dtype=dtype)
            for block in range(num_blocks)
        ]
        return ops.concatenate(blocks, axis=1)

    return init


class BaseAttentionCell(BaseCell):
    """Base of `BaseRDACell` and `ParallelRDACell` (not public).

    Args:
        units: positive int, the size of the average and the output.
        attention_activation: `f_a`, one of
            `attention_average.ATTENTION_ACTIVATIONS`.
        hidden_activation: `f_h`, `"linear"` or `"tanh"`.
        output_activation: `f_o`, `"linear"` or `"tanh"`.
        use_bias: whether there is a `bias` `[num_blocks * units]`.
        unit_discount_bias: whether the last (discount) bias block starts
            at 1 (RDA paper, section 6.1).
        **kwargs: `BaseCell` arguments (`kernel_initializer` and
            `bias_initializer`, which the subclass lists in
            `config_arguments`, regularizers, constraints, dropout, seed)
            and those of `keras.layers.Layer`.
    """

    #: Blocks of `units` in `kernel` and `bias`: u, g, a, gamma.
    num_blocks = 4

    def __init__(
        self,
        units,
        *,
        attention_activation,
        hidden_activation,
        output_activation,
        use_bias,
        unit_discount_bias,
        **kwargs,
    ):
        super().__init__(units, **kwargs)
        self.attention_activation = validation.one_of(
            "attention_activation",
            attention_activation,
            attention_average.ATTENTION_ACTIVATIONS,
        )
        self.hidden_activation = validation.one_of(
            "hidden_activation", hidden_activation, attention_average.HIDDEN_ACTIVATIONS
        )
        self.output_activation = validation.one_of(
            "output_activation", output_activation, attention_average.OUTPUT_ACTIVATIONS
        )
        self.use_bias = bool(use_bias)
        self.unit_discount_bias = bool(unit_discount_bias)
        self.output_size = self.units

    @property
    def accumulation_dtype(self):
        """dtype of the running sums: float32 under mixed precision."""
        dtype = self.compute_dtype
        return dtype if dtype in ACCUMULATION_DTYPES else "float32"

    def build_bias(self):
        """`bias` `[num_blocks * units]` (None without `use_bias`): every block
        from `bias_initializer`, except that with `unit_discount_bias` the
        discount gate starts at 1 (RDA paper, section 6.1, like the forget
        gate of Gers et al. 2000)."""
        if not self.use_bias:
            return None
        base, units, num_blocks = self.bias_initializer, self.units, self.num_blocks
        discount_one = self.unit_discount_bias

        def initializer(shape, dtype=None):
            del shape
            blocks = [base((units,), dtype=dtype) for _ in range(num_blocks)]
            if discount_one:
                blocks[-1] = ops.ones((units,), dtype=dtype)
            return ops.concatenate(blocks, axis=0)

        return self.add_cell_weight("bias", (num_blocks * units,), initializer, "bias")

    def update_sums(self, sums, z, log_a, log_gamma=None, positive=None):
        """One step of the scaled sums, in the accumulation dtype.

        Args:
            sums: the stored `[n, d, m]`, each `[batch, units]`, in any dtype.
            z, log_a, log_gamma, positive: `[batch, units]` in the
                accumulation dtype, as `attention_average.
                discounted_average_update` takes them.

        Returns:
            `(n_t, d_t, m_t)` in the accumulation dtype (see
            `attention_average.discounted_average_update`).
        """
        acc = self.accumulation_dtype
        numerator, denominator, log_scale = (ops.cast(s, acc) for s in sums)
        return attention_average.discounted_average_update(
            numerator,
            denominator,
            log_scale,
            z,
            log_a,
            log_gamma=log_gamma,
            positive=positive,
        )

    def project_inputs(self, inputs):
        """`W [x_t] + b`, all blocks.

        Args:
            inputs: `[..., input_dim]`: one step or a whole sequence
                `[batch, time, input_dim]` (one matmul for all steps).

        Returns:
            `[..., num_blocks * units]`.
        """
        projected = ops.matmul(inputs, self.kernel)
        if self.use_bias:
            projected = projected + self.bias
        return projected
