"""keras_rda.lab.enwik8: the enwik8 training loop on TensorFlow and JAX.

Compiled truncated BPTT with the recurrent state carried across segments,
with resumable checkpoints: on TensorFlow a `tf.function(jit_compile=True)`
under any `tf.distribute` strategy, on JAX one `jax.jit` program through
Keras 3's stateless API. Importing this subpackage imports no backend
library beyond Keras's. Modules, one job each:

- `char_model`: the paper's model, state in and out; `presets`: named
  hyper-parameters;
- `tensorflow_parts`, `jax_parts`: what differs between the backends;
- `segment_steps`, `jax_segment_steps`: the compiled step of one segment;
- `replica_rows`: the global batch's rows per `tf.distribute` replica;
- `checkpointing`, `array_checkpoint` (JAX): the checkpoints;
- `loop_hooks`: logging, periodic validation and checkpoints between steps;
- `run_log`: TensorBoard scalars, `history.jsonl`, `results.json`;
- `stop_signals`: SIGINT/SIGTERM as a request to stop after the step;
- `enwik8_trainer`: `Enwik8Trainer`, the loop that puts them together.

The command is `keras-rda enwik8` (`keras_rda.lab.cli.enwik8`).
"""
