#!/usr/bin/env bash
# Builds the desktop app's .deb (release build, UI bundled) with the Tauri
# CLI (the npm package, which ships it prebuilt; fetched on first use). The
# package lands in target/release/bundle/deb/.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/sqlite-flags.sh

bash scripts/setup.sh desktop
(cd ui && npm run build)
# Build, strip the symbols the release profile keeps for server backtraces
# (200 MB of them), then bundle the stripped binary.
(cd src-tauri && npx --yes @tauri-apps/cli@2 build --no-bundle)
strip target/release/copydesk
(cd src-tauri && npx --yes @tauri-apps/cli@2 bundle --bundles deb)
ls -l target/release/bundle/deb/*.deb
