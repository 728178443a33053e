#!/usr/bin/env bash
# Sets up and runs every check and test: formatting, clippy, the UI's types
# against the OpenAPI document, its type check and unit tests, Rust unit
# tests, and the end-to-end suites against the real server binary (HTTP,
# two-server sync; both again with the central server on PostgreSQL; the UI
# in a real browser) and the desktop app in its real window.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/sqlite-flags.sh

bash scripts/setup.sh desktop

echo "== the UI: its types against docs/openapi.json, type check, unit tests (Vitest), build"
(cd ui && npm run schema:check && npm run typecheck && npm test && npm run build)

echo "== cargo fmt --check"
cargo fmt --all -- --check

echo "== cargo clippy"
cargo clippy --workspace --all-targets -- -D warnings

echo "== build the server the end-to-end tests run"
cargo build -p copydesk-server

echo "== cargo test"
cargo test --workspace

bash scripts/test-postgres.sh

echo "== the UI in Debian's chromium against the real server (playwright-core)"
(cd ui && npm run e2e)

echo "== the desktop app in its real window under Xvfb (tauri-driver)"
bash scripts/desktop-test.sh

echo "== schemathesis against the real server"
bash scripts/schemathesis.sh
