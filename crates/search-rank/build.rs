//! Tells the crate whether the bundled SQLite has its snapshot interface:
//! `libsqlite3-sys` builds SQLite with the flags in `LIBSQLITE3_FLAGS`, so
//! the same variable says whether `SQLITE_ENABLE_SNAPSHOT` is among them
//! (the project's scripts set it: `scripts/sqlite-flags.sh`).

fn main() {
    println!("cargo::rerun-if-env-changed=LIBSQLITE3_FLAGS");
    println!("cargo::rustc-check-cfg=cfg(sqlite_snapshot)");
    let snapshots = std::env::var("LIBSQLITE3_FLAGS").is_ok_and(|flags| {
        flags
            .split_whitespace()
            .any(|flag| flag.trim_start_matches("-D") == "SQLITE_ENABLE_SNAPSHOT")
    });
    if snapshots {
        println!("cargo::rustc-cfg=sqlite_snapshot");
    }
}
