#!/usr/bin/env bash
# CI stage: ThreadSanitizer over the tests that run Ember on several threads at once.
# One clang build with the emulated CUDA backend (EMBER_TSAN=ON, EMBER_CUDA=EMULATE), so the
# emulator's own concurrency checks can later run in the same build. Any report fails the
# stage (halt_on_error), and so does a filter that matches too few tests.
set -euo pipefail
cd "$(dirname "$0")/.."
JOBS=${JOBS:-$(nproc)}
BUILD=${BUILD:-build-tsan}
# Suites that start threads: autograd across threads, the CPU thread pool, the DataLoader's
# workers, grad mode per thread, one Bert serving several inference threads. Not the fork
# tests (tests/kernels/fork_test.cpp): TSan cannot start threads in the child of a
# multi-threaded fork, and those run in every other stage.
FILTER='AutogradThreads.*:ThreadPool*.*:DataLoader*.*:Autograd.NoGradGuardAndDetach:BertInferenceThreads.*'
MIN_TESTS=27
# .ci/run's sanitizer optimisation (-O1, line tables) unless run alone.
OPT=${SANITIZER_OPT_FLAGS:-"-O1 -gline-tables-only -DNDEBUG"}

cmake -S . -B "$BUILD" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DEMBER_WERROR=ON \
  -DCMAKE_C_COMPILER=clang-16 -DCMAKE_CXX_COMPILER=clang++-16 -DEMBER_CUDA=EMULATE -DEMBER_TSAN=ON \
  -DEMBER_MPI=OFF -DEMBER_BUILD_BENCH=OFF -DEMBER_BUILD_EXAMPLES=OFF \
  -DCMAKE_C_FLAGS_RELWITHDEBINFO="$OPT" -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="$OPT" >/dev/null
cmake --build "$BUILD" -j "$JOBS" --target ember_concurrency_tests

log=$(mktemp)
# second_deadlock_stack: a lock-order report shows both stacks.
if ! TSAN_OPTIONS=halt_on_error=1:second_deadlock_stack=1 "$BUILD/tests/ember_concurrency_tests" \
  --gtest_filter="$FILTER" --gtest_brief=1 >"$log" 2>&1; then
  cat "$log"
  echo "TSan: failed" >&2
  exit 1
fi
tail -n 3 "$log"
ran=$(sed -nE 's/^\[==========\] ([0-9]+) tests? from .* ran\..*/\1/p' "$log")
if ((${ran:-0} < MIN_TESTS)); then
  echo "TSan: the filter ran ${ran:-0} tests, expected at least $MIN_TESTS" >&2
  exit 1
fi
echo "TSan: $ran tests, no report"
