//! Tidy checks on the source tree: every Rust file says why it exists, and migrations stay numbered.

use std::path::{Path, PathBuf};

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        if path.is_dir() {
            if !path.ends_with("target") && !path.ends_with("node_modules") {
                rust_files(&path, out);
            }
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("the workspace root")
        .to_owned()
}

#[test]
fn every_rust_file_opens_with_a_module_doc() {
    let mut files = Vec::new();
    for dir in ["crates", "tests", "src-tauri"] {
        rust_files(&root().join(dir), &mut files);
    }
    assert!(
        files.len() > 20,
        "the walk found the sources: {}",
        files.len()
    );
    let missing: Vec<String> = files
        .iter()
        .filter(|path| {
            let text = std::fs::read_to_string(path).unwrap_or_default();
            !text.trim_start().starts_with("//!")
        })
        .map(|path| path.display().to_string())
        .collect();
    assert!(
        missing.is_empty(),
        "these files lack a //! line saying why they exist: {missing:?}"
    );
}

#[test]
fn migrations_are_numbered_in_order() {
    let dir = root().join("crates/core/migrations");
    let mut names: Vec<String> = std::fs::read_dir(&dir)
        .expect("the migrations folder")
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    assert!(!names.is_empty());
    for (index, name) in names.iter().enumerate() {
        let expected = format!("{:04}_", index + 1);
        assert!(
            name.starts_with(&expected) && name.ends_with(".sql"),
            "{name} should start with {expected}"
        );
    }
    let store = std::fs::read_to_string(root().join("crates/core/src/store.rs")).expect("store.rs");
    for name in &names {
        assert!(
            store.contains(name.as_str()),
            "{name} is not listed in store.rs"
        );
    }
}
