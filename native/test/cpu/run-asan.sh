#!/usr/bin/env bash
# Builds the cpu engine and engine_driver.cc with AddressSanitizer + UndefinedBehaviorSanitizer
# (no N-API: the engine does not depend on JS) and runs the driver, then the thread pool tests and
# the row-math, GEMM and integer GEMM kernel tests (every ISA the CPU runs), and the native infer route's tests.
# Any sanitizer report fails.
set -euo pipefail
cd "$(dirname "$0")/../../.."
out=build/asan
mkdir -p "$out/obj"
export CXX=${CXX:-g++}
# -O0: compiling takes most of this run, and the sanitizers check every access at any optimisation level.
export CXXFLAGS="-std=c++17 -O0 -fwrapv -g -fno-omit-frame-pointer -fsanitize=address,undefined,float-cast-overflow -fno-sanitize-recover=undefined,float-cast-overflow -pthread -Inative/src -Inative/third_party/kissfft"
source native/test/cpu/build-engine-driver.sh
build_engine_driver "${ASAN_JOBS:-$(nproc)}"
export ASAN_OPTIONS=detect_leaks=1:abort_on_error=1:halt_on_error=1
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
"$out/engine_driver" "$PWD"
$CXX $CXXFLAGS $(engine_objects native/src/cpu/thread_pool.cc) native/test/cpu/thread_pool_test.cc -o "$out/thread_pool_test"
"$out/thread_pool_test"
# The native infer route's pure parts (URL/header checks, the simdjson decoder and its mutation fuzz, response encoder),
# built by their own Makefile (one list of sources) with the same sanitizers.
make -s --no-print-directory -j"$(nproc)" -C native/test/fast_infer run SAN=address,undefined | tail -1
make -s --no-print-directory -j"$(nproc)" -C native/test/normalize run SAN=address,undefined | tail -1
# The classification extension every infer path shares (executor/classification.cc).
make -s --no-print-directory -j"$(nproc)" -C native/test/classification run SAN=address,undefined | tail -1
# The trace extension's sampler (native/src/trace/).
make -s --no-print-directory -j"$(nproc)" -C native/test/trace run SAN=address,undefined | tail -1
# Row math and GEMM kernels on every ISA this CPU runs (the binaries report the others as skipped).
$CXX $CXXFLAGS $(engine_objects native/src/cpu/isa.cc native/src/cpu/ops/vector_math.cc native/src/cpu/ops/vector_math_avx2.cc \
  native/src/cpu/ops/vector_math_avx512.cc) native/test/cpu/vector_math_test.cc -o "$out/vector_math_test"
for isa in portable avx2 avx512; do GEBE_CPU_ISA=$isa "$out/vector_math_test"; done
$CXX $CXXFLAGS $(engine_objects native/src/cpu/isa.cc native/src/cpu/gemm/sgemm_portable.cc native/src/cpu/gemm/sgemm_avx2.cc \
  native/src/cpu/gemm/sgemm_avx512.cc native/src/cpu/gemm/sgemm_neon.cc native/src/cpu/gemm/sgemm_pack.cc) \
  native/test/cpu/sgemm_kernels_test.cc -o "$out/sgemm_kernels_test"
$CXX $CXXFLAGS $(engine_objects native/src/cpu/isa.cc native/src/engine/tensor.cc native/src/cpu/gemm/qgemm.cc native/src/cpu/gemm/qgemm_portable.cc \
  native/src/cpu/gemm/qgemm_avx2.cc native/src/cpu/gemm/qgemm_avx512.cc native/src/cpu/gemm/qgemm_avx512_transposed.cc) \
  native/test/cpu/qgemm_kernels_test.cc -o "$out/qgemm_kernels_test"
"$out/qgemm_kernels_test"
"$out/sgemm_kernels_test"

# The native HTTP server (native/src/http/) with its own driver.
bash native/test/http/run-sanitized.sh address,undefined
