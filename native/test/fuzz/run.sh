#!/usr/bin/env bash
# Coverage-guided fuzzing (libFuzzer, with ASan+UBSan) of what clients and repositories hand the
# native code: model files to the cpu engine (model), HTTP JSON infer bodies to the decoder and
# Normalize (json_request), ModelInferRequest messages to the gRPC decoder (grpc_request).
#
#   native/test/fuzz/run.sh [target...]      # default: all three, FUZZ_SECONDS (60) each
#
# Needs clang with libFuzzer (Debian: clang-14 libclang-rt-14-dev); not part of `npm test` or
# .ci/run, which run the deterministic mutation fuzzers under g++'s sanitizers instead. Corpora
# grow in build/fuzz/corpus/<target>; crashes are written to build/fuzz/ as crash-* files, and the
# script exits non-zero. A crash file replays with: build/fuzz/<target>_fuzzer <file>.
set -euo pipefail
cd "$(dirname "$0")/../../.."
CLANG=${CLANG:-$(command -v clang++ || command -v clang++-14 || true)}
if [ -z "$CLANG" ]; then echo "fuzz: clang++ not found (apt-get install clang-14 libclang-rt-14-dev)" >&2; exit 2; fi
out=build/fuzz
mkdir -p "$out/obj"
targets=("$@")
[ ${#targets[@]} -gt 0 ] || targets=(model json_request grpc_request)
flags="-std=c++17 -O1 -fwrapv -g -fno-omit-frame-pointer -fsanitize=address,undefined -fno-sanitize-recover=undefined -pthread -Inative/src -Inative/third_party/kissfft -Inative/test/scheduler -Inative/test/cpu"
simdjson=node_modules/@nozbe/simdjson/src

# Objects compile once (fuzzer-no-link: coverage instrumentation without libFuzzer's main) and
# again when their source or a header they include (listed by -MMD) changes.
objects_of() { local s; for s in "$@"; do echo "$out/obj/$(echo "$s" | tr / _).o"; done; }
stale_source() {
  local src=$1 obj dep
  obj=$(objects_of "$src")
  if [ ! -f "$obj" ] || [ ! -f "${obj%.o}.d" ]; then echo "$src"; return; fi
  for dep in $(sed -e 's/\\$//' -e 's/^[^:]*://' "${obj%.o}.d"); do
    if [ "$dep" -nt "$obj" ]; then echo "$src"; return; fi
  done
}
sources_for() {
  case $1 in
    model) find native/src/cpu native/src/engine -name '*.cc' ! -name '*binding*' ! -name '*_js.cc' | sort ;;
    json_request) printf '%s\n' native/src/http/json_infer_request.cc native/src/executor/normalize.cc native/src/executor/sequence_parameters.cc \
                    native/src/executor/request_wording.cc native/src/engine/tensor.cc "$simdjson/simdjson.cpp" ;;
    grpc_request) printf '%s\n' native/src/grpc/infer_message.cc native/src/engine/tensor.cc ;;
    *) echo "fuzz: unknown target '$1' (model, json_request, grpc_request)" >&2; exit 2 ;;
  esac
}
seed_corpus() {
  local target=$1 dir=$out/seeds/$1
  rm -rf "$dir" && mkdir -p "$dir"
  case $target in
    model)
      local n=0 m
      for m in fixtures/models/*.onnx /usr/share/libonnx-testdata/data/node/*/model.onnx; do
        [ -f "$m" ] && [ "$(stat -c %s "$m")" -le 65536 ] && cp "$m" "$dir/$((n++)).onnx"
      done ;;
    json_request)
      printf '%s' '{"inputs":[{"name":"A","datatype":"FP32","shape":[1,4],"data":[1,2.5,-3e2,4]},{"name":"B","datatype":"INT64","shape":[1,2,2],"data":[[1,2],[3,4]]}],"outputs":[{"name":"X"}]}' > "$dir/json"
      { printf '%s' '{"id":"q","inputs":[{"name":"A","datatype":"FP32","shape":[2,4],"parameters":{"binary_data_size":32}},{"name":"B","datatype":"INT64","shape":[1,2,1],"data":[7,8]}],"outputs":[{"name":"Y","parameters":{"binary_data":true,"classification":2}}],"parameters":{"binary_data_output":true,"priority":1,"timeout":100}}'
        printf '\0'; head -c 32 /dev/zero; } > "$dir/binary"
      printf '%s' '{"inputs":[{"name":"A","datatype":"BYTES","shape":[2],"data":["ab","\u00e9"]}]}' > "$dir/bytes" ;;
    grpc_request)
      # ModelInferRequest{model_name:"m", inputs:[{name:"A", datatype:"FP32", shape:[1,2]}], raw_input_contents:[8 bytes]}
      # and one with typed INT32 contents and a requested output, encoded by hand (tag, length, bytes).
      printf '\x0a\x01m\x2a\x0d\x0a\x01A\x12\x04FP32\x1a\x02\x01\x02\x3a\x08\x00\x00\x80\x3f\x00\x00\x00\x40' > "$dir/raw"
      printf '\x0a\x01m\x2a\x13\x0a\x01B\x12\x05INT32\x1a\x01\x02\x2a\x04\x12\x02\x01\x7f\x32\x03\x0a\x01Y' > "$dir/typed" ;;
  esac
}

status=0
for target in "${targets[@]}"; do
  mapfile -t srcs < <(sources_for "$target")
  mapfile -t stale < <(for s in "${srcs[@]}"; do stale_source "$s"; done)
  if [ ${#stale[@]} -gt 0 ]; then
    printf '%s\n' "${stale[@]}" | xargs -P "$(nproc)" -I{} sh -c \
      'exec "$0" $1 -I"$2" -fsanitize=fuzzer-no-link -MMD -c "$3" -o "$4/obj/$(echo "$3" | tr / _).o"' "$CLANG" "$flags" "$simdjson" {} "$out"
  fi
  bin="$out/${target}_fuzzer"
  # shellcheck disable=SC2086
  "$CLANG" $flags -I"$simdjson" -fsanitize=fuzzer "native/test/fuzz/${target}_fuzzer.cc" $(objects_of "${srcs[@]}") -o "$bin"
  seed_corpus "$target"
  mkdir -p "$out/corpus/$target"
  echo "fuzz: $target for ${FUZZ_SECONDS:-60} s" >&2
  # -timeout=60: a Loop whose trip count is an edge value runs to the engine's 2^20-iteration
  # bound, about 25 s of a trivial body under ASan; that bound is by design, not a hang.
  ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
    "$bin" -max_total_time="${FUZZ_SECONDS:-60}" -timeout=60 -rss_limit_mb=4096 -malloc_limit_mb=512 -max_len=65536 \
      -print_final_stats=1 -artifact_prefix="$out/" "$out/corpus/$target" "$out/seeds/$target" || status=1
done
exit $status
