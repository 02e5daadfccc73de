"""keras_rda.training: the TensorFlow-specific enwik8 training loop.

XLA-compiled truncated BPTT with the recurrent state carried across segments,
under any `tf.distribute` strategy, with resumable checkpoints. Importing this
subpackage imports TensorFlow; the rest of keras_rda does not need it.

Modules: `char_model` (the paper's model, its unit from the zoo), `presets`,
`enwik8_trainer` (`Enwik8Trainer`). The command is `keras_rda.cli.enwik8`.
"""
