#!/usr/bin/env bash
# Runs every Fuzz target of the module for a short run ($1, default 30000x:
# an iteration count, since a time limit can end a run with a spurious
# "context deadline exceeded").
set -euo pipefail
fuzztime=${1:-30000x}
for pkg in $(go list ./...); do
  dir=$(go list -f '{{.Dir}}' "$pkg")
  for target in $(grep -ho '^func Fuzz[A-Za-z0-9_]*' "$dir"/*_test.go 2>/dev/null | sed 's/^func //'); do
    echo "fuzz: $pkg $target ($fuzztime)"
    go test -run '^$' -fuzz "^${target}\$" -fuzztime "$fuzztime" "$pkg" >/tmp/fuzz-$$.log 2>&1 || { cat /tmp/fuzz-$$.log; exit 1; }
  done
done
rm -f /tmp/fuzz-$$.log
