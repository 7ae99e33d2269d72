#!/usr/bin/env bash
# Runs every libFuzzer target of an EMBER_FUZZ=ON build for SECONDS each, starting from the
# seed corpus in tests/fuzz/corpus/<target>/ (copied: the repository's corpus is never
# changed). Fails on the first crash, leak, timeout or out-of-memory, leaving the input
# under BUILD_DIR/fuzz-artifacts/. Prints executions per second and coverage per target.
#   usage: .ci/fuzz.sh BUILD_DIR SECONDS
set -euo pipefail
if [[ $# -ne 2 ]]; then
  echo "usage: $0 BUILD_DIR SECONDS" >&2
  exit 2
fi
ROOT=$(cd "$(dirname "$0")/.." && pwd)
BUILD=$(cd "$1" && pwd)
SECONDS_EACH=$2
# Before OMP_NUM_THREADS=1 below, which GNU nproc obeys.
JOBS=${JOBS:-$(nproc)}
ARTIFACTS=$BUILD/fuzz-artifacts
mkdir -p "$ARTIFACTS"
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT

# One thread: a crash reproduces from its input alone. Leaks count as failures.
export OMP_NUM_THREADS=1
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}

# One target: its result line into $WORK/<name>.result, its log into $WORK/<name>.log.
fuzz_one() {
  local name=$1 bin=$2 log=$WORK/$1.log
  # Ember refuses anything above 64 MB itself (tests/fuzz/fuzz_support.h), so the memory
  # limits here only catch what Ember failed to bound.
  if "$bin" -max_total_time="$SECONDS_EACH" -timeout=10 -rss_limit_mb=2048 -malloc_limit_mb=512 \
      -max_len=4096 -print_final_stats=1 -artifact_prefix="$ARTIFACTS/$name-" \
      "$WORK/$name" >"$log" 2>&1; then
    local stats cov ft runs eps
    stats=$(grep -E '^#[0-9]+.*(DONE|pulse|NEW|REDUCE)' "$log" | tail -1 || true)
    cov=$(sed -nE 's/.* cov: ([0-9]+).*/\1/p' <<<"$stats")
    ft=$(sed -nE 's/.* ft: ([0-9]+).*/\1/p' <<<"$stats")
    runs=$(sed -nE 's/^stat::number_of_executed_units: *([0-9]+)/\1/p' "$log")
    eps=$(sed -nE 's/^stat::average_exec_per_sec: *([0-9]+)/\1/p' "$log")
    printf 'fuzz_%-12s ok   %8s runs  %6s exec/s  cov %5s  ft %6s\n' "$name" "${runs:-?}" \
      "${eps:-?}" "${cov:-?}" "${ft:-?}" >"$WORK/$name.result"
  else
    echo "FAILED" >"$WORK/$name.result"
  fi
}

# JOBS targets at a time (each one thread): every target still gets SECONDS of a core.
names=()
for seeds in "$ROOT"/tests/fuzz/corpus/*/; do
  name=$(basename "$seeds")
  bin=$BUILD/tests/fuzz/fuzz_$name
  if [[ ! -x $bin ]]; then
    echo "fuzz: $bin is missing (configure with -DEMBER_FUZZ=ON and clang)" >&2
    exit 1
  fi
  mkdir -p "$WORK/$name"
  cp "$seeds"/* "$WORK/$name/"
  while (($(jobs -rp | wc -l) >= JOBS)); do wait -n || true; done
  fuzz_one "$name" "$bin" &
  names+=("$name")
done
wait

status=0
for name in "${names[@]}"; do
  if [[ $(cat "$WORK/$name.result") == FAILED ]]; then
    echo "fuzz_$name FAILED; the last lines of its log:" >&2
    tail -40 "$WORK/$name.log" >&2
    status=1
  else
    cat "$WORK/$name.result"
  fi
done
exit $status
