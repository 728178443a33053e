#!/usr/bin/env bash
# The desktop app's benchmark: a replica with 10,000 stories, then cold
# starts of the release app to a usable content list, its memory when idle
# against the floor of an empty Tauri 2 window (bench/empty-window, launched
# and measured the same way), and the .deb's size (built by
# scripts/package-deb.sh, if it was).
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/sqlite-flags.sh

bash scripts/setup.sh desktop
if [ ! -x target/tools/bin/tauri-driver ]; then
  cargo install tauri-driver --locked --root target/tools --quiet
fi
(cd ui && npm run build)
cargo build --release -p copydesk -p copydesk-server
# The empty window is a workspace of its own (never built by --workspace).
# Built into the same target/ with the same versions and profile, it reuses
# most of what the app's build compiled (a first build still compiles some
# 40 crates, tokio, wry and tauri among them, whose features differ here);
# later runs build nothing.
cargo build --release --manifest-path bench/empty-window/Cargo.toml --target-dir target

data=$(mktemp -d)
trap 'rm -rf "$data"' EXIT
(cd ui && node desktop/bench.mjs --data "$data" --items "${ITEMS:-10000}" --runs "${RUNS:-5}")
