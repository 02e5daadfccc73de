"""Packaging for keras_rda."""

import pathlib

from setuptools import find_packages
from setuptools import setup

HERE = pathlib.Path(__file__).parent
version = {}
exec((HERE / "keras_rda" / "version.py").read_text(), version)

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
    install_requires=[
        "tensorflow>=2.16",
        "keras>=3.5",
        "numpy",
        "tensorflow-datasets",
        # tensorflow-datasets imports it when it downloads and prepares data.
        "importlib_resources",
        "matplotlib",
    ],
    extras_require={
        "test": ["pytest>=7", "pytest-xdist", "ruff"],
        "docs": ["mkdocs>=1.5"],
    },
    entry_points={"console_scripts": ["keras-rda=keras_rda.cli:main"]},
    classifiers=[
        "Programming Language :: Python :: 3",
        "Topic :: Scientific/Engineering :: Artificial Intelligence",
    ],
)
