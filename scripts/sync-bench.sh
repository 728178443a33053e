#!/usr/bin/env bash
# Builds the server and the sync benchmark in release mode and runs it; extra
# arguments go to copydesk-sync-bench (see --help).
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/sqlite-flags.sh
cargo build --release -p copydesk-server -p copydesk-tests --bin copydesk-server --bin copydesk-sync-bench
exec target/release/copydesk-sync-bench "$@"
