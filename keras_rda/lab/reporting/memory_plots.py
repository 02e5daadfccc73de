"""Write and read weightings of a memory model over time, as heat maps.

Like Figures 4-5 of Le et al. 2019: each row a timestep, each column a
memory slot; the write weights while encoding and the read weights while
decoding.

```python
from keras_rda.lab.reporting import memory_plots
weights = memory_plots.memory_weightings(model, x[:1])
memory_plots.plot_memory_weightings(weights, "copy_dnc_uw.png",
                                    encoding_steps=51, title="DNC+UW")
```
"""

import keras
import numpy as np

from keras_rda.lab.files import replacing
from keras_rda.memory import BaseMemoryCell
from keras_rda.utils import validation


def find_memory_layer(model):
    """The first `keras.layers.RNN` in `model` (a model or the layer itself)
    whose cell is a `BaseMemoryCell`.

    Raises:
        ValueError: if there is none.
    """
    if isinstance(model, keras.layers.RNN) and isinstance(model.cell, BaseMemoryCell):
        return model
    for layer in model._flatten_layers(include_self=False, recursive=True):
        if isinstance(layer, keras.layers.RNN) and isinstance(
            layer.cell, BaseMemoryCell
        ):
            return layer
    raise validation.invalid_value(
        "model",
        "a model with a keras.layers.RNN around a DNCCell or NTMCell",
        getattr(model, "name", model),
    )


def memory_weightings(model, inputs, sample=0):
    """Run a trained memory model's cell step by step (eagerly, on the
    inputs the layers in front of it give) and record its weightings.

    `model` holds a `keras.layers.RNN` of a `DNCCell` or `NTMCell` (or is it);
    `sample` is the sequence of the batch `inputs` `[batch, T, features]` to
    record. Returns NumPy arrays: `"write"` `[T, Hw, N]` and `"read"` `[T, R,
    N]` (zero on steps without memory access), and `"access"` `[T]` (bool).
    """
    layer = find_memory_layer(model)
    cell = layer.cell
    inputs = np.asarray(inputs)[sample : sample + 1]
    if layer is not model:
        try:
            model_inputs = model.inputs
            if len(model_inputs) == 1:
                model_inputs = model_inputs[0]
            inputs = keras.Model(model_inputs, layer.input)(inputs)
        except (AttributeError, ValueError):
            pass  # the memory layer reads the model inputs directly
    inputs = keras.ops.convert_to_tensor(inputs)
    steps = inputs.shape[1]
    access = cell.write_schedule.access_pattern(steps, cell.memory_size)
    state = cell.get_initial_state(batch_size=1)
    writes, reads = [], []
    for t in range(steps):
        _, state = cell(inputs[:, t], state)
        weights = cell.weightings(state)
        scale = 1.0 if access[t] else 0.0
        writes.append(keras.ops.convert_to_numpy(weights["write"])[0] * scale)
        reads.append(keras.ops.convert_to_numpy(weights["read"])[0] * scale)
    return {"write": np.stack(writes), "read": np.stack(reads), "access": access}


def plot_memory_weightings(weightings, path=None, encoding_steps=None, title=None):
    """Heat maps of write and read weightings (rows timesteps, columns slots).

    With `encoding_steps = E` the two panels are the write weights of steps
    `1..E` and the read weights of steps `E+1..T` (the paper's "Encoding
    Write Weight" / "Decoding Read Weight"); otherwise both over all steps.
    Several write heads are summed, several read heads averaged.

    Returns the matplotlib figure, saved as a PNG to `path` unless it is None.
    """
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib.ticker import MaxNLocator

    write = weightings["write"].sum(axis=1)
    read = weightings["read"].mean(axis=1)
    steps = write.shape[0]
    if encoding_steps is None:
        panels = [("Write weight", write, 1), ("Read weight", read, 1)]
    else:
        panels = [
            ("Encoding write weight", write[:encoding_steps], 1),
            ("Decoding read weight", read[encoding_steps:], encoding_steps + 1),
        ]
    figure, axes = plt.subplots(
        1, 2, figsize=(5, max(3.0, 0.06 * steps + 1.5)), squeeze=True
    )
    for axis, (name, values, first) in zip(axes, panels):
        image = axis.imshow(
            values,
            aspect="auto",
            cmap="Greys",
            vmin=0.0,
            vmax=1.0,
            interpolation="nearest",
            extent=(
                -0.5,
                values.shape[1] - 0.5,
                first + len(values) - 0.5,
                first - 0.5,
            ),
        )
        axis.set_title(name, fontsize=9)
        axis.set_xlabel("memory slot")
        axis.set_xticks(range(values.shape[1]))
        axis.yaxis.set_major_locator(MaxNLocator(integer=True))
    axes[0].set_ylabel("timestep")
    figure.colorbar(image, ax=list(axes), shrink=0.8)
    if title:
        figure.suptitle(title)
    if path is not None:
        with replacing(path) as tmp:
            figure.savefig(tmp, dpi=120, bbox_inches="tight")
        plt.close(figure)
    return figure


def save_memory_heatmap(model, inputs, path, encoding_steps=None, title=None):
    """`memory_weightings` then `plot_memory_weightings` into `path`;
    returns the weightings."""
    weightings = memory_weightings(model, inputs)
    plot_memory_weightings(weightings, path, encoding_steps=encoding_steps, title=title)
    return weightings
