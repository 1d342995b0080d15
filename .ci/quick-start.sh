#!/usr/bin/env bash
# The README's Quick start, checked as a user runs it (issue 14): its first command, read from the
# README itself (less the `npm ci` that .ci/run has just done), serving on port 0; one infer with the
# README's infer command; then Ctrl-C as a terminal sends it (SIGINT to the foreground process
# group), and `kill` of a backgrounded `serve` (SIGTERM to $!). Each time the server must exit 0 and
# its port must close. Runs in the checkout, which must not have a model_repository yet.
set -euo pipefail
cd "$(dirname "$0")/.."

first=$(grep -m1 '^npm ci && node bin/gebe.js init ' README.md | sed -e 's/ *#.*$//' -e 's/^npm ci && //')
infer=$(grep -m1 '^node bin/gebe.js infer ' README.md)
[ -n "$first" ] && [ -n "$infer" ] || { echo "quick start: the README's commands were not found" >&2; exit 1; }
[ ! -e model_repository ] || { echo "quick start: ./model_repository exists; run this on a fresh clone" >&2; exit 1; }
log=$(mktemp)
trap 'rm -rf model_repository "$log"' EXIT
export GEBE_HTTP_PORT=0 GEBE_GRPC_PORT=0 GEBE_METRICS_PORT=0

wait_for_port() { # pid: prints the HTTP port the server announced
  for _ in $(seq 600); do
    port=$(sed -n 's|^HTTP  *http://127\.0\.0\.1:\([0-9]*\)/v2$|\1|p' "$log")
    if [ -n "$port" ]; then echo "$port"; return; fi
    kill -0 "$1" 2>/dev/null || { cat "$log" >&2; echo "quick start: the server exited before listening" >&2; exit 1; }
    sleep 0.1
  done
  echo "quick start: no HTTP port announced within 60 s" >&2; exit 1
}

expect_stopped() { # pid port what
  local status=0
  for _ in $(seq 300); do kill -0 "$1" 2>/dev/null || break; sleep 0.1; done
  if kill -0 "$1" 2>/dev/null; then echo "quick start: the server kept running 30 s after $3" >&2; exit 1; fi
  wait "$1" || status=$?
  [ "$status" = 0 ] || { cat "$log" >&2; echo "quick start: the server exited $status after $3" >&2; exit 1; }
  if (exec 3<>"/dev/tcp/127.0.0.1/$2") 2>/dev/null; then echo "quick start: port $2 still open after $3" >&2; exit 1; fi
}

# 1. The first command in the foreground of its own process group, stopped with Ctrl-C.
start=$(date +%s%N)
setsid bash -c "$first" >"$log" 2>&1 &
pid=$!
port=$(wait_for_port "$pid")
echo "quick start: \`$first\` listening on :$port after $((($(date +%s%N) - start) / 1000000)) ms"
${infer/localhost:8000/127.0.0.1:$port} | grep -A1 '^  top ' | tail -1 | grep -q '^ *"7" ' || { echo "quick start: the README's infer did not answer 7" >&2; exit 1; }
kill -INT -- "-$pid"
expect_stopped "$pid" "$port" 'Ctrl-C (SIGINT to its process group)'

# 2. `serve &` then `kill $!`: the signal reaches the server itself.
node bin/gebe.js serve >"$log" 2>&1 &
pid=$!
port=$(wait_for_port "$pid")
kill "$pid"
expect_stopped "$pid" "$port" 'kill $! (SIGTERM)'
echo "quick start: ok (infer answered; SIGINT and SIGTERM each stopped the server and closed its port)"
