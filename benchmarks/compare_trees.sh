#!/usr/bin/env bash
# One warm request's CPU in one process, for several commits side by side: each commit is checked out in a
# temporary worktree and measured with this tree's benchmarks/hotpath.py, the commits alternating for
# ROUNDS rounds, so the machine's drift touches each alike. Prints one line per measurement.
# Usage: DATABASE_URL=postgres://… REDIS_URL=redis://… benchmarks/compare_trees.sh "price mcp" COMMIT…
set -euo pipefail
cd "$(dirname "$0")/.."
requests="$1"; shift
rounds="${ROUNDS:-5}"
scratch="$(mktemp -d)"
trap 'for tree in "$scratch"/*; do git worktree remove --force "$tree"; done; rm -rf "$scratch"' EXIT
for commit in "$@"; do
    git worktree add -q --detach "$scratch/$commit" "$commit"
    cp benchmarks/hotpath.py "$scratch/$commit/benchmarks/hotpath.py"
done
for round in $(seq "$rounds"); do
    for commit in "$@"; do
        for which in $requests; do
            line="$(PROFILE=0 .venv/bin/python "$scratch/$commit/benchmarks/hotpath.py" "$which" 500 2>/dev/null | grep "CPU per warm request")"
            echo "round $round  $commit  $line"
        done
    done
done
