"""keras_rda.ops: the pure math the cells, layers and memory share.

Functions of tensors written with `keras.ops` (no layers, no weights), each
named after the paper's operation. Where to find an equation's code:

- `attention_average`: the RWA/RDA running (discounted) weighted average
  with its running maximum (RDA paper, section 5; RWA paper, eq. 7 and
  Appendix D), the attention activations, and the associative combination
  of two stretches of steps.
- `rda_recurrence`: the fused RWA/RDA time loop with its hand-written
  backward pass (what `keras_rda.RDA` and `keras_rda.RWA` run).
- `parallel_scan`: the same average over a whole sequence in parallel, for
  gates that read only `x_t` (`keras_rda.ParallelRDA`): chunked or
  associative scan.
- `scan` (and `tf_scan`, its TensorFlow loop): a `jax.lax.scan`-style loop
  with stacked per-step outputs on every backend.
- `addressing`: DNC and NTM memory addressing (content weights, usage,
  allocation, temporal links, read modes; erase and write; NTM shifts and
  sharpening).
- `associative`: the associative-memory math of fast weights and WeiNet
  (layer normalisation, outer products, memory reads).

Nothing here imports TensorFlow at import time: `tf_scan` is imported only
inside the TensorFlow branch of `scan`.

`keras_rda.ops.kernels` holds the same recurrence and scan as fused GPU
kernels (Pallas on JAX, Triton on PyTorch) and the rule that chooses them
(`use_kernel`); its backend modules are imported only when that backend
asks for a kernel.
"""

from keras_rda.ops import addressing
from keras_rda.ops import associative
from keras_rda.ops import attention_average
from keras_rda.ops import parallel_scan
from keras_rda.ops import rda_recurrence
from keras_rda.ops import scan

__all__ = [
    "addressing",
    "associative",
    "attention_average",
    "parallel_scan",
    "rda_recurrence",
    "scan",
]
