"""The record format shared by the runs that write records and the reports.

`keras_rda.lab.runs` writes one JSON record per `keras-rda train`/`compare`
(and a `result.json` per checkpointed run); `keras_rda.lab.reporting.report`
reads them back into tables and plots. Both use the two helpers here, so
that this package never needs the training code to read a record.
"""

import math

# Task metric name -> key of the Keras logs (the loss of a cross-entropy task
# is its cross-entropy).
_METRIC_KEYS = {
    "crossentropy": "loss",
    "loss": "loss",
    "mse": "mse",
    "accuracy": "accuracy",
}


def metric_key(metric):
    """The Keras log name of a task metric ("crossentropy" is the loss).

    Args:
        metric: a task's metric name, e.g. "accuracy" or "crossentropy".

    Returns:
        The key of that score in Keras's logs and in a record's curve
        (held-out scores carry a `val_` prefix there).
    """
    return _METRIC_KEYS.get(metric, metric)


def json_safe(value):
    """`value` with non-finite floats as None (JSON has no NaN).

    Args:
        value: a float, or dicts, lists and tuples of them (any depth);
            other values are returned as they are.

    Returns:
        The same structure (tuples become lists) with NaN and infinities
        replaced by None.
    """
    if isinstance(value, float) and not math.isfinite(value):
        return None
    if isinstance(value, dict):
        return {k: json_safe(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [json_safe(v) for v in value]
    return value
