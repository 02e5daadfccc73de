"""The model zoo: named models for the papers' comparisons, each turning a
`keras_rda.lab.tasks.Task` into an uncompiled `keras.Model` with the paper's
optimiser settings. Register a model with the decorator:

```python
@register_model("rda", paper="RDA paper, section 6.1", learning_rate=1e-3,
                clipvalue=1.0)
def build_rda(task, units=250):
    ...
    return keras.Model(inputs, outputs)
```
"""

import dataclasses
import inspect
from collections.abc import Callable

from keras_rda.utils import validation

_REGISTRY = {}


@dataclasses.dataclass(frozen=True)
class ModelSpec:
    """A named model recipe.

    Attributes:
        name: registry name (`"rda"`, `"lstm"`, `"dnc-uw"`, ...).
        build: `build(task, **overrides) -> keras.Model`, uncompiled, whose
            output matches `task.output_dim` (logits for classification).
        description: one line for `keras-rda models`.
        paper: the source of the model and of its settings.
        learning_rate: Adam learning rate of the paper.
        clipvalue: element-wise gradient clipping of the paper, or None.
        batch_size: the paper's batch size.
        units: the paper's hidden size (informational; `build` default).
        layer: for single-layer recurrent models, `layer(units, **kwargs)`
            returning the recurrent layer with the zoo's settings (the enwik8
            model uses it, so that a name means one unit); else None.
        passes_to: for a `build` that passes its `**kwargs` on, a function
            of no arguments returning what receives them (imported only when
            `arguments` asks); None when `build` names every argument.
        fixed: the arguments of `passes_to` that `build` sets itself.
    """

    name: str
    build: Callable
    description: str = ""
    paper: str = ""
    learning_rate: float = 1e-3
    clipvalue: float | None = None
    batch_size: int = 100
    units: int | None = None
    layer: Callable | None = None
    passes_to: Callable | None = None
    fixed: tuple[str, ...] = ()

    def arguments(self):
        """The keyword arguments `build` takes besides `task`, sorted, those it
        passes on (`passes_to`, and a Keras layer's base arguments) included;
        None when it passes them on to something unnamed (any is taken)."""
        names, passes_on = keyword_arguments(self.build)
        names.discard("task")
        if passes_on:
            if self.passes_to is None:
                return None
            target = self.passes_to()
            more, target_passes_on = keyword_arguments(target)
            names |= more - {"task", *self.fixed}
            if target_passes_on and _is_keras_layer(target):
                import keras

                names |= keyword_arguments(keras.layers.Layer)[0] - {*self.fixed}
        return sorted(names)

    def check_arguments(self, kwargs, name="model_args"):
        """`kwargs` if `build` takes every one of them.

        Raises:
            ValueError: naming the model, the unknown keyword and what
                `build` takes (and `name`, the argument's name).
        """
        if not kwargs:
            return kwargs
        accepted = self.arguments()
        if accepted is None:
            return kwargs
        unknown = sorted(set(kwargs) - set(accepted))
        if unknown:
            raise validation.invalid_value(
                name,
                f"keyword arguments of zoo model {self.name!r} ({', '.join(accepted)})",
                ", ".join(f"{key}={kwargs[key]!r}" for key in unknown),
            )
        return kwargs

    def gradient_clip(self, clipvalue=None, clipnorm=None, global_clipnorm=None):
        """The optimiser's one clipping argument: `{"clipvalue": v}`,
        `{"clipnorm": n}`, `{"global_clipnorm": n}` or `{}` (by default the
        model's element-wise clip).

        Args:
            clipvalue: overrides the model's element-wise gradient clip;
                0 means none.
            clipnorm: clip each gradient tensor's norm to this instead
                (with `clipvalue=0`: Keras would silently ignore an
                element-wise clip next to it).
            global_clipnorm: clip the norm of all the gradients together
                to this instead (with `clipvalue=0`).

        Raises:
            ValueError: `clipnorm` or `global_clipnorm` with a non-zero
                element-wise clip, or both norms.
        """
        clip = clipvalue if clipvalue is not None else self.clipvalue
        if clipnorm and global_clipnorm:
            raise ValueError(
                f"Received an invalid value for argument `global_clipnorm`, "
                f"expected it without `clipnorm` (Keras takes one clip), got "
                f"global_clipnorm={global_clipnorm!r} with clipnorm={clipnorm!r}"
            )
        key = "clipnorm" if clipnorm else "global_clipnorm"
        norm = clipnorm or global_clipnorm
        if norm:
            if clip:
                raise ValueError(
                    f"Received an invalid value for argument `{key}`, "
                    f"expected it without an element-wise clip (pass "
                    f"clipvalue=0), got {key}={norm!r} with clipvalue={clip!r}"
                )
            return {key: norm}
        return {"clipvalue": clip} if clip else {}  # None or 0: no clipping

    def optimizer(
        self, learning_rate=None, clipvalue=None, clipnorm=None, global_clipnorm=None
    ):
        """A fresh Adam optimiser with the paper's settings, or `learning_rate`
        and the clip of `gradient_clip`."""
        import keras

        return keras.optimizers.Adam(
            learning_rate=learning_rate or self.learning_rate,
            **self.gradient_clip(clipvalue, clipnorm, global_clipnorm),
        )


def register_model(name, *, description="", fixed=(), **settings):
    """Decorator registering `build(task, **overrides)` as zoo model `name`.

    `settings` are the other fields of its `ModelSpec` (`paper`,
    `learning_rate`, `clipvalue`, `batch_size`, `units`, `layer`,
    `passes_to`); `description` defaults to the first line of `build`'s
    docstring.
    """
    unknown = sorted(set(settings) - {f.name for f in dataclasses.fields(ModelSpec)})
    if unknown:
        raise TypeError(f"register_model() got an unexpected argument {unknown[0]!r}")

    def decorator(build):
        if name in _REGISTRY:
            raise ValueError(f"A model named {name!r} is already registered.")
        _REGISTRY[name] = ModelSpec(
            name=name,
            build=build,
            description=description or (build.__doc__ or "").strip().split("\n")[0],
            fixed=tuple(fixed),
            **settings,
        )
        return build

    return decorator


def model_names():
    """Sorted names of all registered models."""
    return sorted(_REGISTRY)


def get_model_spec(name):
    """The `ModelSpec` registered as `name`.

    Raises:
        ValueError: if there is no such model; the message lists valid names.
    """
    if name not in _REGISTRY:
        raise validation.invalid_value(
            "model", f"one of {', '.join(model_names())}", name
        )
    return _REGISTRY[name]


def keyword_arguments(function):
    """`(names, passes_on)`: the arguments `function` (a class: its
    constructor) takes by keyword, and whether it takes others (`**kwargs`)."""
    if isinstance(function, type):  # not `__new__`'s (Keras layers have one)
        function = function.__init__
    parameters = inspect.signature(function).parameters.values()
    kinds = (inspect.Parameter.POSITIONAL_OR_KEYWORD, inspect.Parameter.KEYWORD_ONLY)
    names = {p.name for p in parameters if p.kind in kinds} - {"self"}
    passes_on = any(p.kind == inspect.Parameter.VAR_KEYWORD for p in parameters)
    return names, passes_on


def _is_keras_layer(target):
    """Whether `target` is a Keras layer class (checked by its bases'
    names, so that asking imports nothing)."""
    return isinstance(target, type) and any(
        base.__module__.startswith("keras.") and base.__name__ == "Layer"
        for base in target.__mro__
    )
