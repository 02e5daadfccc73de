"""Experiments: the model zoo, the command line and result reporting.

Each zoo module registers its models on import.
"""

from keras_rda.experiments import associative_models
from keras_rda.experiments import attention_models
from keras_rda.experiments import memory_models
from keras_rda.experiments import rnn_models
from keras_rda.experiments.zoo import ModelSpec
from keras_rda.experiments.zoo import get_model_spec
from keras_rda.experiments.zoo import model_names
from keras_rda.experiments.zoo import register_model
