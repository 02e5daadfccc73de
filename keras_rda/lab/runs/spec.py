"""`RunSpec`: one description of what `keras-rda train`/`compare` run (the
task, models, seeds, settings and outputs), which `keras_rda.lab.runs.run`
runs; settings left None are the task's at the spec's `scale`."""

import dataclasses
import pathlib

from keras_rda.utils import validation

DEFAULT_OUT = "runs"

#: Training settings a spec can set; None keeps the task's at `scale`.
OPTIONAL_POSITIVE = ("steps", "batch_size", "units", "eval_every", "eval_examples")


class RunSpecError(ValueError):
    """A run description that cannot run: an unknown task or model, task
    parameters the task refuses, or a value out of range. Raised before
    anything is trained or written."""


class StrategyUnavailable(RunSpecError):
    """The spec's `tf.distribute` strategy cannot be made here (e.g. no TPU
    at the address given)."""


def is_plain_name(name):
    """Whether `name` can name a record file: no directory, not hidden."""
    return bool(name) and not name.startswith(".") and not any(c in name for c in "/\\")


@dataclasses.dataclass(frozen=True)
class RunSpec:
    """What to train, on what, how, and where the results go.

    Attributes:
        task: a registered task name (see `keras_rda.lab.tasks.task_names`).
        models: zoo model names, trained in this order.
        scale: "small" or "paper": the task's parameters and training
            settings (`Task.at_scale`, `Task.training_settings`).
        task_params: task constructor arguments over the scale's.
        seeds: every model is trained once per seed (distinct integers).
        steps: training steps (None: the scale's; a rerun with more trains
            the checkpointed runs on).
        batch_size: sequences per step (None: the scale's).
        units: recurrent units of every model without its own in
            `model_units` (None: the scale's).
        model_units: `{model: units}` that win over `units` (None: the
            scale's, e.g. the UW paper's Table 1; `{}`: none).
        eval_every: steps between held-out evaluations and checkpoints
            (None: the scale's; at most `steps`).
        eval_examples: held-out set size (None: the scale's).
        learning_rate: Adam learning rate of every model (None: the scale's
            where the paper trains all models alike, else each model's).
        clipvalue: element-wise gradient clip of every model, 0 for none
            (None: as `learning_rate`).
        clipnorm: clip each gradient tensor's norm instead of the
            element-wise clip (recorded as 0).
        global_clipnorm: clip the gradient's global norm instead of the
            element-wise clip; not beside `clipnorm`.
        model_args: extra keyword arguments of the zoo builders.
        jit_compile: compile the training step with XLA.
        strategy: a `keras_rda.lab.strategies.make_strategy` name.
        tpu: TPU address for the "tpu" strategy (None: the local one).
        stop_at_threshold: stop a run once it meets the task's threshold.
        name: name of the record, plot, heat maps and checkpoints (a plain
            file name); None: `record_name`'s default.
        comparison: whether the runs are a comparison (`compare`, named
            TASK-compare by default) or one model's (`train`, TASK-MODEL).
        out: directory of the checkpoints and plots (and of the record
            without `results_dir`).
        results_dir: directory of the JSON record (None: `out`).
        tensorboard_dir: where each run also writes its curve as TensorBoard
            scalars, in MODEL-seedSEED (None: nowhere).
        diagnose: also log the gradient norm and the RWA/RDA unit's
            internals in each run's curve (`keras_rda.lab.runs.diagnostics`).
        restart: discard the runs' checkpoints and start over.
        verbose: 0 quiet, 1 progress bars, 2 one line per evaluation.
        command: the command recorded with the results, structured
            (`keras_rda.lab.cli.options.record_command`).
    """

    task: str
    models: tuple[str, ...]
    scale: str = "small"
    task_params: dict[str, object] = dataclasses.field(default_factory=dict)
    seeds: tuple[int, ...] = (0,)
    steps: int | None = None
    batch_size: int | None = None
    units: int | None = None
    model_units: dict[str, int] | None = None
    eval_every: int | None = None
    eval_examples: int | None = None
    learning_rate: float | None = None
    clipvalue: float | None = None
    clipnorm: float | None = None
    global_clipnorm: float | None = None
    model_args: dict[str, object] = dataclasses.field(default_factory=dict)
    jit_compile: bool = False
    strategy: str = "default"
    tpu: str | None = None
    stop_at_threshold: bool = False
    name: str | None = None
    comparison: bool = True
    out: pathlib.Path = pathlib.Path(DEFAULT_OUT)
    results_dir: pathlib.Path | None = None
    tensorboard_dir: pathlib.Path | None = None
    diagnose: bool = False
    restart: bool = False
    verbose: int = 1
    command: dict | None = None

    def __post_init__(self):
        """Normalises the fields' types, then checks their values."""
        self._normalise()
        self._check()

    def _set(self, field, value):
        """Sets `field` of this frozen instance (while it is being made)."""
        object.__setattr__(self, field, value)

    def _normalise(self):
        """Sequences as tuples, mappings as own dicts, folders as paths."""
        models = (self.models,) if isinstance(self.models, str) else self.models
        self._set("models", tuple(models))
        self._set("seeds", tuple(self.seeds))
        self._set("task_params", dict(self.task_params))
        self._set("model_args", dict(self.model_args))
        if self.model_units is not None:
            self._set("model_units", dict(self.model_units))
        for field in ("out", "results_dir", "tensorboard_dir"):
            value = getattr(self, field)
            if value is not None:
                self._set(field, pathlib.Path(value))

    def _check(self):
        """Raises `RunSpecError` for a value no run could use."""
        try:
            _check_models_and_seeds(self.models, self.seeds)
            for field in OPTIONAL_POSITIVE:
                validation.positive_int(field, getattr(self, field), allow_none=True)
            for units in (self.model_units or {}).values():
                validation.positive_int("model_units", units)
            validation.positive_number(
                "learning_rate", self.learning_rate, allow_none=True
            )
            _check_clips(self.clipvalue, self.clipnorm, self.global_clipnorm)
            validation.int_in_range("verbose", self.verbose, 0, 2)
            if self.name is not None and not is_plain_name(self.name):
                raise validation.invalid_value(
                    "name", "a plain file name (no directory, not hidden)", self.name
                )
        except ValueError as error:
            raise RunSpecError(str(error)) from None

    @property
    def record_name(self):
        """`name`, else TASK-compare for a comparison, else TASK-MODEL."""
        if self.name is not None:
            return self.name
        return (
            f"{self.task}-compare"
            if self.comparison
            else f"{self.task}-{self.models[0]}"
        )

    @property
    def record_path(self):
        """Where the JSON record goes: RESULTS_DIR (or OUT)/NAME.json."""
        return (self.results_dir or self.out) / f"{self.record_name}.json"

    @property
    def plot_path(self):
        """Where the learning curves go: OUT/NAME.png."""
        return self.out / f"{self.record_name}.png"

    def runs(self):
        """`[(model, seed), ...]`: every model over every seed, in order."""
        return [(model, seed) for model in self.models for seed in self.seeds]

    def checkpoint_dir(self, model, seed):
        """OUT/checkpoints/NAME/MODEL-seedSEED: one run's checkpoints."""
        return self.out / "checkpoints" / self.record_name / f"{model}-seed{seed}"

    def tensorboard_run_dir(self, model, seed):
        """TENSORBOARD_DIR/MODEL-seedSEED, or None without `tensorboard_dir`."""
        if self.tensorboard_dir is None:
            return None
        return self.tensorboard_dir / f"{model}-seed{seed}"

    def make_task(self):
        """The task at `scale` with `task_params` (a `Task`).

        Raises:
            ValueError, TypeError: an unknown task, or parameters it refuses.
        """
        from keras_rda.lab.tasks import get_task_class

        return get_task_class(self.task).at_scale(self.scale, **self.task_params)

    def training_settings(self):
        """`Task.training_settings(scale)` with the ones this spec sets (a
        clip norm replacing the element-wise clip); `eval_every` is at most
        `steps`."""
        from keras_rda.lab.tasks import get_task_class

        settings = get_task_class(self.task).training_settings(self.scale)
        for key in ("steps", "batch_size", "eval_every", "eval_examples"):
            if getattr(self, key) is not None:
                settings[key] = getattr(self, key)
        if self.model_units is not None:
            settings["model_units"] = dict(self.model_units)
        for key in ("units", "learning_rate", "clipvalue"):
            if getattr(self, key) is not None:
                settings[key] = getattr(self, key)
        for key in ("clipnorm", "global_clipnorm"):  # each replaces the clip
            if getattr(self, key) is not None:
                settings["clipvalue"] = 0.0
                settings[key] = getattr(self, key)
        settings["eval_every"] = min(settings["eval_every"], settings["steps"])
        return settings


def _check_models_and_seeds(models, seeds):
    """Raises `ValueError` unless there are models, and distinct int seeds."""
    if not models or not all(isinstance(m, str) and m for m in models):
        raise validation.invalid_value("models", "one or more model names", models)
    for seed in seeds:
        validation.non_negative_int("seeds", seed)  # NumPy's seeds are >= 0
    if not seeds or len(set(seeds)) != len(seeds):
        raise validation.invalid_value("seeds", "distinct integers", seeds)


def _check_clips(clipvalue, clipnorm, global_clipnorm=None):
    """Raises `ValueError` for a negative or non-finite clip (0: none), a
    clip norm that is not a finite number > 0, a norm next to a non-zero
    element-wise clip, or both norms (Keras takes one clip)."""
    validation.non_negative_number("clipvalue", clipvalue, allow_none=True)
    validation.positive_number("clipnorm", clipnorm, allow_none=True)
    validation.positive_number("global_clipnorm", global_clipnorm, allow_none=True)
    if clipnorm is not None and global_clipnorm is not None:
        raise validation.invalid_value(
            "global_clipnorm",
            "no clipnorm beside it (Keras takes one clip)",
            global_clipnorm,
        )
    for name, norm in (("clipnorm", clipnorm), ("global_clipnorm", global_clipnorm)):
        if norm is not None and clipvalue:
            raise validation.invalid_value(
                name, "no element-wise clip beside it (clipvalue 0)", norm
            )
