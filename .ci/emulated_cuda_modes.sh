# The runs of the `cuda` label on the emulator, sourced by .ci/emulated_cuda.sh (CI) and
# tests/cuda/mutations/run_mutations.sh, so that a mutation is judged by exactly CI's runs.
# EMULATED_CUDA_ENV holds for every run; each mode is "name|settings".
# shellcheck disable=SC2034
EMULATED_CUDA_ENV=(EMBER_EMULATED_CUDA_DEVICES=2 EMBER_EMULATED_CUDA_STRICT_DEVICES=1)
EMULATED_CUDA_MODES=(
  "forward, immediate|"
  "reverse blocks, threads|EMBER_EMULATED_CUDA_BLOCK_ORDER=reverse EMBER_EMULATED_CUDA_THREAD_ORDER=reverse"
  "shuffled blocks, threads|EMBER_EMULATED_CUDA_BLOCK_ORDER=shuffle:20261201 EMBER_EMULATED_CUDA_THREAD_ORDER=shuffle:20261201"
  "deferred streams|EMBER_EMULATED_CUDA_STREAMS=deferred"
)
