#!/usr/bin/env bash
# Sets up, builds and starts the Copydesk desktop app on its local replica in
# the platform's data directory (~/.local/share/org.copydesk.desktop on
# Linux). Where there is no display, it starts the same service headless on
# http://127.0.0.1:8080/ instead and says how to use the UI in a browser.
# Extra arguments go to `copydesk-server serve` in that case.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/sqlite-flags.sh

if [ -n "${DISPLAY:-}${WAYLAND_DISPLAY:-}" ]; then
  bash scripts/setup.sh desktop
  (cd ui && npm run build)
  cargo build --release -p copydesk
  exec target/release/copydesk
fi

bash scripts/setup.sh
(cd ui && npm run build)
cargo build --release -p copydesk-server
server=target/release/copydesk-server
data="${COPYDESK_DATA:-$HOME/.local/share/copydesk}"
mkdir -p "$data"
key="$data/browser-key.json"
if [ ! -s "$key" ]; then
  (umask 077 && "$server" key create --data "$data" --name "${USER:-me}" --role admin --json > "$key")
fi

cat <<HOW
There is no display here, so Copydesk starts as a server. Open

  http://127.0.0.1:8080/

in a browser on this machine and sign in with the key in $key
(paste the whole JSON). Everything the desktop app does is there.

To call the API yourself:
  TOKEN=\$($server token --key-file $key)
  curl -s -H "Authorization: Bearer \$TOKEN" http://127.0.0.1:8080/v3/content

Stop the server with Ctrl-C.

HOW
exec "$server" serve --data "$data" "$@"
