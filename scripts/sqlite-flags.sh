# The bundled SQLite's build flag, sourced by every script that runs cargo
# (libsqlite3-sys reads it from LIBSQLITE3_FLAGS; the same flag in every
# script, so no build makes SQLite again for another).
#
# SQLITE_MAX_MMAP_SIZE: the bundled SQLite maps at most 2 GiB of a database
# file unless built with a larger cap, whatever `PRAGMA mmap_size` asks. The
# central server asks for the whole file (`ReadMemory::SERVER`), so that a
# search over an archive of a million stories (about 14 GB) reads its index
# pages from the shared map instead of a `pread` into each connection's
# cache; the cap is raised to that ask, 1 TiB. The desktop maps nothing.
#
# A plain `cargo build` without it still builds and works: the server maps
# 2 GiB (and says so in its log).
export LIBSQLITE3_FLAGS="-DSQLITE_MAX_MMAP_SIZE=1099511627776"
