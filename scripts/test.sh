#!/usr/bin/env bash
# Sets up and runs every check and test: formatting, clippy, unit tests and
# the end-to-end suites against the real server binary.
set -euo pipefail
cd "$(dirname "$0")/.."

bash scripts/setup.sh

echo "== cargo fmt --check"
cargo fmt --all -- --check

echo "== cargo clippy"
cargo clippy --workspace --all-targets -- -D warnings

echo "== build the server the end-to-end tests run"
cargo build -p copydesk-server

echo "== cargo test"
cargo test --workspace

echo "== schemathesis against the real server"
bash scripts/schemathesis.sh
