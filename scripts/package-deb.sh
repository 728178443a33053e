#!/usr/bin/env bash
# Builds the desktop app's .deb (release build, UI bundled) with the Tauri
# CLI from npm. The package lands in target/release/bundle/deb/.
set -euo pipefail
cd "$(dirname "$0")/.."

bash scripts/setup.sh desktop
(cd ui && npm run build)
ui/node_modules/.bin/tauri build --bundles deb
ls -l target/release/bundle/deb/*.deb
