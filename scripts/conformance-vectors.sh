#!/usr/bin/env bash
# Regenerates proof/testdata/vectors.ndjson from conformance/inputs.ndjson with the project's
# JavaScript reference (conformance/): each input line with its RFC 8785 canonical text and
# BLAKE2b-256 digest. Run it after adding inputs (`make vectors` does the same), then commit
# both files; `go test ./proof` checks that the committed vectors match the reference.
set -euo pipefail
cd "$(dirname "$0")/../conformance"
if [ ! -d node_modules/canonicalize ]; then
  npm ci --no-audit --no-fund --loglevel=error
fi
out=../proof/testdata/vectors.ndjson
tmp=$(mktemp)
trap 'rm -f "$tmp"' EXIT
node vectors.mjs < inputs.ndjson > "$tmp"
mv "$tmp" "$out"
trap - EXIT
echo "wrote $(wc -l < "$out") vectors to proof/testdata/vectors.ndjson"
