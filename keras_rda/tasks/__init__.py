"""Seeded generators for the synthetic tasks of the five papers.

`keras_rda.tasks.get_task(name, **params)` returns a `Task`; `task_names()`
lists them. Each task module registers its tasks on import.
"""

from keras_rda.tasks import adding_problem
from keras_rda.tasks import addition
from keras_rda.tasks import associative_recall
from keras_rda.tasks import classify_by_length
from keras_rda.tasks import classify_length
from keras_rda.tasks import copy
from keras_rda.tasks import ffa_addition
from keras_rda.tasks import ffa_addition_variable
from keras_rda.tasks import ffa_multiplication
from keras_rda.tasks import ffa_multiplication_variable
from keras_rda.tasks import mnist
from keras_rda.tasks import multicopy
from keras_rda.tasks import reber
from keras_rda.tasks import sinusoid
from keras_rda.tasks import uw_sequence
from keras_rda.tasks import variable_copy
from keras_rda.tasks.task import Task
from keras_rda.tasks.task import get_task
from keras_rda.tasks.task import get_task_class
from keras_rda.tasks.task import register_task
from keras_rda.tasks.task import task_names
