"""Deprecated import paths of modules that moved, kept for one release.

Before 0.2 the lab lived beside the library (`keras_rda.tasks`,
`keras_rda.datasets`, `keras_rda.experiments`, `keras_rda.training`,
`keras_rda.cli`) and the shared math sat in the cells, layers and memory
packages. An old path still imports, warns once with a `DeprecationWarning`
naming the new path, and gives the new module itself (not a copy, so classes,
registries and `isinstance` stay one).

The table holds names only: nothing here imports the lab unless an old path
is asked for.
"""

import importlib
import importlib.abc
import importlib.util
import sys
import types
import warnings

# old module -> new module; a package's submodules follow their package.
MOVED = {
    "keras_rda.tasks": "keras_rda.lab.tasks",
    "keras_rda.datasets": "keras_rda.lab.datasets",
    "keras_rda.training": "keras_rda.lab.enwik8",
    "keras_rda.cli": "keras_rda.lab.cli",
    "keras_rda.experiments": "keras_rda.lab.zoo",
    "keras_rda.experiments.zoo": "keras_rda.lab.zoo.registry",
    "keras_rda.experiments.rnn_models": "keras_rda.lab.zoo.rnn_models",
    "keras_rda.experiments.memory_models": "keras_rda.lab.zoo.memory_models",
    "keras_rda.experiments.associative_models": "keras_rda.lab.zoo.associative_models",
    "keras_rda.experiments.attention_models": "keras_rda.lab.zoo.attention_models",
    "keras_rda.experiments.learned_initial_state": (
        "keras_rda.lab.zoo.learned_initial_state"
    ),
    # runner.py was split by concern (run_loop, recording, checkpoint): its
    # old paths read the names from the package, which exports them all.
    "keras_rda.experiments.runner": "keras_rda.lab.runs",
    "keras_rda.experiments.early_stopping_fit": (
        "keras_rda.lab.runs.early_stopping_fit"
    ),
    "keras_rda.experiments.report": "keras_rda.lab.reporting.report",
    "keras_rda.experiments.benchmark_tables": (
        "keras_rda.lab.reporting.benchmark_tables"
    ),
    "keras_rda.experiments.memory_plots": "keras_rda.lab.reporting.memory_plots",
    "keras_rda.experiments.provenance": "keras_rda.lab.reporting.provenance",
    "keras_rda.cells.attention_average": "keras_rda.ops.attention_average",
    "keras_rda.cells.associative_ops": "keras_rda.ops.associative",
    "keras_rda.layers.rda_recurrence": "keras_rda.ops.rda_recurrence",
    "keras_rda.layers.parallel_scan": "keras_rda.ops.parallel_scan",
    "keras_rda.memory.addressing": "keras_rda.ops.addressing",
    "keras_rda.utils.scan": "keras_rda.ops.scan",
    "keras_rda.utils.tf_scan": "keras_rda.ops.tf_scan",
    "keras_rda.memory.write_schedule": "keras_rda.memory.schedules.write_schedule",
    "keras_rda.memory.regular_writing": "keras_rda.memory.schedules.regular_writing",
    "keras_rda.memory.uniform_writing": "keras_rda.memory.schedules.uniform_writing",
    "keras_rda.memory.cached_uniform_writing": (
        "keras_rda.memory.schedules.cached_uniform_writing"
    ),
    "keras_rda.memory.random_writing": "keras_rda.memory.schedules.random_writing",
    "keras_rda.memory.memory_cell": "keras_rda.memory.base_memory_cell",
    "keras_rda.memory.memory_rnn": "keras_rda.memory.base_memory_rnn",
    "keras_rda.cells.cell_base": "keras_rda.cells.base_cell",
    "keras_rda.cells.attention_cell_base": "keras_rda.cells.base_rda_cell",
    # The RWA / RDA / parallel RDA family under one base, `BaseRDACell`.
    "keras_rda.cells.base_attention_cell": "keras_rda.cells.base_rda_cell",
    "keras_rda.layers.cell_rnn": "keras_rda.layers.base_rnn",
    "keras_rda.utils.strategies": "keras_rda.lab.strategies",
    "keras_rda.utils.summaries": "keras_rda.lab.runs.summaries",
    # Task modules that held several classes, now one class per file: the
    # old module reads its paper package, which also serves the old class
    # names (`keras_rda.lab.tasks.core.renamed`).
    "keras_rda.lab.tasks.rda_paper.addition": "keras_rda.lab.tasks.rda_paper",
    "keras_rda.lab.tasks.rwa_paper.presets": "keras_rda.lab.tasks.rwa_paper",
    "keras_rda.lab.tasks.rwa_paper.variable_copy": "keras_rda.lab.tasks.rwa_paper",
    "keras_rda.lab.tasks.uw_paper.sequence_tasks": "keras_rda.lab.tasks.uw_paper",
    "keras_rda.lab.tasks.ffa_paper.presets": "keras_rda.lab.tasks.ffa_paper",
    "keras_rda.tasks.rda_paper.addition": "keras_rda.lab.tasks.rda_paper",
    "keras_rda.tasks.rwa_paper.presets": "keras_rda.lab.tasks.rwa_paper",
    "keras_rda.tasks.rwa_paper.variable_copy": "keras_rda.lab.tasks.rwa_paper",
    "keras_rda.tasks.uw_paper.sequence_tasks": "keras_rda.lab.tasks.uw_paper",
    "keras_rda.tasks.ffa_paper.presets": "keras_rda.lab.tasks.ffa_paper",
    "keras_rda.lab.runs.runner": "keras_rda.lab.runs",
}


def new_name(old):
    """The module `old` moved to, or None if it did not move."""
    if old in MOVED:
        return MOVED[old]
    package, _, leaf = old.rpartition(".")
    while package:
        if package in MOVED:
            return f"{MOVED[package]}.{old[len(package) + 1 :]}"
        package, _, _ = package.rpartition(".")
    return None


class _Alias(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    """Finds an old module name and loads it as the new module."""

    def find_spec(self, fullname, path=None, target=None):
        new = new_name(fullname)
        if new is None:
            return None
        return importlib.util.spec_from_loader(fullname, self, is_package=True)

    def create_module(self, spec):
        new = new_name(spec.name)
        warnings.warn(
            f"`{spec.name}` moved to `{new}`; the old path is deprecated and "
            "will be removed in the next release.",
            DeprecationWarning,
            stacklevel=2,
        )
        module = importlib.import_module(new)
        if not hasattr(module, "__path__"):
            spec.loader_state = module.__spec__
            return module
        # A package: a stand-in that reads the new package's names, so that
        # `from old_package import submodule` finds the submodule's old path.
        return _package_alias(spec.name, module)

    def exec_module(self, module):
        if module.__spec__.loader_state is not None:
            # The import system stamped the alias spec on the new module;
            # give it its own spec back so that it stays the new module.
            module.__spec__ = module.__spec__.loader_state


def _package_alias(old, package):
    alias = types.ModuleType(old, package.__doc__)
    alias.__path__ = []
    alias.__all__ = list(getattr(package, "__all__", ()))

    def __getattr__(name):
        if hasattr(package, name):
            return getattr(package, name)
        try:
            return importlib.import_module(f"{old}.{name}")
        except ImportError:
            raise AttributeError(f"module {old!r} has no attribute {name!r}") from None

    alias.__getattr__ = __getattr__
    alias.__dir__ = lambda: dir(package)
    return alias


def install():
    """Puts the alias finder first on `sys.meta_path` (once)."""
    if not any(isinstance(finder, _Alias) for finder in sys.meta_path):
        sys.meta_path.insert(0, _Alias())
