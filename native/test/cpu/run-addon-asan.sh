#!/usr/bin/env bash
# The engine's vitest files against the test addon built with AddressSanitizer, node running with
# libasan preloaded. An out-of-bounds read that does not crash the release build shows up here: the
# empty-dims test found RoiAlign's read before an empty feature map this way. Not part of .ci/run
# (building the addon takes about 4 minutes on 2 cores); run it after changing kernels.
#
#   native/test/cpu/run-addon-asan.sh [vitest file or directory...]   (default: test/core/executor/cpu/)
#
# The working tree is copied to build/asan-addon/tree (node-gyp builds in place) and built there
# with -fsanitize=address added through the compiler flags node-gyp's Makefile reads.
set -euo pipefail
cd "$(dirname "$0")/../../.."
root=$PWD
tree=build/asan-addon/tree
mkdir -p "$tree"
tar -c --exclude=./build --exclude=./node_modules --exclude=./.git --exclude='./.venv*' . | tar -x -C "$tree"
ln -sfn "$root/node_modules" "$tree/node_modules"
(
  cd "$tree"
  export CFLAGS="-fsanitize=address -fno-omit-frame-pointer -g" CXXFLAGS="-fsanitize=address -fno-omit-frame-pointer -g" LDFLAGS="-fsanitize=address"
  # Configured every time: binding.gyp globs the sources, so a file added since the last run
  # would otherwise be missing from the Makefile (and its symbols from the addon).
  npx node-gyp configure >/dev/null
  npx node-gyp build -j "$(nproc)" gebe_native_test >/dev/null
)
files=("$@")
[ ${#files[@]} -gt 0 ] || files=(test/core/executor/cpu/)
LD_PRELOAD="$(${CXX:-g++} -print-file-name=libasan.so)" ASAN_OPTIONS=detect_leaks=0:abort_on_error=1:halt_on_error=1 \
  GEBE_NATIVE_ADDON="$root/$tree/build/Release/gebe_native_test.node" npx vitest run "${files[@]}"
