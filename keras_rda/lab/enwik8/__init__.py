"""keras_rda.lab.enwik8: the enwik8 training loop on TensorFlow and JAX.

Compiled truncated BPTT with the recurrent state carried across segments,
with resumable checkpoints: on TensorFlow a `tf.function(jit_compile=True)`
under any `tf.distribute` strategy, on JAX one `jax.jit` program through
Keras 3's stateless API (`model.stateless_call`,
`optimizer.stateless_apply`). Importing this subpackage imports no backend
library beyond Keras's; the trainer refuses other Keras backends with a
`ValueError` naming them.

Modules, one job each:

- `char_model`: the paper's model (its unit from the zoo), state in and
  out; `presets`: named hyper-parameters;
- `tensorflow_parts`, `jax_parts`: what differs between the backends,
  behind one interface (optimizer, checkpoint, steps, batch placement);
- `segment_steps` (TensorFlow), `jax_segment_steps` (JAX): the compiled
  train/eval step of one segment;
- `replica_rows`: the global batch's rows per `tf.distribute` replica;
- `checkpointing` (TensorFlow, and the shared `config.json` check),
  `array_checkpoint` (JAX, `.npz`): model, optimizer, step (data
  position), carried state;
- `loop_hooks`: logging, periodic validation and checkpoints between steps;
- `run_log`: TensorBoard scalars, `history.jsonl`, `results.json`;
- `stop_signals`: SIGINT/SIGTERM as a request to stop after the step;
- `enwik8_trainer`: `Enwik8Trainer`, the loop that puts them together;

The command is `keras-rda enwik8` (`keras_rda.lab.cli.enwik8`); strategies by
name come from `keras_rda.lab.strategies`.
"""
