#!/usr/bin/env bash
# The UI's types come from the service's own OpenAPI document, never from
# hand: this writes ui/src/schema.ts from docs/openapi.json with
# openapi-typescript, or, with --check, fails when the committed file is not
# what the current document generates.
#
#   bash scripts/ui-schema.sh           regenerate ui/src/schema.ts (cd ui && npm run schema)
#   bash scripts/ui-schema.sh --check   compare only (cd ui && npm run schema:check)
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD

# openapi-typescript runs from its own workspace (ui/schema-generator), which
# holds the TypeScript 5 it prints with. An object schema without properties
# (the print side of an item, a search hit) stands for any object, not for an
# empty one: --empty-objects-unknown.
generate() {
  (cd ui && npm exec --workspace schema-generator -- \
    openapi-typescript "$root/docs/openapi.json" --empty-objects-unknown --output "$1")
}

case "${1:-}" in
  "")
    generate "$root/ui/src/schema.ts"
    ;;
  --check)
    fresh=$(mktemp -d)
    trap 'rm -rf "$fresh"' EXIT
    generate "$fresh/schema.ts" >/dev/null
    if ! cmp -s "$fresh/schema.ts" ui/src/schema.ts; then
      diff -u ui/src/schema.ts "$fresh/schema.ts" | head -40 >&2 || true
      echo "ui/src/schema.ts is not what docs/openapi.json generates." >&2
      echo "Run \`cd ui && npm run schema\` (or \`bash scripts/ui-schema.sh\`) and commit ui/src/schema.ts." >&2
      exit 1
    fi
    echo "ui/src/schema.ts is what docs/openapi.json generates."
    ;;
  *)
    echo "usage: bash scripts/ui-schema.sh [--check]" >&2
    exit 2
    ;;
esac
