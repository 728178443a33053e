#!/usr/bin/env bash
# Sets up, builds and starts copydesk-server on the platform's data directory
# (~/.local/share/copydesk on Linux), printing how to make a first request.
# Extra arguments go to `copydesk-server serve` (for example --listen 127.0.0.1:9090).
set -euo pipefail
cd "$(dirname "$0")/.."

bash scripts/setup.sh
cargo build --release -p copydesk-server
server=target/release/copydesk-server

cat <<HOW
Copydesk server starting. In another terminal, make a key and a first request:

  $server key create --name me --role admin --json > me.json
  TOKEN=\$($server token --key-file me.json)
  curl -s -H "Authorization: Bearer \$TOKEN" -H 'Content-Type: application/json' \\
       -d '{"title": "Hello newsroom", "type": "article"}' http://127.0.0.1:8080/v3/content
  curl -s -H "Authorization: Bearer \$TOKEN" http://127.0.0.1:8080/v3/content

(me.json holds the private key: keep it safe. With --listen, use that address.)
Stop the server with Ctrl-C.

HOW
exec "$server" serve "$@"
