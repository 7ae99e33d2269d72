# The ember_cuda_tests cases that CI's TSan stage (.ci/tsan_tests.sh) runs under the racecheck
# (emulator/include/cuda_emulator/race_detection.h), and the mutation script's tsan
# class with them (tests/cuda/mutations/run_mutations.sh). Sourced, not run.
#
# All of them but one, sharded over one process per core (5 minutes in one process on this
# 2-core machine; no other mode: the racecheck does not depend on the order threads run in). The one left out is EmulatedThreadOrder.AMissingBarrier...:
# its kernel races on purpose (a report, rightly), and it counts on shared memory outliving
# its block, which the racecheck's host thread per block does not give.
TSAN_CUDA_FILTER='*-EmulatedThreadOrder.AMissingBarrierBeforeASharedReadGivesStaleValuesOutOfThreadOrder'
# A filter that runs fewer fails the stage (a change of the binary or the filter must not
# empty it silently).
TSAN_CUDA_MIN_TESTS=570
# The environment of CI's other runs of the cuda label: two devices, strict devices.
source "$(dirname "${BASH_SOURCE[0]}")/emulated_cuda_modes.sh"
TSAN_CUDA_ENV=("${EMULATED_CUDA_ENV[@]}")
