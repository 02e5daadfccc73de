"""Experiments: the model zoo, the command line and result reporting."""

from keras_rda.experiments.zoo import ModelSpec
from keras_rda.experiments.zoo import get_model_spec
from keras_rda.experiments.zoo import model_names
from keras_rda.experiments.zoo import register_model

# Zoo modules (each registers its models on import):
from keras_rda.experiments import attention_models  # noqa: E402,F401
from keras_rda.experiments import memory_models  # noqa: E402,F401
from keras_rda.experiments import rnn_models  # noqa: E402,F401
from keras_rda.experiments import associative_models  # noqa: E402,F401
