#!/usr/bin/env bash
# Sets up, builds and starts the Copydesk desktop app on its local replica in
# the platform's data directory (~/.local/share/org.copydesk.desktop on
# Linux). Where there is no display, it starts the same service headless on
# http://127.0.0.1:8080/ instead (COPYDESK_LISTEN, COPYDESK_DATA to change
# them) and prints a one-time link that signs its admin in, in a browser.
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

# COPYDESK_PREBUILT=1 (for the test of this first run) uses the server in
# COPYDESK_SERVER as it is, with no setup and no build.
if [ "${COPYDESK_PREBUILT:-}" != 1 ]; then
  bash scripts/setup.sh
  (cd ui && npm run build)
  cargo build --release -p copydesk-server
fi
server="${COPYDESK_SERVER:-target/release/copydesk-server}"
data="${COPYDESK_DATA:-$HOME/.local/share/copydesk}"
listen="${COPYDESK_LISTEN:-127.0.0.1:8080}"
name="${USER:-me}"
mkdir -p "$data"
key="$data/browser-key.json"
if [ ! -s "$key" ]; then
  (umask 077 && "$server" key create --data "$data" --name "$name" --role admin --json > "$key")
fi
link=$("$server" user link "$name" --data "$data" --base "http://$listen" 2>/dev/null) ||
  link="(no link could be made: run the command below)"

cat <<HOW
There is no display here, so Copydesk starts as a server. To sign in as
$name, open this link in a browser on this machine (it works once, within
15 minutes):

  $link

Everything the desktop app does is there. For another link later:
  $server user link "$name" --data "$data" --base http://$listen

To call the API yourself:
  TOKEN=\$($server token --key-file $key)
  curl -s -H "Authorization: Bearer \$TOKEN" http://$listen/v3/content

Stop the server with Ctrl-C.

HOW
COPYDESK_LISTEN="$listen" exec "$server" serve --data "$data" "$@"
