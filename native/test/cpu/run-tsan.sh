#!/usr/bin/env bash
# ThreadSanitizer run of the cpu engine's intra-op parallelism: the thread pool tests, then the
# engine driver (the MNIST fixture at 1 and 3 threads, every bad model and every ONNX node test
# at 2 threads) with every kernel's ParallelFor going through the pool. Any data race fails.
set -euo pipefail
cd "$(dirname "$0")/../../.."
out=build/tsan
mkdir -p "$out/obj"
export CXX=${CXX:-g++}
export CXXFLAGS="-std=c++17 -O1 -g -fno-omit-frame-pointer -fsanitize=thread -pthread -Inative/src"
$CXX $CXXFLAGS native/src/cpu/thread_pool.cc native/test/cpu/thread_pool_test.cc -o "$out/thread_pool_test"
export TSAN_OPTIONS=halt_on_error=1
"$out/thread_pool_test"
newest_header=$(find native/src -name '*.h' -printf '%T@ %p\n' | sort -n | tail -1 | cut -d' ' -f2)
sources=$(find native/src/cpu native/src/engine -name '*.cc' ! -name '*binding*' | sort; echo native/test/cpu/engine_driver.cc)
stale=()
for src in $sources; do
  obj="$out/obj/$(echo "$src" | tr / _).o"
  if [ ! -f "$obj" ] || [ "$src" -nt "$obj" ] || [ "$newest_header" -nt "$obj" ]; then stale+=("$src"); fi
done
if [ ${#stale[@]} -gt 0 ]; then
  printf '%s\n' "${stale[@]}" | xargs -P "${TSAN_JOBS:-$(nproc)}" -I{} sh -c \
    'exec $CXX $CXXFLAGS -c "$1" -o "$2/obj/$(echo "$1" | tr / _).o"' _ {} "$out"
fi
$CXX $CXXFLAGS "$out"/obj/*.o -o "$out/engine_driver"
"$out/engine_driver" "$PWD"
