#!/usr/bin/env bash
# Builds the server and the benchmarks in release mode and runs them: the
# HTTP benchmark (extra arguments go to copydesk-bench, see --help), then
# search over an archive of SEARCH_STORIES stories (default 1,000,000; 0
# skips it; it needs about 16 GiB of disk in the temporary directory, and
# some twenty minutes to make them). With SEARCH_ARCHIVE=DIR the stories
# made are kept in DIR and searched again by later runs.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/sqlite-flags.sh
cargo build --release -p copydesk-server -p copydesk-tests --bin copydesk-server --bin copydesk-bench --bin copydesk-search-bench
target/release/copydesk-bench "$@"
if [ "${SEARCH_STORIES:-1000000}" != 0 ]; then
  target/release/copydesk-search-bench --stories "${SEARCH_STORIES:-1000000}" \
    ${SEARCH_ARCHIVE:+--archive "$SEARCH_ARCHIVE"}
fi
