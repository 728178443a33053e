#!/usr/bin/env bash
# Runs schemathesis (from PyPI) against a real copydesk-server with the
# OpenAPI document it serves: a bounded number of generated requests per
# operation, failing on any 5xx, any status, content type, header or body that
# does not match the document, or a crash.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/sqlite-flags.sh

venv=target/schemathesis-venv
if [ ! -x "$venv/bin/st" ]; then
  python3 -m venv "$venv"
  "$venv/bin/pip" install --quiet --disable-pip-version-check "schemathesis==4.32.5"
fi

cargo build -p copydesk-server
server=target/debug/copydesk-server
data=$(mktemp -d)
port_file="$data/server.log"
trap 'kill "$pid" 2>/dev/null || true; rm -rf "$data"' EXIT

"$server" key create --data "$data" --name schemathesis --role admin --json > "$data/key.json"
"$server" serve --data "$data" --listen 127.0.0.1:0 2> "$port_file" &
pid=$!
for _ in $(seq 1 100); do
  address=$(grep -o 'listening on http://[0-9.:]*' "$port_file" | head -n 1 | sed 's/listening on //') || true
  [ -n "${address:-}" ] && break
  sleep 0.1
done
if [ -z "${address:-}" ]; then
  echo "schemathesis: the server did not start" >&2
  cat "$port_file" >&2
  exit 1
fi
token=$("$server" token --key-file "$data/key.json" --lifetime 7200)

# POST /v3/sign-out revokes the key the run signs with, and every later
# request would be refused: it is left to the API suite (tests/api/sign_in.rs).
# GET /v3/changes/stream answers with a stream that stays open by design
# (a client reads it as events come): tests/api/changes_stream.rs tests it.
"$venv/bin/st" run "$address/v3/openapi.json" \
  --header "Authorization: Bearer $token" \
  --exclude-path /v3/sign-out \
  --exclude-path /v3/changes/stream \
  --checks not_a_server_error,status_code_conformance,content_type_conformance,response_headers_conformance,response_schema_conformance \
  --max-examples "${SCHEMATHESIS_EXAMPLES:-25}" \
  --seed "${SCHEMATHESIS_SEED:-20261122}" \
  --no-color
