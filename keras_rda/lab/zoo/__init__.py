"""The model zoo (`registry`); each zoo module registers its models on import."""

from keras_rda.lab.zoo import associative_models
from keras_rda.lab.zoo import attention_models
from keras_rda.lab.zoo import memory_models
from keras_rda.lab.zoo import rnn_models
from keras_rda.lab.zoo.registry import ModelSpec
from keras_rda.lab.zoo.registry import get_model_spec
from keras_rda.lab.zoo.registry import model_names
from keras_rda.lab.zoo.registry import register_model
