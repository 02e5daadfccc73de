"""Packaging for keras_rda."""

import pathlib

from setuptools import find_packages
from setuptools import setup

HERE = pathlib.Path(__file__).parent
version = {}
exec((HERE / "keras_rda" / "version.py").read_text(), version)

JAX = ["jax>=0.4.20"]
# The lab (keras_rda.lab: tasks, data sets, the zoo, runs, reports, the
# `keras-rda` command); the library itself needs Keras and NumPy only.
LAB = [
    "tensorflow-datasets",
    # tensorflow-datasets imports it when it downloads and prepares data.
    "importlib_resources",
    "matplotlib",
]
TORCH = ["torch>=2.1"]
# The Triton kernels of the RDA recurrence on PyTorch (keras_rda.ops.kernels);
# Triton ships for Linux only, and elsewhere the portable path runs.
TRITON = ["triton; platform_system == 'Linux'"]
# Exporting and running streaming step models (keras_rda.streaming.export):
# Keras's ONNX export converts with tf2onnx; onnxruntime and the LiteRT
# interpreter run the artifacts.
EXPORT = ["onnx", "onnxruntime", "tf2onnx", "ai-edge-litert"]
# The site: mkdocs with the Material theme (its pymdown-extensions give the
# changelog page its include of CHANGELOG.md) and the API reference.
DOCS = [
    "mkdocs>=1.5",
    "mkdocs-material>=9.5",
    "pymdown-extensions>=10",
    "mkdocstrings[python]>=0.25",
]

setup(
    name="keras_rda",
    version=version["__version__"],
    description=(
        "Attention-based recurrent units (RWA, RDA), fast weights, WeiNet, "
        "DNC/NTM with uniform writing and feed-forward attention for Keras 3."
    ),
    long_description=(HERE / "README.md").read_text(encoding="utf-8"),
    long_description_content_type="text/markdown",
    license="Apache-2.0",
    python_requires=">=3.10",
    packages=find_packages(include=["keras_rda", "keras_rda.*"]),
    # The `keras-rda` entry point, outside the package so that the command
    # line is parsed before `keras_rda/__init__.py` imports Keras.
    py_modules=["_keras_rda_cli"],
    install_requires=[
        # Keras's default backend; SavedModel export and the enwik8 loop's
        # TensorFlow path use it too.
        "tensorflow>=2.16",
        "keras>=3.5,<3.16",
        "numpy",
    ],
    extras_require={
        # Other Keras backends (select one with KERAS_BACKEND=jax / torch).
        # TensorFlow stays installed: SavedModel export, the
        # tensorflow-datasets loaders and the enwik8 loop use it.
        "lab": LAB,
        "jax": JAX,
        "torch": TORCH,
        "export": EXPORT,
        "docs": DOCS,
        # Everything `.ci/run` needs: the suite on TensorFlow, the units on
        # JAX and PyTorch (with the Triton kernels' tests), the notebooks
        # executed, the strict docs build and the packaging check. `.ci/run`
        # installs PyTorch's CPU build first; this range alone would take
        # the CUDA build from PyPI.
        "test": [
            "pytest>=7",
            "pytest-xdist",
            "ruff",
            *LAB,
            *JAX,
            *TORCH,
            *TRITON,
            *EXPORT,
            "nbclient>=0.7",
            "nbformat>=5",
            "ipykernel>=6",
            *DOCS,
            "build>=1",
            "twine>=5",
            "setuptools>=61",
            "wheel",
        ],
    },
    entry_points={"console_scripts": ["keras-rda=_keras_rda_cli:main"]},
    classifiers=[
        "Programming Language :: Python :: 3",
        "Topic :: Scientific/Engineering :: Artificial Intelligence",
    ],
)
