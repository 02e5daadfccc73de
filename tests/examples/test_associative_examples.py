"""The WeiNet paper's MNIST-with-fixed-glimpses example runs and cuts glimpses right."""

import pathlib
import runpy
import sys

import keras
import numpy as np
import pytest

EXAMPLE = pathlib.Path(__file__).resolve().parents[2] / "examples" / "mnist_glimpses.py"


@pytest.fixture(scope="module")
def quick_run():
    argv = sys.argv
    sys.argv = [str(EXAMPLE), "--quick"]
    compile_model = keras.Model.compile

    def compile_eagerly(model, *args, **kwargs):
        # Two tiny steps: running them eagerly is faster than compiling.
        return compile_model(model, *args, **{**kwargs, "run_eagerly": True})

    try:
        with pytest.MonkeyPatch.context() as patch:
            patch.setattr(keras.Model, "compile", compile_eagerly)
            return runpy.run_path(str(EXAMPLE), run_name="__main__")
    finally:
        sys.argv = argv


def test_quick_run_trains_weinet(quick_run):
    model = quick_run["model"]
    assert int(keras.ops.convert_to_numpy(model.optimizer.iterations)) > 0
    assert model.get_layer("rnn").cell.__class__.__name__ == "WeiNetCell"
    assert model.output_shape == (None, 10)


def test_glimpses_are_the_image_then_its_four_quadrants(quick_run):
    images = np.arange(2 * 28 * 28, dtype="float32").reshape(2, 28, 28)
    whole, quadrants = quick_run["glimpses"](images)
    whole, quadrants = np.asarray(whole), np.asarray(quadrants)
    np.testing.assert_array_equal(whole, images.reshape(2, 784))
    expected = [
        images[:, :14, :14],
        images[:, :14, 14:],
        images[:, 14:, :14],
        images[:, 14:, 14:],
    ]
    for k in range(4):
        np.testing.assert_array_equal(quadrants[:, k], expected[k].reshape(2, 196))
    # non-overlapping and complete: every pixel appears exactly once
    assert sorted(quadrants.reshape(2, -1)[0]) == sorted(images[0].ravel())


def test_schedule_decays_to_the_floor(quick_run):
    schedule = quick_run["DecayWithFloor"](1e-3, 10, 0.98, 1e-4)
    np.testing.assert_allclose(float(schedule(0)), 1e-3, rtol=1e-6)
    np.testing.assert_allclose(float(schedule(10)), 0.98e-3, rtol=1e-5)
    np.testing.assert_allclose(float(schedule(10**6)), 1e-4, rtol=1e-6)
