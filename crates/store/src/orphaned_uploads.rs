//! Folders of uploads that a kill cut off before their record was written: named by a salt no attachment names, removed at start and by `check`.
//!
//! An upload writes its files into a fresh salt folder before the
//! transaction that records them; a process killed in between leaves the
//! folder behind, which nothing would ever read or remove.

use std::collections::HashSet;
use std::path::Path;
use std::time::{Duration, SystemTime};

/// Removes the salt folders in `files_dir` that `known_salts` does not hold
/// and that were last changed at least `min_age` ago (an upload in flight
/// beside a `check` is younger); returns how many were removed.
pub fn remove(files_dir: &Path, known_salts: &HashSet<String>, min_age: Duration) -> usize {
    let Ok(entries) = std::fs::read_dir(files_dir) else {
        return 0;
    };
    let now = SystemTime::now();
    let mut removed = 0;
    for entry in entries.flatten() {
        let name = entry.file_name().to_string_lossy().into_owned();
        let is_salt = name.len() == 32 && name.chars().all(|c| c.is_ascii_hexdigit());
        if !is_salt || known_salts.contains(&name) {
            continue;
        }
        let old_enough = entry
            .metadata()
            .and_then(|meta| meta.modified())
            .is_ok_and(|changed| now.duration_since(changed).unwrap_or_default() >= min_age);
        if !old_enough {
            continue;
        }
        match std::fs::remove_dir_all(entry.path()) {
            Ok(()) => removed += 1,
            Err(err) => {
                tracing::warn!(salt = name, %err, "could not remove an orphaned upload folder")
            }
        }
    }
    removed
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_folders_no_record_names_are_removed() {
        let dir = tempfile::tempdir().expect("a directory");
        let salt = |n: u8| format!("{n:032x}");
        for n in 0..3 {
            std::fs::create_dir(dir.path().join(salt(n))).expect("a folder");
        }
        std::fs::create_dir(dir.path().join("not-a-salt")).expect("a folder");
        let known: HashSet<String> = [salt(1)].into_iter().collect();
        // Too young beside a check: kept.
        assert_eq!(remove(dir.path(), &known, Duration::from_secs(3600)), 0);
        assert_eq!(remove(dir.path(), &known, Duration::ZERO), 2);
        let left: HashSet<String> = std::fs::read_dir(dir.path())
            .expect("listed")
            .flatten()
            .map(|e| e.file_name().to_string_lossy().into_owned())
            .collect();
        assert_eq!(
            left,
            [salt(1), "not-a-salt".to_owned()].into_iter().collect()
        );
    }
}
