#!/usr/bin/env bash
# The end-to-end API and sync suites again with the central server on
# PostgreSQL: each central server gets a fresh database on a PostgreSQL 15
# cluster the suite starts itself (Debian's binaries, a temporary
# directory); replicas stay on SQLite, as the desktop app does.
#
# Left out, and why: these tests read or break the SQLite file itself
# (copydesk.db, its WAL, VACUUM INTO backups, quick_check); on PostgreSQL
# the database is not a file of the data directory, and its backups and
# checks are PostgreSQL's own (see docs/RUNNING.md, deploying on PostgreSQL).
# Also left out: the tests of connections alone (request heads, the cap on
# open connections), which never reach the database: one run proves them.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/sqlite-flags.sh

sqlite_file_tests=(
  access::data_is_private
  connections::
  durability::check_removes_folders_of_cut_off_uploads_an_hour_old
  content::kept_answers_are_rendered_again_by_a_command
  durability::reads_do_not_wait_for_a_waiting_write
  durability::sigkill_mid_stream_keeps_every_acknowledged_write
  hardening::a_backup_of_a_busy_server_holds_every_acknowledged_write
  hardening::a_clean_stop_leaves_every_story_in_the_database_file_alone
  hardening::a_damaged_database_is_refused_at_start_and_check_reports_it
  hardening::a_database_checked_beside_serving_answers_reads_and_takes_no_write_once_found_damaged
)
skips=()
for test in "${sqlite_file_tests[@]}"; do
  skips+=(--skip "$test")
done
echo "== the API suite on PostgreSQL (leaving out the tests of the SQLite file and of connections alone, named in this script)"
COPYDESK_TEST_DATABASE=postgres cargo test -p copydesk-tests --test api -- "${skips[@]}"
echo "== the sync suite with its central servers on PostgreSQL"
COPYDESK_TEST_DATABASE=postgres cargo test -p copydesk-tests --test sync
