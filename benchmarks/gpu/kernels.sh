#!/usr/bin/env bash
# Issue 68 on a lent GPU, in one call of at most 9 minutes:
#   0. benchmarks/kernel_compile.py: the Triton kernels compiled ahead of
#      time for sm_80 and sm_90 (registers, spills, shared memory, compile
#      seconds), as CI does without a GPU;
#   1. the kernel tests, compiled on the GPU: tests/ops/kernels and the
#      layers' kernel tests on JAX (Pallas), then on PyTorch (Triton);
#   2. benchmarks/kernel_speed.py on JAX, then on PyTorch: the baselines
#      (Keras's LSTM, saying whether it took cuDNN, torch.nn.LSTM, today's
#      RDA/RWA/ParallelRDA) and the kernels, the RDA's and RWA's at float32
#      and, on PyTorch, at kernel_precision="tf32" (issue 81, point 5: the
#      "... kernel tf32" rows), training step and layer forward/backward,
#      interleaved; each row's first call (tracing and compiling) timed
#      apart from its rounds (`first_call_s`);
#   3. the enwik8 loop on JAX at the paper preset (the layers' "auto"
#      takes the kernel where it can run), against the record's 24.1 steps/s.
# Each part has its own time limit, so a slow part cannot take the others'.
#
# Writes to $OUT: kernel_compile.json, kernel-compile.log, tests-jax.log,
# tests-torch.log, jax_kernel_speed.json, torch_kernel_speed.json,
# kernel-speed-*.log, enwik8-jax_speed.json, enwik8-run.log. Then, in the repository:
#   cp $FILES/jax_kernel_speed.json   results/benchmarks/h200/
#   cp $FILES/torch_kernel_speed.json results/benchmarks/h200/
#   keras-rda report
# (h100/ on an H100; the records name the device.)
#
# The lent machine has JAX and PyTorch (with Triton) but neither TensorFlow
# nor Keras: carry Keras and pytest as wheels in .whl (made here with
#   pip download --no-deps -d .whl keras==3.15.1 namex optree rich \
#     markdown-it-py mdurl pygments absl-py h5py pytest pluggy iniconfig
# for the device's Python), e.g. in one 600 s call:
#   python3 -m pip install -q --no-index --no-deps --no-compile \
#     --no-cache-dir --upgrade --target /tmp/site .whl/*.whl &&
#   export PYTHONPATH=/tmp/site || exit; OUT=$OUT bash benchmarks/gpu/kernels.sh
# Dry run on a CPU (interpret mode, tiny sizes, a few seconds per part):
#   GPU_DRY_RUN=1 OUT=/tmp/out_kernels bash benchmarks/gpu/kernels.sh
set -u
: "${OUT:?set OUT to the output folder}"
cd "$(dirname "$0")/../.."
export XLA_PYTHON_CLIENT_PREALLOCATE=false TF_CPP_MIN_LOG_LEVEL=2
export PYTHONPATH="$PWD${PYTHONPATH:+:$PYTHONPATH}"
PY=${PYTHON:-python3}
mkdir -p "$OUT"
if [ "${GPU_DRY_RUN:-0}" = 1 ]; then
  export KERAS_RDA_KERNEL_INTERPRET=1
  BENCH=(--quick)
  COMPILE=(--units 17 --targets 90)
  TESTS=(tests/ops/kernels/test_dispatch.py)
  ENWIK8=(--scale tiny --steps 3 --repeats 2 --warmup 2 --eval-segments 1)
else
  BENCH=()
  COMPILE=()
  TESTS=(tests/ops/kernels tests/layers/test_kernel_layers.py)
  ENWIK8=(--scale paper --steps 10 --repeats 7 --warmup 3 --eval-segments 2)
fi
{ nvidia-smi --query-gpu=name,memory.total --format=csv 2>/dev/null; date -u; } > "$OUT/device.txt"

timeout -k 10 "${COMPILE_S:-120}" "$PY" benchmarks/kernel_compile.py "${COMPILE[@]}" \
  --json "$OUT/kernel_compile.json" > "$OUT/kernel-compile.log" 2>&1
echo "compile check: exit $?" >> "$OUT/device.txt"
for backend in jax torch; do
  KERAS_BACKEND=$backend timeout -k 10 "${TESTS_S:-75}" "$PY" -m pytest -q -x \
    -p no:cacheprovider "${TESTS[@]}" > "$OUT/tests-$backend.log" 2>&1
  echo "tests $backend: exit $?" >> "$OUT/device.txt"
done
for backend in jax torch; do
  MODELS=()
  # The Pallas recurrence compiles for minutes and stays out of "auto" for
  # good (kernels.NEVER_AUTO): JAX times it at float32 only, not its TF32 twin.
  if [ "$backend" = jax ]; then
    MODELS=(--models LSTM RDA "RDA kernel" RWA "RWA kernel" ParallelRDA "ParallelRDA kernel")
  fi
  KERAS_BACKEND=$backend timeout -k 10 "${BENCH_S:-140}" "$PY" \
    benchmarks/kernel_speed.py "${BENCH[@]}" "${MODELS[@]}" \
    --json "$OUT/${backend}_kernel_speed.json" > "$OUT/kernel-speed-$backend.log" 2>&1
  echo "benchmark $backend: exit $?" >> "$OUT/device.txt"
done
KERAS_BACKEND=jax timeout -k 10 "${ENWIK8_S:-100}" "$PY" benchmarks/enwik8_loop_speed.py \
  --backends jax --model rda "${ENWIK8[@]}" --json "$OUT/enwik8-jax_speed.json" \
  > "$OUT/enwik8-run.log" 2>&1
echo "enwik8: exit $?" >> "$OUT/device.txt"
cat "$OUT/device.txt"
