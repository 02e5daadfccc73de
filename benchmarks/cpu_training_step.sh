#!/usr/bin/env bash
# The CPU training-step records of docs/benchmarks.md, one run each, on a
# quiet machine (nothing else running): JAX, TensorFlow (XLA on and off) and
# PyTorch, at (batch 100, 250 units, T 100 and 1,000) and (batch 16,
# 128 units, T 10,000), with the units' matmul floors timed in the same
# rounds. Then the per-op profiles. Run from the repository root:
#
#     bash benchmarks/cpu_training_step.sh            # every record
#     bash benchmarks/cpu_training_step.sh jax torch  # some backends
set -euo pipefail
cd "$(dirname "$0")/.."
export TF_CPP_MIN_LOG_LEVEL=2
out=results/benchmarks
backends=("${@:-jax tensorflow torch}")
backends=(${backends[*]})

keras_models=(LSTM GRU 'RDA layer' 'RWA layer' 'RNN(RDACell)' ParallelRDA)
floors=('matmul floor (RDA)' 'matmul floor (RWA)' 'matmul floor (LSTM)')
torch_models=(torch.nn.LSTM 'RDA layer' 'RWA layer' ParallelRDA)
long=(--units 128 --batch-size 16 --lengths 10000 --repeats 7 --warmup 1)

for backend in "${backends[@]}"; do
  case "$backend" in
    jax) jit=(--jit on); models=("${keras_models[@]}"); reference=() ;;
    tensorflow) jit=(--jit both); models=("${keras_models[@]}"); reference=() ;;
    torch) jit=(--jit off); models=("${torch_models[@]}"); reference=(--reference torch.nn.LSTM) ;;
    *) echo "unknown backend: $backend" >&2; exit 2 ;;
  esac
  KERAS_BACKEND=$backend python benchmarks/rnn_speed.py "${jit[@]}" \
    --lengths 100 1000 --repeats 7 --warmup 2 --models "${models[@]}" \
    "${reference[@]}" --floors "${floors[@]}" \
    --json "$out/${backend}_cpu_training_step.json"
  KERAS_BACKEND=$backend python benchmarks/rnn_speed.py "${jit[@]}" "${long[@]}" \
    --models "${models[@]}" "${reference[@]}" --floors "${floors[@]}" \
    --json "$out/${backend}_cpu_training_step_t10000.json"
done

# Where the time goes: the per-op profiles of one training step's gradient.
if [[ " ${backends[*]} " == *" jax "* ]]; then
  KERAS_BACKEND=jax python benchmarks/rnn_profile.py --length 100 --repeats 3 --top 6 \
    --json "$out/jax_rnn_profile_250units_t100.json"
fi
if [[ " ${backends[*]} " == *" tensorflow "* ]]; then
  KERAS_BACKEND=tensorflow python benchmarks/rnn_profile.py --length 100 --repeats 3 --top 8 \
    --models LSTM 'RDA layer' 'RWA layer' 'RDA layer (autodiff)' \
    --json "$out/tensorflow_rnn_profile_250units_t100.json"
fi
