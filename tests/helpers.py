"""Helpers shared by the tests: NumPy activations, weight setters and the
environment of the two-device JAX tests.

The NumPy functions are the plain formulas (float64 where given float64),
written independently of the package, for the reference implementations.
"""

import os

import keras
import numpy as np

# XLA_FLAGS of the tests that split JAX's CPU into two devices. XLA's CPU
# collectives (the all-reduce of a data-parallel step) wait at a rendezvous
# for every device's thread; by default they warn after 20 s and abort the
# process after 40 s ("Termination timeout for `all reduce ...` exceeded"),
# which a thread on a busy CI machine can reach. These tests wait up to 10
# minutes; their subprocess timeouts still end a run that hangs.
# They keep the suite's own flags (tests/conftest.py).
TWO_CPU_DEVICES_XLA_FLAGS = " ".join(
    filter(
        None,
        (
            os.environ.get("XLA_FLAGS"),
            "--xla_force_host_platform_device_count=2",
            "--xla_cpu_collective_call_warn_stuck_timeout_seconds=120",
            "--xla_cpu_collective_call_terminate_timeout_seconds=600",
        ),
    )
)


def exports_saved_model():
    """Whether `model.export` writes a SavedModel on this backend.

    Not on PyTorch: Keras's export fails inside `torch.export` (a
    dynamic-shapes error; docs/guides/backends-and-performance.md). Tests
    that check a SavedModel beside something else (a `.keras` round trip)
    check only the rest there;
    the tests that are only about export are known failures on PyTorch
    (`KNOWN_BACKEND_FAILURES` in tests/conftest.py).
    """
    return keras.backend.backend() != "torch"


def sigmoid(x):
    """`1 / (1 + exp(-x))`."""
    return 1.0 / (1.0 + np.exp(-x))


def softplus(x):
    """`log(1 + exp(x))`, without overflow for large `x`."""
    return np.log1p(np.exp(-np.abs(x))) + np.maximum(x, 0)


def softmax(x, axis=-1):
    """Softmax over `axis`, shifted by the maximum."""
    e = np.exp(x - x.max(axis=axis, keepdims=True))
    return e / e.sum(axis=axis, keepdims=True)


def perturb_weights(layer, rng, scale=0.3):
    """Adds `N(0, scale^2)` noise to every weight of `layer`.

    Moves gains, biases and structured initialisations (identity, unit
    biases) off their initial values while keeping their scale.
    """
    for weight in layer.weights:
        noise = scale * rng.normal(size=weight.shape)
        weight.assign(np.asarray(weight) + noise.astype(weight.dtype))


def set_random_weights(layer, rng, scale=1.0):
    """Replaces every weight of `layer` with fresh `N(0, scale^2)` draws.

    Returns:
        The new weights as float64 NumPy arrays, in `layer.weights` order.
    """
    weights = [
        (scale * rng.standard_normal(w.shape)).astype(np.float32)
        for w in layer.get_weights()
    ]
    layer.set_weights(weights)
    return [w.astype(np.float64) for w in weights]


def perturbed_sequence_outputs(cell, x, rng, scale=0.3):
    """Outputs of `keras.layers.RNN(cell)` at every step of `x`, after
    `perturb_weights` moved the cell's weights off their initial values."""
    layer = keras.layers.RNN(cell, return_sequences=True)
    layer(x)
    perturb_weights(cell, rng, scale)
    return np.asarray(layer(x))
