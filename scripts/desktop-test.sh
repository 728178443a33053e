#!/usr/bin/env bash
# Builds the desktop app and runs its end-to-end tests: the real window under
# Xvfb, driven with tauri-driver and Debian's WebKitWebDriver. Screenshots of
# the main screens land in ui/desktop/artifacts/.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/sqlite-flags.sh

bash scripts/setup.sh desktop

# tauri-driver, the WebDriver bridge, built with cargo install into target/tools.
if [ ! -x target/tools/bin/tauri-driver ]; then
  echo "== installing tauri-driver"
  cargo install tauri-driver --locked --root target/tools --quiet
fi

echo "== build the UI and the desktop app"
(cd ui && npm run build)
cargo build -p copydesk -p copydesk-server

echo "== the desktop app under Xvfb"
(cd ui && npm run desktop)
