"""Write schedules: patterns, memory access exactly on scheduled steps, CUW."""

import keras
import numpy as np
import pytest

import keras_rda
from keras_rda.memory import CachedUniformWriting
from keras_rda.memory import RandomWriting
from keras_rda.memory import RegularWriting
from keras_rda.memory import UniformWriting
from keras_rda.memory import get_write_schedule
from tests.memory import numpy_reference as ref
from tests.memory.helpers import np_
from tests.memory.helpers import parts
from tests.memory.helpers import run_steps

T = 13
D = 3  # memory size used below


def _expected(schedule):
    """Access steps written from the paper's rules, t = 1..T."""
    t = np.arange(1, T + 1)
    if isinstance(schedule, RegularWriting):
        return np.ones(T, bool)
    if isinstance(schedule, UniformWriting):
        interval = schedule.interval or schedule.sequence_length // (D + 1)
        pattern = t % interval == 0
    elif isinstance(schedule, CachedUniformWriting):
        pattern = t % schedule.cache_size == 0
    else:
        pattern = np.ones(T, bool)
        policy = schedule.policy(D)
        pattern[: len(policy)] = policy[:T]
    if schedule.encoding_steps is not None:
        pattern |= t > schedule.encoding_steps
    return pattern


SCHEDULES = [
    RegularWriting(),
    UniformWriting(interval=3),
    UniformWriting(sequence_length=9),  # floor(9 / 4) = 2
    UniformWriting(interval=4, encoding_steps=8),
    CachedUniformWriting(3),
    CachedUniformWriting(2, encoding_steps=6),
    RandomWriting(rate=0.4, sequence_length=T, seed=3),
    RandomWriting(sequence_length=8, encoding_steps=8, seed=5),
]


def test_patterns():
    assert list(
        np.flatnonzero(UniformWriting(sequence_length=50).access_pattern(50, 4)) + 1
    ) == [10, 20, 30, 40, 50]
    pattern = UniformWriting(interval=10, encoding_steps=50).access_pattern(60, 4)
    assert pattern[50:].all() and pattern[:50].sum() == 5
    assert UniformWriting(sequence_length=100).interval_for(4) == 20
    for schedule in SCHEDULES:
        np.testing.assert_array_equal(
            schedule.access_pattern(T, D), _expected(schedule)
        )


def test_random_policy_is_fixed_per_object_and_has_rate_d_plus_1_over_t():
    schedule = RandomWriting(sequence_length=4000, seed=7)
    first = schedule.access_pattern(4000, 39)  # p = 40 / 4000 = 0.01
    np.testing.assert_array_equal(first, schedule.access_pattern(4000, 39))
    clone = RandomWriting.from_config(schedule.get_config())
    np.testing.assert_array_equal(first, clone.access_pattern(4000, 39))
    assert 0.005 < first.mean() < 0.015
    high = RandomWriting(rate=0.5, sequence_length=4000, seed=7).access_pattern(4000, 4)
    assert 0.46 < high.mean() < 0.54
    other = RandomWriting(rate=0.5, sequence_length=4000, seed=8).access_pattern(
        4000, 4
    )
    assert np.any(high != other)
    unseeded = RandomWriting(sequence_length=100)
    assert isinstance(unseeded.get_config()["seed"], int)


def _cell(kind, schedule, controller=None):
    controller = controller or keras.layers.LSTMCell(5)
    if kind == "dnc":
        return keras_rda.DNCCell(
            controller, D, 4, num_read_heads=2, write_schedule=schedule
        )
    return keras_rda.NTMCell(
        controller, D, 4, num_read_heads=2, write_schedule=schedule
    )


CELL_CASES = [("dnc", s) for s in SCHEDULES] + [
    ("ntm", SCHEDULES[0]),
    ("ntm", SCHEDULES[3]),
    ("ntm", SCHEDULES[5]),
    ("ntm", SCHEDULES[6]),
]


@pytest.mark.parametrize("kind,schedule", CELL_CASES, ids=repr)
def test_memory_changes_exactly_on_scheduled_steps(kind, schedule, rng):
    cell = _cell(kind, schedule)
    cell.build((None, 2))
    x = rng.normal(size=(2, T, 2)).astype("float32")
    _, states = run_steps(cell, x)
    expected = _expected(schedule)
    # On the steps without access every part of the memory's state (DNC:
    # also usage, link, precedence) and the read vectors stay bit for bit;
    # on the steps with access memory, weights and read vectors all change.
    held = [*cell.unpack_states(states[0]).access._fields, "read_vectors"]
    changing = ["memory", "read_weights", "write_weights", "read_vectors"]
    assert set(changing) <= set(held)
    for t in range(T):
        before, after = parts(cell, states[t]), parts(cell, states[t + 1])
        for name in changing if expected[t] else held:
            changed = np.any(before[name] != after[name])
            assert changed == expected[t], (name, t + 1)
        # The controller runs on every step.
        assert np.any(before["controller"][0] != after["controller"][0])


def test_all_samples_use_their_own_step_under_masking(rng):
    schedule = UniformWriting(interval=2)
    cell = _cell("dnc", schedule)
    layer = keras.layers.RNN(cell, return_state=True)
    x = rng.normal(size=(2, 6, 2)).astype("float32")
    mask = np.array([[True] * 6, [True] * 3 + [False] * 3])
    _, *states = layer(x, mask=mask)
    np.testing.assert_array_equal(np_(cell.unpack_states(states).step), [6, 3])


def test_cached_uniform_writing_with_cache_size_1_equals_regular(rng):
    x = rng.normal(size=(2, 7, 3)).astype("float32")
    regular = _cell("dnc", "regular")
    outputs = {}
    layers = {}
    for name, schedule in [
        ("regular", RegularWriting()),
        ("cuw1", CachedUniformWriting(1)),
        ("cuw1_enc", CachedUniformWriting(1, encoding_steps=4)),
    ]:
        cell = regular if name == "regular" else _cell("dnc", schedule)
        layers[name] = keras.layers.RNN(cell, return_sequences=True)
        layers[name].build((None, 7, 3))
    for name in ("cuw1", "cuw1_enc"):
        cell = layers[name].cell
        cell.controller.set_weights(regular.controller.get_weights())
        cell.interface.set_weights(regular.interface.get_weights())
        cell.output_projection.set_weights(regular.output_projection.get_weights())
    for name, layer in layers.items():
        outputs[name] = np_(layer(x))
    np.testing.assert_allclose(outputs["cuw1"], outputs["regular"], atol=1e-6)
    np.testing.assert_allclose(outputs["cuw1_enc"], outputs["regular"], atol=1e-6)


def test_cached_uniform_writing_attends_over_the_cache(rng):
    """Algorithm 1 with eq. 9-10 against NumPy, L = 3, over two write cycles."""
    L = 3
    cell = _cell("dnc", CachedUniformWriting(L), controller=keras.layers.GRUCell(4))
    cell.build((None, 2))
    x = rng.normal(size=(2, 2 * L, 2)).astype("float32")
    _, states = run_steps(cell, x)
    kernels = [
        np_(k)
        for k in (
            cell.cache_query_kernel,
            cell.cache_key_kernel,
            cell.cache_read_kernel,
            cell.cache_score_kernel,
        )
    ]
    hiddens = [parts(cell, s)["controller"][0] for s in states]
    for t in range(1, 2 * L + 1):
        prev = parts(cell, states[t - 1])
        h_prev = hiddens[t - 1]
        reads = prev["read_vectors"].reshape(2, -1)
        if t % L == 0:
            cache = np.stack(hiddens[t - L : t], axis=1)  # h_{t-L} .. h_{t-1}
            np.testing.assert_allclose(
                parts(cell, states[t])["cache"], cache, atol=1e-6
            )
            start = np.stack(
                [
                    ref.cache_attention(cache[b], h_prev[b], reads[b], *kernels)
                    for b in range(2)
                ]
            )
        else:
            start = h_prev
        want, _ = cell.controller(
            np.concatenate([x[:, t - 1], reads], -1),
            [keras.ops.convert_to_tensor(start, "float32")],
        )
        np.testing.assert_allclose(hiddens[t], np_(want), atol=1e-5)


def test_read_vector_is_held_between_writes(rng):
    cell = _cell("ntm", UniformWriting(interval=4))
    cell.build((None, 2))
    _, states = run_steps(cell, rng.normal(size=(1, 8, 2)).astype("float32"))
    reads = [parts(cell, s)["read_vectors"] for s in states]
    for t in (1, 2, 3):
        np.testing.assert_array_equal(reads[t], reads[0])
    for t in (5, 6, 7):
        np.testing.assert_array_equal(reads[t], reads[4])
    assert np.any(reads[4] != reads[0])


@pytest.mark.parametrize("schedule", SCHEDULES, ids=repr)
def test_schedule_serialisation(schedule):
    config = keras.saving.serialize_keras_object(schedule)
    assert get_write_schedule(config) == schedule
    np.testing.assert_array_equal(
        get_write_schedule(config).access_pattern(T, D), schedule.access_pattern(T, D)
    )


def test_aliases():
    assert get_write_schedule("regular") == RegularWriting()
    assert get_write_schedule(None) == RegularWriting()
    assert get_write_schedule("uniform", interval=3) == UniformWriting(interval=3)
    assert get_write_schedule("cached_uniform", cache_size=5) == CachedUniformWriting(5)
    assert get_write_schedule("random", sequence_length=9, seed=1) == RandomWriting(
        sequence_length=9, seed=1
    )


@pytest.mark.parametrize(
    "make",
    [
        lambda: UniformWriting(),
        lambda: UniformWriting(interval=0),
        lambda: UniformWriting(interval=2, sequence_length=10),
        lambda: UniformWriting(interval=2, encoding_steps=0),
        lambda: CachedUniformWriting(0),
        lambda: CachedUniformWriting(5, encoding_steps=3),
        lambda: RandomWriting(),
        lambda: RandomWriting(rate=1.5, sequence_length=10),
        lambda: RandomWriting(rate=0.0, sequence_length=10),
        lambda: RandomWriting(sequence_length=10, seed="a"),
        lambda: get_write_schedule("bogus"),
        lambda: get_write_schedule("uniform"),
        lambda: get_write_schedule("cached_uniform"),
        lambda: get_write_schedule(3),
        # Memories that do not fit the schedule.
        lambda: keras_rda.DNCCell(
            keras.layers.LSTMCell(2),
            4,
            2,
            write_schedule=UniformWriting(sequence_length=4),
        ),
        lambda: keras_rda.NTMCell(
            keras.layers.LSTMCell(2),
            10,
            2,
            write_schedule=RandomWriting(sequence_length=5),
        ),
    ],
)
def test_bad_arguments_raise_value_error(make):
    with pytest.raises(ValueError, match="Received an invalid value"):
        make()


def test_registry_builds_every_alias_from_one_description():
    """One call describes any schedule; each takes only its own arguments."""
    from keras_rda.memory import SCHEDULES

    described = dict(sequence_length=20, encoding_steps=20, cache_size=4, seed=7)
    built = {
        name: get_write_schedule(name, drop_unused=True, **described)
        for name in SCHEDULES
    }
    assert built == {
        "regular": RegularWriting(),
        "uniform": UniformWriting(sequence_length=20, encoding_steps=20),
        "cached_uniform": CachedUniformWriting(4, encoding_steps=20),
        "random": RandomWriting(sequence_length=20, encoding_steps=20, seed=7),
    }
    with pytest.raises(ValueError, match="write_schedule"):
        get_write_schedule("uniform", **described)  # cache_size is not its own


def test_schedule_modules_do_not_import_the_registry():
    import ast
    import inspect

    import keras_rda.memory.schedules.cached_uniform_writing as cuw
    import keras_rda.memory.schedules.random_writing as rw
    import keras_rda.memory.schedules.regular_writing as regular
    import keras_rda.memory.schedules.uniform_writing as uw
    import keras_rda.memory.schedules.write_schedule as base

    # The registry is the package's __init__; a schedule imports its base
    # class only, and the base class no schedule.
    def package_imports(module):
        tree = ast.parse(inspect.getsource(module))
        return {
            node.module
            for node in ast.walk(tree)
            if isinstance(node, ast.ImportFrom) and node.module.startswith("keras_rda")
        }

    assert package_imports(base) == {"keras_rda.utils"}
    for module in (regular, uw, cuw, rw):
        assert package_imports(module) <= {
            "keras_rda.memory.schedules.write_schedule",
            "keras_rda.utils",
        }


@pytest.mark.parametrize(
    "schedule, fits, refused",
    [
        (RegularWriting(), [1, 50], []),
        (UniformWriting(interval=4), [4, 5, 50], [1, 3]),
        (UniformWriting(sequence_length=20), [20], [4, 19, 21, 80]),
        (UniformWriting(sequence_length=20, encoding_steps=20), [20, 30], [19]),
        (CachedUniformWriting(5), [5, 50], [4]),
        (CachedUniformWriting(5, encoding_steps=6), [5, 6, 50], [4]),
        (RandomWriting(sequence_length=20, seed=0), [20], [19, 21]),
        (RandomWriting(rate=0.5, encoding_steps=20, seed=0), [20, 30], []),
    ],
)
def test_check_length(schedule, fits, refused):
    """A schedule fits a length it is made for (its `declared_length`) with
    at least one access among the steps it governs."""
    for steps in fits:
        schedule.check_length(steps, D)
    for steps in refused:
        with pytest.raises(ValueError, match=f"got inputs of {steps} steps"):
            schedule.check_length(steps, D)


@pytest.mark.parametrize(
    "schedule, refused",
    [
        (RegularWriting(), False),
        (UniformWriting(interval=4), False),
        (UniformWriting(sequence_length=20), True),
        (UniformWriting(sequence_length=20, encoding_steps=20), False),
        (CachedUniformWriting(5), False),
        (RandomWriting(sequence_length=20, seed=0), True),
        (RandomWriting(sequence_length=20, encoding_steps=20, seed=0), False),
    ],
)
def test_check_length_of_an_unknown_length(schedule, refused):
    """Only a schedule whose steps depend on the length refuses None."""
    if not refused:
        schedule.check_length(None, D)
        return
    with pytest.raises(ValueError, match="got a time axis of unknown length"):
        schedule.check_length(None, D)


def test_first_access_step():
    assert UniformWriting(sequence_length=20).first_access_step(D) == 5
    assert CachedUniformWriting(7).first_access_step(D) == 7
    policy = RandomWriting(rate=0.3, sequence_length=30, seed=2).policy(D)
    assert RandomWriting(rate=0.3, sequence_length=30, seed=2).first_access_step(D) == (
        int(np.argmax(policy)) + 1
    )
