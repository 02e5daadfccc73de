"""Save one small model of every public unit: the fixtures of
`tests/test_saved_files.py`.

`python tests/data/save_every_unit.py tests/data` writes one `.keras` file
per unit (random non-zero weights) and `every_unit_outputs.npz` (the inputs
and the outputs of the code that saved them). The committed files are those
of the commit that last wrote them (`git log tests/data`);
`tests/test_saved_files.py` loads them with today's code and checks the
outputs, so that a change to a config, a registered name or the weight
order shows. Write them anew only for such a change made on purpose (the
files before were written before the library/lab split, at 1a0f59f, and
rewritten when `kernel_init_scheme` and the RWA/RDA `recurrent_initializer`
were removed).
"""

import sys

import keras
import numpy as np

import keras_rda


def models():
    """`{name: (model, input)}`, one per public unit, on small shapes."""
    rng = np.random.default_rng(0)
    x = rng.normal(size=(2, 7, 3)).astype("float32")

    def rnn(cell, **kwargs):
        return keras.Sequential(
            [keras.Input((7, 3)), keras.layers.RNN(cell, return_sequences=True)],
            **kwargs,
        )

    def layer(layer):
        return keras.Sequential([keras.Input((7, 3)), layer])

    def memory_cell(cls, schedule):
        return cls(
            keras.layers.LSTMCell(6),
            memory_size=4,
            word_size=5,
            write_schedule=schedule,
            output_units=3,
        )

    return {
        "rda_cell": (rnn(keras_rda.RDACell(5)), x),
        "rda_cell_exp_tanh": (rnn(keras_rda.RDACell(5, variant="exp-tanh")), x),
        "rwa_cell": (rnn(keras_rda.RWACell(5)), x),
        "parallel_rda_cell": (rnn(keras_rda.ParallelRDACell(5)), x),
        "fast_weights_cell": (rnn(keras_rda.FastWeightsCell(5)), x),
        "wei_net_cell": (rnn(keras_rda.WeiNetCell(5, num_memories=2)), x),
        "layer_norm_lstm_cell": (rnn(keras_rda.LayerNormLSTMCell(5)), x),
        "recurrent_highway_cell": (rnn(keras_rda.RecurrentHighwayCell(5)), x),
        "dnc_cell_regular": (rnn(memory_cell(keras_rda.DNCCell, "regular")), x),
        "ntm_cell_uniform": (
            rnn(memory_cell(keras_rda.NTMCell, keras_rda.UniformWriting(7))),
            x,
        ),
        "rda": (layer(keras_rda.RDA(5, return_sequences=True)), x),
        "rwa": (layer(keras_rda.RWA(5, return_sequences=True)), x),
        "parallel_rda": (layer(keras_rda.ParallelRDA(5, return_sequences=True)), x),
        "dnc_uniform": (
            layer(
                keras_rda.DNC(
                    keras.layers.LSTMCell(6),
                    memory_size=4,
                    word_size=5,
                    write_schedule=keras_rda.UniformWriting(7),
                    return_sequences=True,
                )
            ),
            x,
        ),
        "ntm_cached_uniform": (
            layer(
                keras_rda.NTM(
                    keras.layers.LSTMCell(6),
                    memory_size=4,
                    word_size=5,
                    write_schedule=keras_rda.CachedUniformWriting(3),
                    return_sequences=True,
                )
            ),
            x,
        ),
        "feed_forward_attention": (layer(keras_rda.FeedForwardAttention()), x),
    }


def main(out):
    keras.utils.set_random_seed(3)
    outputs = {}
    for name, (model, x) in models().items():
        # Non-zero biases and initial states, so that every weight counts.
        for weight in model.weights:
            shape = tuple(weight.shape)
            weight.assign(np.random.default_rng(1).normal(0, 0.3, shape))
        outputs[name] = keras.ops.convert_to_numpy(model(x))
        outputs[f"{name}__x"] = x
        model.save(f"{out}/{name}.keras")
    np.savez(f"{out}/every_unit_outputs.npz", **outputs)


if __name__ == "__main__":
    main(sys.argv[1])
