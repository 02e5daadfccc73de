"""Seeded generators for the synthetic tasks of the five papers.

`keras_rda.tasks.get_task(name, **params)` returns a `Task`; `task_names()`
lists them. Each task module registers itself on import.
"""

from keras_rda.tasks.task import Task
from keras_rda.tasks.task import get_task
from keras_rda.tasks.task import get_task_class
from keras_rda.tasks.task import register_task
from keras_rda.tasks.task import task_names

# Task modules (each registers its tasks on import):
from keras_rda.tasks import uw_sequence  # noqa: E402,F401
from keras_rda.tasks import sinusoid  # noqa: E402,F401
from keras_rda.tasks import addition  # noqa: E402,F401
from keras_rda.tasks import adding_problem  # noqa: E402,F401
from keras_rda.tasks import classify_length  # noqa: E402,F401
from keras_rda.tasks import classify_by_length  # noqa: E402,F401
from keras_rda.tasks import copy  # noqa: E402,F401
from keras_rda.tasks import variable_copy  # noqa: E402,F401
from keras_rda.tasks import multicopy  # noqa: E402,F401
from keras_rda.tasks import reber  # noqa: E402,F401
from keras_rda.tasks import mnist  # noqa: E402,F401
from keras_rda.tasks import ffa_addition  # noqa: E402,F401
from keras_rda.tasks import ffa_multiplication  # noqa: E402,F401
from keras_rda.tasks import ffa_addition_variable  # noqa: E402,F401
from keras_rda.tasks import ffa_multiplication_variable  # noqa: E402,F401
from keras_rda.tasks import associative_recall  # noqa: E402,F401
