#!/usr/bin/env bash
# Refreshes the committed fuzz seed corpus of the proof package (proof/testdata/fuzz/<Target>/):
# runs each fuzz target for FUZZTIME (default 20s), then copies the inputs the fuzzer found
# interesting from Go's fuzz cache into testdata, where plain `go test` runs them as seeds.
#   scripts/fuzz-corpus.sh            # all targets of ./proof
#   FUZZTIME=2m scripts/fuzz-corpus.sh
set -euo pipefail
cd "$(dirname "$0")/.."
pkg=./proof
fuzztime=${FUZZTIME:-20s}
cache="$(go env GOCACHE)/fuzz/$(go list "$pkg")"
for target in $(go test -list '^Fuzz' "$pkg" | grep '^Fuzz'); do
  echo "== $target ($fuzztime)"
  go test -run '^$' -fuzz "^${target}\$" -fuzztime "$fuzztime" "$pkg"
  dest="$pkg/testdata/fuzz/$target"
  mkdir -p "$dest"
  if [ -d "$cache/$target" ]; then
    # keep the corpus small: at most 64 entries, the shortest first
    ls -S -r "$cache/$target" | head -n 64 | while read -r f; do cp "$cache/$target/$f" "$dest/$f"; done
  fi
  echo "$(ls "$dest" | wc -l) seeds in $dest"
done
