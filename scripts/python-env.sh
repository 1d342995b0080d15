#!/usr/bin/env bash
# The Python the tests run: a venv in .venv-test/ with numpy (the Python-backend tests run model.py
# with it) and grpcio (gRPC's C-core client, for the native gRPC front end's client test) from the
# configured package index (pip's own configuration). Idempotent: a venv whose python imports both
# is kept as it is. Run by `npm test` (pretest) and so by .ci/run. Outside CI a machine without
# python3 (or without access to a package index) gets a warning and the Python tests skip; in CI
# (CI=true) that is an error, because there the Python tests must run.
set -uo pipefail
cd "$(dirname "$0")/.."
venv=.venv-test

fail() {
  if [ "${CI:-}" = "true" ]; then
    echo "python-env: $1" >&2
    exit 1
  fi
  echo "python-env: $1; the Python-backend tests will be skipped" >&2
  exit 0
}

if [ -x "$venv/bin/python3" ] && "$venv/bin/python3" -c 'import numpy, grpc' 2>/dev/null; then
  exit 0
fi
command -v python3 >/dev/null || fail "no python3 on PATH (Debian: apt-get install python3 python3-venv)"
start=$(date +%s)
rm -rf "$venv"
python3 -m venv "$venv" || fail "python3 -m venv failed (Debian: apt-get install python3-venv)"
"$venv/bin/python3" -m pip install --quiet --retries 1 numpy grpcio || fail "pip could not install numpy and grpcio into $venv"
echo "python-env: made $venv with numpy and grpcio in $(( $(date +%s) - start ))s" >&2
