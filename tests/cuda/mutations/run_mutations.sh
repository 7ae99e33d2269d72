#!/usr/bin/env bash
# Runs mutations of Ember's CUDA code through the emulated test bed and says which were caught.
#
#   tests/cuda/mutations/run_mutations.sh [PATCH...]    (default: every *.patch here)
#
# Each patch puts one bug into the code. Its header names the bug and the builds that judge it,
# tried in order until one catches it:
#   # bug: <what the mutation does>
#   # class: release | clang | asan | tsan   (one or more, in order)
# release: GCC Release, EMBER_CUDA=EMULATE; the cuda test label in CI's runs
#          (.ci/emulated_cuda_modes.sh: two emulated devices, strict devices; forward, blocks
#          and threads reversed, shuffled, deferred streams), stopping at the first failure;
# clang:   clang-16 with kernels/cuda's index-width errors (-Werror=shorten-64-to-32): caught
#          when the patched code does not compile;
# asan:    clang-16 ASan+UBSan, EMBER_CUDA_CACHING_ALLOCATOR=0; the cuda label, forward mode;
# tsan:    clang-16 TSan, the emulator's racecheck (every emulated thread a TSan identity,
#          barriers the only edges between them); ember_cuda_tests as CI runs it
#          (.ci/tsan_cuda_subset.sh), in one process: caught by a ThreadSanitizer report (or a
#          failure).
# The patch is applied to a scratch worktree ($MUTATION_WORK, default /tmp/ember-mutations),
# whose build folders are kept between runs so each mutation rebuilds only what it touches
# (ccache when installed; builds serialised on $BUILD_LOCK when that file exists, for a machine
# whose other builds take the same lock). $MUTATION_CMAKE_ARGS is added to every configure (a
# quicker optimisation level, say). Prints `caught` / `missed` per mutation with what caught
# it, then `N caught, M missed`. Run by hand, not in CI: the table lives in README.md here.
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(git -C "$HERE" rev-parse --show-toplevel)
WORK=${MUTATION_WORK:-/tmp/ember-mutations}
SCRATCH=$WORK/src
JOBS=${JOBS:-2}
BUILD_LOCK=${BUILD_LOCK:-}
# CI's runs of the cuda label (devices, strict devices, the four modes).
source "$ROOT/.ci/emulated_cuda_modes.sh"
export "${EMULATED_CUDA_ENV[@]}"
LAUNCHER=()
if command -v ccache >/dev/null; then LAUNCHER=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache -DCMAKE_C_COMPILER_LAUNCHER=ccache); fi

patches=("$@")
if ((${#patches[@]} == 0)); then patches=("$HERE"/*.patch); fi

# The scratch copy: a detached worktree at the current commit (uncommitted changes are not in it).
mkdir -p "$WORK"
if [[ ! -d $SCRATCH/.git && ! -f $SCRATCH/.git ]]; then
  git -C "$ROOT" worktree add --detach "$SCRATCH" HEAD >/dev/null
fi
git -C "$SCRATCH" checkout -q --detach "$(git -C "$ROOT" rev-parse HEAD)"
git -C "$SCRATCH" reset -q --hard
git -C "$SCRATCH" clean -qfd -e 'build-*'

locked() {
  if [[ -n $BUILD_LOCK && -e $BUILD_LOCK ]]; then flock "$BUILD_LOCK" nice "$@"; else nice "$@"; fi
}

# configure <class>: the class's build folder, configured once.
build_dir() { echo "$SCRATCH/build-mut-$1"; }
configure() {
  local cls=$1 dir
  dir=$(build_dir "$cls")
  [[ -f $dir/build.ninja ]] && return 0
  local common=(-S "$SCRATCH" -B "$dir" -G Ninja -DEMBER_CUDA=EMULATE -DEMBER_WERROR=ON -DEMBER_MPI=OFF
    -DEMBER_BUILD_BENCH=OFF -DEMBER_BUILD_EXAMPLES=OFF "${LAUNCHER[@]}")
  local opt="-O1 -gline-tables-only -DNDEBUG"
  local extra=()
  read -r -a extra <<<"${MUTATION_CMAKE_ARGS:-}"
  case $cls in
    release) cmake "${common[@]}" -DCMAKE_BUILD_TYPE=Release "${extra[@]}" >/dev/null ;;
    clang) cmake "${common[@]}" -DCMAKE_BUILD_TYPE=Release -DCMAKE_C_COMPILER=clang-16 \
      -DCMAKE_CXX_COMPILER=clang++-16 -DEMBER_BUILD_TESTS=OFF "${extra[@]}" >/dev/null ;;
    asan) cmake "${common[@]}" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_C_COMPILER=clang-16 \
      -DCMAKE_CXX_COMPILER=clang++-16 -DEMBER_SANITIZE=ON "-DCMAKE_C_FLAGS_RELWITHDEBINFO=$opt" \
      "-DCMAKE_CXX_FLAGS_RELWITHDEBINFO=$opt" "${extra[@]}" >/dev/null ;;
    tsan) cmake "${common[@]}" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_C_COMPILER=clang-16 \
      -DCMAKE_CXX_COMPILER=clang++-16 -DEMBER_TSAN=ON "-DCMAKE_C_FLAGS_RELWITHDEBINFO=$opt" \
      "-DCMAKE_CXX_FLAGS_RELWITHDEBINFO=$opt" "${extra[@]}" >/dev/null ;;
    *) echo "unknown class $cls" >&2; return 2 ;;
  esac
}

# judge <class> <log>: prints what caught the mutation and returns 0, or returns 1.
judge() {
  local cls=$1 log=$2 dir
  dir=$(build_dir "$cls")
  configure "$cls"
  if [[ $cls == clang ]]; then
    # kernels/cuda's objects are all the index-width flags apply to.
    local objs
    objs=$(ninja -C "$dir" -t targets all | grep -o 'CMakeFiles/ember.dir/kernels/cuda/[^:]*\.o' | sort -u)
    # shellcheck disable=SC2086
    if ! locked ninja -C "$dir" -j "$JOBS" -k 0 $objs >"$log" 2>&1; then
      local first
      first=$(grep -m1 -oE 'error: .*\[-W[^]]*\]' "$log" || echo "a compile error")
      echo "clang build: $first"
      return 0
    fi
    return 1
  fi
  if ! locked cmake --build "$dir" -j "$JOBS" --target ember_cuda_tests >"$log" 2>&1; then
    echo "the $cls build failed (see $log)"
    return 0
  fi
  if [[ $cls == tsan ]]; then
    # As CI runs it, in one process: the first report ends it (halt_on_error).
    local TSAN_CUDA_FILTER TSAN_CUDA_ENV
    # shellcheck source=/dev/null
    source "$SCRATCH/.ci/tsan_cuda_subset.sh"
    local symbolizer
    symbolizer=$(dirname "$(realpath "$(command -v clang++-16)")")/llvm-symbolizer
    if env "${TSAN_CUDA_ENV[@]}" TSAN_OPTIONS=halt_on_error=1 TSAN_SYMBOLIZER_PATH="$symbolizer" \
      "$dir/tests/ember_cuda_tests" --gtest_filter="$TSAN_CUDA_FILTER" >"$log" 2>&1; then
      return 1
    fi
    local report kernel test
    report=$(grep -m1 -oE 'ThreadSanitizer: [a-z -]*[a-z]' "$log" || true)
    # The kernel: the first frame of the report's first stack named *_kernel (Ember's kernels
    # all are), else that stack's top frame.
    kernel=$(awk '/WARNING: ThreadSanitizer/ { w = 1; next }
      w && /^ +#[0-9]+ / {
        if (top == "") top = $2
        if (k == "" && match($0, /[A-Za-z0-9_]*_kernel(<[^>]*>)?/)) k = substr($0, RSTART, RLENGTH)
      }
      w && /^$/ { exit }
      END { print (k != "") ? k : top }' "$log")
    test=$(grep -E '^\[ RUN +\]' "$log" | tail -1 | sed -E 's/^\[ RUN +\] //')
    if [[ -n $report ]]; then
      echo "tsan: $report in $kernel ($test)"
    else
      echo "tsan: $(grep -m1 -E '^\[  FAILED  \]' "$log" || echo "ember_cuda_tests failed (see $log)")"
    fi
    return 0
  fi
  local modes=("${EMULATED_CUDA_MODES[@]}")
  local envs=()
  if [[ $cls == asan ]]; then
    modes=("${EMULATED_CUDA_MODES[0]}")
    envs=(EMBER_CUDA_CACHING_ALLOCATOR=0 ASAN_OPTIONS=detect_leaks=0:abort_on_error=1
      UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1)
  fi
  local m name setting
  for m in "${modes[@]}"; do
    name=${m%%|*}
    read -r -a setting <<<"${m#*|}"
    if ! env "${envs[@]}" "${setting[@]}" ctest --test-dir "$dir" -L cuda -j "$JOBS" --stop-on-failure \
      --output-on-failure >"$log" 2>&1; then
      local failed
      # ctest's summary lines; a parameterised test's name is followed by "# GetParam() = ...".
      failed=$(sed -nE 's/^[[:space:]]*[0-9]+ - ([^ ]+).* \((Failed|Subprocess aborted|SEGFAULT|Timeout|Exception)[^)]*\)$/\1 (\2)/p' \
        "$log" | head -3 | paste -sd, - || true)
      local report
      report=$(grep -m1 -oE 'ERROR: AddressSanitizer: [a-z-]+|ember: device memory overrun on cuda:[0-9]+' "$log" || true)
      echo "$cls, $name mode: ${report:+$report in }${failed:-ctest failed (see $log)}"
      return 0
    fi
  done
  return 1
}

caught=0 missed=0
for patch in "${patches[@]}"; do
  patch=$(realpath "$patch")
  name=$(basename "$patch" .patch)
  bug=$(sed -nE 's/^# bug: //p' "$patch" | head -1)
  read -r -a classes <<<"$(sed -nE 's/^# class: //p' "$patch" | head -1)"
  ((${#classes[@]})) || classes=(release)
  if ! git -C "$SCRATCH" apply "$patch"; then
    echo "$name: does not apply (re-target it to the current code)" >&2
    exit 2
  fi
  verdict="missed (${classes[*]})"
  for cls in "${classes[@]}"; do
    log="$WORK/$name.$cls.log"
    if by=$(judge "$cls" "$log"); then
      verdict="caught by $by"
      break
    fi
  done
  git -C "$SCRATCH" apply -R "$patch"
  if [[ $verdict == caught* ]]; then caught=$((caught + 1)); else missed=$((missed + 1)); fi
  printf '%-28s %s  [%s]\n' "$name" "$verdict" "$bug"
done
echo "$caught caught, $missed missed"
