#!/usr/bin/env bash
# Installs what building and testing Ember needs on Debian 12 (Open MPI for Ember::distributed
# and its mpirun tests), plus any extra packages named on the command line (CI adds its second
# compiler). Uses sudo only when not root: a fresh
# Debian image runs as root and has no sudo.
set -euo pipefail
PKGS=(cmake ninja-build g++ pkg-config libeigen3-dev libgtest-dev libbenchmark-dev zlib1g-dev libutf8proc-dev libopenmpi-dev openmpi-bin "$@")
missing=()
for p in "${PKGS[@]}"; do dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p"); done
((${#missing[@]})) || exit 0
SUDO=()
if [[ $(id -u) -ne 0 ]]; then SUDO=(sudo); fi
"${SUDO[@]}" apt-get update -qq
DEBIAN_FRONTEND=noninteractive "${SUDO[@]}" apt-get install -y -qq "${missing[@]}" >/dev/null
