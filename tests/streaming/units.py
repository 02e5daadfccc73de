"""The units the streaming tests cover: name -> a builder of a sequence model."""

import keras

import keras_rda

FEATURES = 3
UNITS = 4
STEPS = 9


def memory_kwargs(schedule):
    return dict(memory_size=3, word_size=4, num_read_heads=1, write_schedule=schedule)


SCHEDULES = {
    "regular": lambda: "regular",
    "uniform": lambda: keras_rda.UniformWriting(interval=2),
    "cached_uniform": lambda: keras_rda.CachedUniformWriting(cache_size=2),
}


def cell_layer(make_cell):
    return lambda: keras.layers.RNN(make_cell(), return_sequences=True)


CELLS = {
    "RNN(RDACell)": cell_layer(lambda: keras_rda.RDACell(UNITS)),
    "RNN(RDACell exp-tanh, learned s0)": cell_layer(
        lambda: keras_rda.RDACell(
            UNITS,
            variant="exp-tanh",
            learn_initial_state=True,
            initial_state_initializer="random_normal",
        )
    ),
    "RNN(RWACell)": cell_layer(
        lambda: keras_rda.RWACell(UNITS, initial_state_initializer="random_normal")
    ),
    "RNN(ParallelRDACell)": cell_layer(lambda: keras_rda.ParallelRDACell(UNITS)),
    "RNN(FastWeightsCell)": cell_layer(lambda: keras_rda.FastWeightsCell(UNITS)),
    "RNN(WeiNetCell)": cell_layer(lambda: keras_rda.WeiNetCell(UNITS)),
    "RNN(LayerNormLSTMCell)": cell_layer(lambda: keras_rda.LayerNormLSTMCell(UNITS)),
    "RNN(RecurrentHighwayCell)": cell_layer(
        lambda: keras_rda.RecurrentHighwayCell(UNITS)
    ),
    "RNN(LSTMCell)": cell_layer(lambda: keras.layers.LSTMCell(UNITS)),
    "RNN(GRUCell)": cell_layer(lambda: keras.layers.GRUCell(UNITS)),
    "RNN(SimpleRNNCell)": cell_layer(lambda: keras.layers.SimpleRNNCell(UNITS)),
    "LSTM": lambda: keras.layers.LSTM(UNITS, return_sequences=True),
    "GRU": lambda: keras.layers.GRU(UNITS, return_sequences=True),
    "RDA": lambda: keras_rda.RDA(UNITS, return_sequences=True),
    "RWA": lambda: keras_rda.RWA(UNITS, return_sequences=True),
    "ParallelRDA": lambda: keras_rda.ParallelRDA(UNITS, return_sequences=True),
}
for _name, _schedule in SCHEDULES.items():
    CELLS[f"RNN(DNCCell {_name})"] = cell_layer(
        lambda s=_schedule: keras_rda.DNCCell(
            keras.layers.LSTMCell(UNITS), **memory_kwargs(s())
        )
    )
    CELLS[f"RNN(NTMCell {_name})"] = cell_layer(
        lambda s=_schedule: keras_rda.NTMCell(
            keras.layers.LSTMCell(UNITS), **memory_kwargs(s())
        )
    )
    CELLS[f"DNC {_name}"] = lambda s=_schedule: keras_rda.DNC(
        keras.layers.LSTMCell(UNITS), **memory_kwargs(s()), return_sequences=True
    )
    CELLS[f"NTM {_name}"] = lambda s=_schedule: keras_rda.NTM(
        keras.layers.LSTMCell(UNITS), **memory_kwargs(s()), return_sequences=True
    )


def sequence_model(name, head=True):
    """`Input -> unit -> Dense(2)` (the Dense shows per-step layers work)."""
    layers = [keras.Input((None, FEATURES)), CELLS[name]()]
    if head:
        layers.append(keras.layers.Dense(2))
    return keras.Sequential(layers)
