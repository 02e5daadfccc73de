"""keras_rda.lab.enwik8: the TensorFlow-specific enwik8 training loop.

XLA-compiled truncated BPTT with the recurrent state carried across segments,
under any `tf.distribute` strategy, with resumable checkpoints. Importing this
subpackage imports TensorFlow; the rest of keras_rda does not need it, and
the trainer refuses other Keras backends with a `RuntimeError`.

Modules, one job each:

- `char_model`: the paper's model (its unit from the zoo), state in and
  out; `presets`: named hyper-parameters;
- `segment_steps`: the compiled (XLA) train/eval step of one segment;
- `replica_rows`: the global batch's rows per replica, and back;
- `checkpointing`: model, optimizer, step (data position), carried state;
- `loop_hooks`: logging, periodic validation and checkpoints between steps;
- `run_log`: TensorBoard scalars, `history.jsonl`, `results.json`;
- `stop_signals`: SIGINT/SIGTERM as a request to stop after the step;
- `enwik8_trainer`: `Enwik8Trainer`, the loop that puts them together;

The command is `keras-rda enwik8` (`keras_rda.lab.cli.enwik8`); strategies by
name come from `keras_rda.lab.strategies`.
"""
