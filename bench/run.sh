#!/usr/bin/env bash
# The duetime benchmark, one command:  bench/run.sh  [compare.py options, e.g. --quick, --grpc]
#                  the cost table:       bench/run.sh --cost  [cost.py options, e.g. --runs 5]
#
# Builds bench/.venv (duetime from this repository, editable, plus the
# comparison libraries in bench/requirements.txt — benchmark only), runs
# bench/compare.py and saves its output to bench/results/<date>-<host>.txt.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
repo=$(dirname "$here")
venv="$here/.venv"
python=${PYTHON:-python3}

if [ ! -x "$venv/bin/python" ]; then
    echo "creating $venv" >&2
    "$python" -m venv "$venv"
fi
# (re)install only when the requirements or duetime's pyproject changed
want=$(cat "$here/requirements.txt" "$repo/pyproject.toml" | sha256sum | cut -d' ' -f1)
if [ "$(cat "$venv/.installed" 2>/dev/null || true)" != "$want" ]; then
    echo "installing duetime (editable) and the comparison libraries into $venv (log: $venv/pip.log)" >&2
    if ! "$venv/bin/python" -m pip install -e "$repo" -r "$here/requirements.txt" >"$venv/pip.log" 2>&1; then
        tail -n 30 "$venv/pip.log" >&2
        exit 1
    fi
    echo "$want" >"$venv/.installed"
fi

# OpenBLAS variables some machines set slow a current numpy: unset them for
# this run only (the header says whether they were set).
was=""
for v in OPENBLAS_CORETYPE OPENBLAS_L2_SIZE; do
    if [ -n "${!v+x}" ]; then was+="$v=${!v} "; fi
done

mkdir -p "$here/results"
if [ "${1:-}" = --cost ]; then  # the costliest request of each RPC: bench/cost.py
    shift
    out="$here/results/$(date +%Y-%m-%d)-$(uname -n)-cost.txt"
    status=0
    "$venv/bin/python" "$here/cost.py" "$@" | tee "$out" || status=$?
    echo "saved: ${out#"$repo"/}" >&2
    exit "$status"
fi
suffix=""
for a in "$@"; do if [ "$a" = --grpc ]; then suffix="-grpc"; fi; done  # nor replaces a library-only run
for a in "$@"; do if [ "$a" = --quick ]; then suffix="-quick"; fi; done  # a smoke run never replaces a real one
out="$here/results/$(date +%Y-%m-%d)-$(uname -n)$suffix.txt"
BENCH_OPENBLAS_UNSET="$was" env -u OPENBLAS_CORETYPE -u OPENBLAS_L2_SIZE \
    "$venv/bin/python" "$here/compare.py" "$@" | tee "$out"
echo "saved: ${out#"$repo"/}" >&2
