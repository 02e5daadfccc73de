"""What an RWA/RDA run's unit is doing, logged beside its learning curve.

`make_diagnostics` builds a Keras callback that, at the end of every
evaluation interval, writes into the logs (as `diag_<name>`, which the curve
recorder after it keeps: `keras-rda train/compare ... --diagnose`) the
largest training loss of one batch in the interval (`batch_loss_max`) and,
on a fixed probe batch: the gradient's global norm, largest element and
share above 1 (`grad_norm`, `grad_max`, `grad_clipped`); the weights' norm
and mean gate biases (`weight_norm`, `attention_bias`, `discount_bias`);
and the unit's internals from a float64 NumPy run of the recurrence,
independent of the package's ops: the attention logits' range, the
discount's mean and share below 0.5, the running maximum `m_T`, the largest
`log d_T` and `|n_T / d_T|`, the spread of `o_T` over the batch
(`output_spread`: 0 when every sequence gives the same output) and the
share of `d_T` the last tenth of the steps contribute (`tail_weight`: near
1 when the discount has forgotten everything before them).
"""

import numpy as np

# The logs keys, in the order they are written.
DIAGNOSTIC_KEYS = (
    "batch_loss_max",
    "grad_norm",
    "grad_max",
    "grad_clipped",
    "weight_norm",
    "attention_bias",
    "discount_bias",
    "attention_logit_min",
    "attention_logit_max",
    "discount_mean",
    "discount_below_half",
    "running_max_min",
    "running_max_max",
    "log_denominator_max",
    "average_max",
    "output_spread",
    "tail_weight",
)


def find_attention_layer(model):
    """The first layer of `model` whose cell is an RWA/RDA cell reading
    `h_{t-1}` (`RWACell`, `RDACell`), or None."""
    from keras_rda import RDACell
    from keras_rda import RWACell

    for layer in model._flatten_layers(include_self=False):
        cell = getattr(layer, "cell", None)
        if isinstance(cell, (RWACell, RDACell)) and cell.gates_read_hidden:
            return layer
    return None


def _log_attention(logits, activation):
    """`log f_a(logits)` in NumPy (`-inf` where a ReLU weight is 0)."""
    if activation == "exp":
        return logits
    if activation == "sigmoid":
        return -np.logaddexp(0.0, -logits)
    if activation == "softplus":
        return np.log(np.logaddexp(0.0, logits))
    with np.errstate(divide="ignore"):
        return np.log(np.maximum(logits, 0.0))


def unit_internals(cell, inputs):
    """The statistics of `run_unit` (without its output)."""
    return run_unit(cell, inputs)[1]


def run_unit(cell, inputs):
    """Runs an RWA/RDA cell over `inputs` in float64 NumPy.

    The recurrence is the papers' (RDA paper section 5, RWA paper eq. 2-7,
    Appendix D for the scaled sums), written from the weights alone:
    `[u, g, a, gamma] = W x_t + b + R h_{t-1}` (no R for u),
    `m_t = max(m_{t-1} + log gamma_t, log a_t)`, the scaled sums
    `n^_t, d^_t`, `h_t = f_h(n^_t / d^_t)` (`f_h(s0)` before anything is
    attended), `o_t = f_o(h_t)`. Returns `(o_T, stats)`: the last step's
    output `[batch, units]` and the unit's keys of `DIAGNOSTIC_KEYS`.
    """
    x = np.asarray(inputs, np.float64)
    units = cell.units
    kernel = np.asarray(cell.kernel, np.float64)
    recurrent = np.asarray(cell.recurrent_kernel, np.float64)
    bias = np.asarray(cell.bias, np.float64) if cell.use_bias else 0.0
    batch, time = x.shape[:2]
    f_h = np.tanh if cell.hidden_activation == "tanh" else (lambda v: v)
    f_o = np.tanh if cell.output_activation == "tanh" else (lambda v: v)
    empty = np.zeros((batch, units))
    if cell.learn_initial_state:
        empty = np.broadcast_to(np.asarray(cell.initial_state, np.float64), empty.shape)
    h = f_h(empty)
    n = np.zeros((batch, units))
    d = np.zeros((batch, units))
    m = np.zeros((batch, units))
    logit_min, logit_max = np.inf, -np.inf
    gamma_sum, gamma_low = 0.0, 0.0
    tail = np.zeros((batch, units))  # d^ of the steps from tail_start on
    tail_start = time - max(1, time // 10)
    projected = x @ kernel + bias
    for t in range(time):
        u = projected[:, t, :units]
        gates = projected[:, t, units:] + h @ recurrent
        g, a_logits = gates[:, :units], gates[:, units : 2 * units]
        logit_min = min(logit_min, a_logits.min())
        logit_max = max(logit_max, a_logits.max())
        log_a = _log_attention(a_logits, cell.attention_activation)
        past = m
        if cell.discount:
            gamma_logits = gates[:, 2 * units :]
            gamma = 1.0 / (1.0 + np.exp(-gamma_logits))
            gamma_sum += gamma.mean()
            gamma_low += (gamma < 0.5).mean()
            past = m - np.logaddexp(0.0, -gamma_logits)
        attended = d > 0
        past = np.where(attended, past, log_a)
        m = np.maximum(past, log_a)
        with np.errstate(invalid="ignore"):
            p = np.where(np.isfinite(past), np.exp(past - m), 0.0)
            q = np.where(np.isfinite(log_a), np.exp(log_a - m), 0.0)
        m = np.where(np.isfinite(m), m, 0.0)
        n = n * p + u * np.tanh(g) * q
        d = d * p + q
        if t >= tail_start:
            tail = tail * p + q
        average = np.where(d > 0, n / np.where(d > 0, d, 1.0), empty)
        h = f_h(average)
    output = f_o(h)
    with np.errstate(divide="ignore"):
        log_d = np.where(d > 0, np.log(np.where(d > 0, d, 1.0)) + m, -np.inf)
    stats = {
        "attention_logit_min": logit_min,
        "attention_logit_max": logit_max,
        "running_max_min": m.min(),
        "running_max_max": m.max(),
        "log_denominator_max": log_d.max(),
        "average_max": np.abs(average).max(),
        "output_spread": output.std(axis=0).mean(),
        "tail_weight": np.mean(np.where(d > 0, tail / np.where(d > 0, d, 1.0), 0.0)),
    }
    if cell.discount:
        stats["discount_mean"] = gamma_sum / time
        stats["discount_below_half"] = gamma_low / time
    return output, {key: float(value) for key, value in stats.items()}


def gradient_statistics(model, loss, x, y, sample_weight=None):
    """`{"grad_norm", "grad_max", "grad_clipped"}`: the `loss` gradient's
    global norm, largest element and share of elements above 1 in size, on
    one batch (TensorFlow or JAX)."""
    import keras

    backend = keras.backend.backend()
    if backend == "tensorflow":
        import tensorflow as tf

        with tf.GradientTape() as tape:
            value = loss(y, model(x, training=True), sample_weight=sample_weight)
        grads = tape.gradient(value, model.trainable_variables)
    elif backend == "jax":
        import jax

        trainable = [v.value for v in model.trainable_variables]
        fixed = [v.value for v in model.non_trainable_variables]

        def loss_of(weights):
            outputs, _ = model.stateless_call(weights, fixed, x, training=True)
            return loss(y, outputs, sample_weight=sample_weight)

        grads = jax.grad(loss_of)(trainable)
    else:
        raise ValueError(
            "Received an invalid value for argument `backend`, expected "
            f"'tensorflow' or 'jax', got {backend!r}"
        )
    flat = np.concatenate(
        [np.ravel(np.asarray(g, np.float64)) for g in grads if g is not None]
    )
    return {
        "grad_norm": float(np.sqrt(np.sum(flat**2))),
        "grad_max": float(np.abs(flat).max()),
        "grad_clipped": float(np.mean(np.abs(flat) > 1.0)),
    }


def weight_statistics(model, cell):
    """The global weight norm and the mean attention / discount biases."""
    flat = np.concatenate(
        [np.ravel(np.asarray(v, np.float64)) for v in model.trainable_variables]
    )
    stats = {"weight_norm": float(np.sqrt(np.sum(flat**2)))}
    if cell is not None and cell.use_bias:
        bias = np.asarray(cell.bias, np.float64).reshape(cell.num_blocks, cell.units)
        stats["attention_bias"] = float(bias[2].mean())
        if cell.discount:
            stats["discount_bias"] = float(bias[3].mean())
    return stats


def make_diagnostics(task, probe_examples=100, prefix="diag_"):
    """A Keras callback adding the module's measurements (keys `prefix` +
    name) to each epoch's logs, on a probe batch of the first `probe_examples`
    of `task.held_out`; place it before the curve recorder. Models without an
    RWA/RDA cell get the gradient and weight statistics only."""
    import keras

    from keras_rda.utils import validation

    probe_examples = validation.positive_int("probe_examples", probe_examples)
    x, y, w = task.held_out(probe_examples)
    x, y, w = x[:probe_examples], y[:probe_examples], w[:probe_examples]

    class UnitDiagnostics(keras.callbacks.Callback):
        def on_epoch_begin(self, epoch, logs=None):
            self.mean_loss, self.batches, self.batch_loss_max = 0.0, 0, -np.inf

        def on_train_batch_end(self, batch, logs=None):
            # Keras logs the mean loss of the interval so far: the batch's
            # own loss is what it added to that mean.
            if logs is None or "loss" not in logs:
                return
            mean = float(logs["loss"])
            loss = (self.batches + 1) * mean - self.batches * self.mean_loss
            self.batch_loss_max = max(self.batch_loss_max, loss)
            self.mean_loss, self.batches = mean, self.batches + 1

        def on_epoch_end(self, epoch, logs=None):
            if logs is None:
                return
            layer = find_attention_layer(self.model)
            cell = None if layer is None else layer.cell
            stats = gradient_statistics(self.model, task.loss, x, y, w)
            if getattr(self, "batches", 0):
                stats["batch_loss_max"] = self.batch_loss_max
            stats.update(weight_statistics(self.model, cell))
            if cell is not None:
                layer_input = keras.Model(self.model.inputs, layer.input)([x])
                stats.update(unit_internals(cell, np.asarray(layer_input)))
            for key in DIAGNOSTIC_KEYS:
                if key in stats:
                    logs[prefix + key] = stats[key]

    return UnitDiagnostics()
