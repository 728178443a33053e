#!/usr/bin/env bash
# The central server on SQLite, on PostgreSQL with one node, and on
# PostgreSQL with two nodes taking requests in turn, side by side in one
# run: create, GET one and list 50 over ITEMS stories (default 10,000), at
# 1 connection (latency) and 16 (throughput), as the side-by-side benchmark
# measures them; then FILES attachment files (default 200) of FILE_KIB KiB
# (default 1024) uploaded and read back, first from a node that did not
# take them, then again. PostgreSQL runs from Debian's packages in a temporary
# directory with fsync and synchronous commit on (scripts/setup.sh installs it).
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/sqlite-flags.sh
ITEMS=${ITEMS:-10000}
FILES=${FILES:-200}
FILE_KIB=${FILE_KIB:-1024}
cargo build --release -q -p copydesk-server -p copydesk-tests --bin copydesk-server --bin copydesk-bench
for clients in 1 16; do
  for setup in "sqlite --nodes 1" "postgres --nodes 1" "postgres --nodes 2"; do
    # shellcheck disable=SC2086
    target/release/copydesk-bench --items "$ITEMS" --reads $((ITEMS * 2)) --lists 2000 \
      --files "$FILES" --file-kib "$FILE_KIB" \
      --clients "$clients" --database $setup
  done
done
