"""keras_rda.training: the TensorFlow-specific enwik8 training loop.

XLA-compiled truncated BPTT with the recurrent state carried across segments,
under any `tf.distribute` strategy, with resumable checkpoints. Importing this
subpackage imports TensorFlow; the rest of keras_rda does not need it.

Modules: `char_model` (the paper's model), `presets`, `strategies`,
`enwik8_trainer` (`Enwik8Trainer`), `cli` (`keras-rda enwik8`).
"""
