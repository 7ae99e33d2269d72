#!/usr/bin/env bash
# A dry run of tests/gpu/run.sh against the emulated CUDA build (EMBER_CUDA=EMULATE): a kit laid
# out as prepare.sh lays it out, with the emulated binaries, then run.sh as a GPU machine runs
# it (library search, unpacking, the start check, the parity suite with EMBER_REQUIRE_GPU=1,
# the mnist and text classifier comparisons, absent benchmarks) and its summary table checked
# line by line.
#
#   dry_run_test.sh SOURCE_DIR EMBER_CUDA_TESTS MNIST TEXT_CLASSIFIER
set -euo pipefail
SRC=$1 TESTS=$2 MNIST=$3 TEXT=$4
KIT=$(mktemp -d)
trap 'rm -rf "$KIT"' EXIT
mkdir -p "$KIT/bin" "$KIT/data"
gzip -c "$TESTS" >"$KIT/bin/ember_cuda_tests.gz"
gzip -c "$MNIST" >"$KIT/bin/mnist.gz"
gzip -c "$TEXT" >"$KIT/bin/text_classifier.gz"
cp -r "$SRC/examples/data/mnist-sample" "$KIT/data/"
mkdir -p "$KIT/data/reviews" &&
  cp "$SRC/examples/data/reviews/reviews.tsv.gz" "$SRC/examples/data/reviews/vocab.txt" "$KIT/data/reviews/"
cp "$SRC/tests/gpu/run.sh" "$SRC/tests/gpu/find_cuda_libs.sh" "$SRC/examples/common/compare_devices.py" "$KIT/"
echo "dry run against the emulated build" >"$KIT/manifest.txt"

status=0
# Short example runs: CI's cuda label compares both examples on the emulator already; here
# only the script is on trial.
out=$(OUT=$KIT/out MNIST_LIMIT=1280 TEXT_LIMIT=128 EMBER_EMULATED_CUDA_DEVICES=2 bash "$KIT/run.sh" 2>&1) || status=$?
echo "$out" | tail -14
if ((status != 0)); then
  cat "$KIT/out/parity.log" 2>/dev/null | tail -30
  echo "dry run: run.sh exited $status" >&2
  exit 1
fi
expect() {
  grep -qE "$1" <<<"$out" || { echo "dry run: no summary line matching: $1" >&2; exit 1; }
}
expect '^parity suite +\| CUDA parity suite: [0-9]+ ran, [0-9]+ passed, 0 failed, 0 skipped \(devices: 2\) \[exit 0\]$'
expect '^mnist \(cuda:0\) +\| exit 0: cpu: .* cuda:0: first 20 losses within .*: ok'
expect '^text \(cuda:0\) +\| exit 0: cpu: .* cuda:0: first 4 losses within .*: ok'
expect '^binaries +\| carried$'
expect '^ember_bench_ops +\| not built in this tree$'
expect '^ember_bench_text +\| not built in this tree$'
expect '^text vs PyTorch +\| not run \(no ember_bench_text rows\)$'
echo "dry run: run.sh's summary is as expected"
