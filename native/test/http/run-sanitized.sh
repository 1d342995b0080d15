#!/usr/bin/env bash
# Builds the native HTTP server (no N-API: libuv from the system, node's uv.h, vendored llhttp)
# with the given sanitizers (default address,undefined) and runs http_server_test.cc.
set -euo pipefail
cd "$(dirname "$0")/../../.."
san=${1:-address,undefined}
out=build/native-tests
mkdir -p "$out"
libuv=$(ls /usr/lib/*-linux-gnu/libuv.so.1 /usr/lib64/libuv.so.1 /usr/lib/libuv.so.1 2>/dev/null | head -n1 || true)
if [ -z "$libuv" ]; then echo "http server test skipped: no system libuv.so.1"; exit 0; fi
uvinc=$(node -p "require('path').join(process.execPath, '..', '..', 'include', 'node')")
[ -f "$uvinc/uv.h" ] || uvinc=/usr/include/node
flags="-O0 -fwrapv -g -fno-omit-frame-pointer -fsanitize=$san -fno-sanitize-recover=all -pthread"
name="$out/http_server_test_${san//,/_}"
for f in api http llhttp; do
  ${CC:-gcc} $flags -w -c native/third_party/llhttp/$f.c -Inative/third_party/llhttp -o "$name.$f.o"
done
${CXX:-g++} -std=c++17 $flags -Wall -Wno-unused-parameter -Inative/src -Inative/third_party/llhttp -I"$uvinc" \
  native/src/http/http_server.cc native/src/http/http_loop.cc native/src/http/http_connection.cc native/src/net/loop_thread.cc native/src/http/infer_response.cc native/src/engine/tensor.cc \
  native/src/trace/request_trace.cc \
  native/test/http/http_server_test.cc "$name".{api,http,llhttp}.o "$libuv" -o "$name"
"$name"
