#!/usr/bin/env bash
# Builds the cpu engine and engine_driver.cc with AddressSanitizer + UndefinedBehaviorSanitizer
# (no N-API: the engine does not depend on JS) and runs the driver, then the thread pool tests and
# the row-math tests (AVX2 and portable paths).
# Any sanitizer report fails.
set -euo pipefail
cd "$(dirname "$0")/../../.."
out=build/asan
mkdir -p "$out/obj"
export CXX=${CXX:-g++}
export CXXFLAGS="-std=c++17 -O1 -g -fno-omit-frame-pointer -fsanitize=address,undefined -fno-sanitize-recover=undefined -pthread -Inative/src"
# An object is rebuilt when its source or any engine header is newer.
newest_header=$(find native/src -name '*.h' -printf '%T@ %p\n' | sort -n | tail -1 | cut -d' ' -f2)
sources=$(find native/src/cpu native/src/engine -name '*.cc' ! -name '*binding*' | sort; echo native/test/cpu/engine_driver.cc)
stale=()
for src in $sources; do
  obj="$out/obj/$(echo "$src" | tr / _).o"
  if [ ! -f "$obj" ] || [ "$src" -nt "$obj" ] || [ "$newest_header" -nt "$obj" ]; then stale+=("$src"); fi
done
if [ ${#stale[@]} -gt 0 ]; then
  printf '%s\n' "${stale[@]}" | xargs -P "${ASAN_JOBS:-$(nproc)}" -I{} sh -c \
    'exec $CXX $CXXFLAGS -c "$1" -o "$2/obj/$(echo "$1" | tr / _).o"' _ {} "$out"
fi
$CXX $CXXFLAGS "$out"/obj/*.o -o "$out/engine_driver"
export ASAN_OPTIONS=detect_leaks=1:abort_on_error=1:halt_on_error=1
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
"$out/engine_driver" "$PWD"
$CXX $CXXFLAGS native/src/cpu/thread_pool.cc native/test/cpu/thread_pool_test.cc -o "$out/thread_pool_test"
"$out/thread_pool_test"
$CXX $CXXFLAGS native/src/cpu/ops/vector_math.cc native/test/cpu/vector_math_test.cc -o "$out/vector_math_test"
"$out/vector_math_test"
GEBE_TEST_PORTABLE=1 "$out/vector_math_test"
