#!/usr/bin/env bash
# ThreadSanitizer run of the cpu engine's intra-op parallelism: the thread pool tests, then the
# engine driver (the MNIST fixture at 1 and 3 threads, every bad model and every ONNX node test
# at 2 threads) with every kernel's ParallelFor going through the pool. Any data race fails.
set -euo pipefail
cd "$(dirname "$0")/../../.."
out=build/tsan
mkdir -p "$out/obj"
export CXX=${CXX:-g++}
# -O0 for the reason run-asan.sh gives.
export CXXFLAGS="-std=c++17 -O0 -fwrapv -g -fno-omit-frame-pointer -fsanitize=thread -pthread -Inative/src -Inative/third_party/kissfft"
source native/test/cpu/build-engine-driver.sh
build_engine_driver "${TSAN_JOBS:-$(nproc)}"
$CXX $CXXFLAGS $(engine_objects native/src/cpu/thread_pool.cc) native/test/cpu/thread_pool_test.cc -o "$out/thread_pool_test"
export TSAN_OPTIONS=halt_on_error=1
"$out/thread_pool_test"
"$out/engine_driver" "$PWD"

# The native HTTP server: the fast-path answers cross threads through its mailbox.
bash native/test/http/run-sanitized.sh thread

# The trace extension's sampler: the loop threads sample while the JS thread changes settings.
make -s --no-print-directory -C native/test/trace run SAN=thread | tail -1
