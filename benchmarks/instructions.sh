#!/usr/bin/env bash
# Instructions per warm request, counted by valgrind's callgrind (apt-get install valgrind): the same count
# on every run of the same code, where CPU time on a shared machine spreads by a tenth, so a step of 1 %
# shows. Runs benchmarks/hotpath.py (no profile) with 50 and with 250 requests and prints the difference
# per request: start-up, migrations and the warm-up cancel out. About two minutes.
# Usage: DATABASE_URL=postgres://… REDIS_URL=redis://… benchmarks/instructions.sh [price|distance|places|availability|mcp]
set -euo pipefail
cd "$(dirname "$0")/.."
which="${1:-price}"
count() {
    PROFILE=0 PYTHONHASHSEED=0 valgrind --tool=callgrind --callgrind-out-file=/dev/null \
        .venv/bin/python benchmarks/hotpath.py "$which" "$1" 2>&1 | sed -n 's/.*Collected : \([0-9,]*\).*/\1/p' | tr -d ,
}
few="$(count 50)"
many="$(count 250)"
echo "$which: $(( (many - few) / 200 )) instructions per warm request (callgrind, $(git rev-parse --short HEAD))"
