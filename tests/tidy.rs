//! Tidy checks on the source tree: every Rust file says why it exists, no
//! crate's modules import each other in a cycle (nor, in core, call each
//! other's `impl Cms` methods in one), crates depend only downwards,
//! migrations stay numbered, the service crate and every file stay within
//! their sizes, access actions are spelled once, and the UI's screens call
//! operations rather than paths.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    files_ending(dir, &[".rs"], out);
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
fn migrations_are_numbered_in_order_and_alike_for_both_engines() {
    let names_in = |engine: &str| -> Vec<String> {
        let dir = root().join("crates/store/migrations").join(engine);
        let mut names: Vec<String> = std::fs::read_dir(&dir)
            .expect("the migrations folder")
            .flatten()
            .map(|e| e.file_name().to_string_lossy().into_owned())
            .collect();
        names.sort();
        names
    };
    let sqlite = names_in("sqlite");
    assert!(!sqlite.is_empty());
    for (index, name) in sqlite.iter().enumerate() {
        let expected = format!("{:04}_", index + 1);
        assert!(
            name.starts_with(&expected) && name.ends_with(".sql"),
            "{name} should start with {expected}"
        );
    }
    let listed = std::fs::read_to_string(root().join("crates/store/src/migrations.rs"))
        .expect("the store's migrations.rs");
    for engine in ["sqlite", "postgres"] {
        for name in &sqlite {
            let path = format!("migrations/{engine}/{name}");
            assert!(
                listed.contains(&path),
                "{path} is not listed in the store's migrations.rs"
            );
        }
    }
    assert_eq!(
        names_in("postgres"),
        sqlite,
        "PostgreSQL's migrations carry the same numbers and names as SQLite's"
    );
}

/// Which modules of a crate each module uses through `crate::` paths, at the
/// granularity of the crate's top-level modules (a folder module and its
/// children are one). The crate root is left out: it declares every module
/// and holds the service's handle, which every module may use.
type ModuleGraph = BTreeMap<String, BTreeSet<String>>;

fn module_graph(src: &Path) -> ModuleGraph {
    module_graph_of(src, Tests::Included)
}

/// Whether a graph reads the tests too (`tests.rs` files and what follows
/// a file's `#[cfg(test)]`).
#[derive(Clone, Copy, PartialEq)]
enum Tests {
    Included,
    LeftOut,
}

/// Each source file of a crate below its root, as its top-level module's
/// name (a folder module and its children are one) and its text, the crate
/// root (`lib.rs`, `main.rs`) left out, and the tests too when `tests` says.
fn module_texts(src: &Path, tests: Tests) -> Vec<(String, String)> {
    let mut files = Vec::new();
    rust_files(src, &mut files);
    let mut texts = Vec::new();
    for file in files {
        let relative = file.strip_prefix(src).expect("under src");
        let first = relative.components().next().expect("a path");
        let module = first
            .as_os_str()
            .to_string_lossy()
            .trim_end_matches(".rs")
            .to_owned();
        if module == "lib" || module == "main" {
            continue;
        }
        if tests == Tests::LeftOut && file.ends_with("tests.rs") {
            continue;
        }
        let text = std::fs::read_to_string(&file).expect("a source file");
        let text = match text.find("#[cfg(test)]") {
            Some(at) if tests == Tests::LeftOut => text[..at].to_owned(),
            _ => text,
        };
        texts.push((module, text));
    }
    texts
}

fn module_graph_of(src: &Path, tests: Tests) -> ModuleGraph {
    let mut graph = ModuleGraph::new();
    for (module, text) in module_texts(src, tests) {
        let used = graph.entry(module.clone()).or_default();
        for line in text.lines() {
            // Comments and doc links name modules without importing them.
            if line.trim_start().starts_with("//") {
                continue;
            }
            for name in crate_paths(line) {
                if name != module {
                    used.insert(name);
                }
            }
        }
    }
    let known: BTreeSet<String> = graph.keys().cloned().collect();
    for used in graph.values_mut() {
        used.retain(|name| known.contains(name));
    }
    graph
}

/// The first segment of every `crate::` path on a line, `use crate::{a, b::c}` groups included.
fn crate_paths(line: &str) -> Vec<String> {
    let ident = |text: &str| -> String {
        text.chars()
            .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
            .collect()
    };
    let mut names = Vec::new();
    for (at, _) in line.match_indices("crate::") {
        let rest = &line[at + "crate::".len()..];
        if let Some(group) = rest.strip_prefix('{') {
            let mut depth = 0;
            let mut start = true;
            for (i, c) in group.char_indices() {
                match c {
                    '{' => depth += 1,
                    '}' if depth == 0 => break,
                    '}' => depth -= 1,
                    ',' if depth == 0 => start = true,
                    c if start && !c.is_whitespace() => {
                        names.push(ident(&group[i..]));
                        start = false;
                    }
                    _ => {}
                }
            }
        } else {
            names.push(ident(rest));
        }
    }
    names.retain(|name| !name.is_empty());
    names
}

/// A cycle in the graph, as the modules along it (the first repeated last), if there is one.
fn find_cycle(graph: &ModuleGraph) -> Option<Vec<String>> {
    #[derive(Clone, Copy, PartialEq)]
    enum Mark {
        Open,
        Done,
    }
    fn visit(
        node: &str,
        graph: &ModuleGraph,
        marks: &mut BTreeMap<String, Mark>,
        path: &mut Vec<String>,
    ) -> Option<Vec<String>> {
        match marks.get(node) {
            Some(Mark::Done) => return None,
            Some(Mark::Open) => {
                let start = path.iter().position(|n| n == node).expect("on the path");
                let mut cycle = path[start..].to_vec();
                cycle.push(node.to_owned());
                return Some(cycle);
            }
            None => {}
        }
        marks.insert(node.to_owned(), Mark::Open);
        path.push(node.to_owned());
        for next in graph.get(node).into_iter().flatten() {
            if let Some(cycle) = visit(next, graph, marks, path) {
                return Some(cycle);
            }
        }
        path.pop();
        marks.insert(node.to_owned(), Mark::Done);
        None
    }
    let mut marks = BTreeMap::new();
    for node in graph.keys() {
        if let Some(cycle) = visit(node, graph, &mut marks, &mut Vec::new()) {
            return Some(cycle);
        }
    }
    None
}

#[test]
fn no_crate_imports_its_own_modules_in_a_cycle() {
    let mut crates: Vec<PathBuf> = std::fs::read_dir(root().join("crates"))
        .expect("crates/")
        .flatten()
        .map(|entry| entry.path().join("src"))
        .collect();
    crates.push(root().join("src-tauri/src"));
    let core = module_graph(&root().join("crates/core/src"));
    assert!(core.len() > 25, "the walk found core's modules: {core:?}");
    assert!(core["content"].contains("records"), "{:?}", core["content"]);
    for src in crates {
        let graph = module_graph(&src);
        if let Some(cycle) = find_cycle(&graph) {
            panic!(
                "{} imports its modules in a cycle: {}",
                src.display(),
                cycle.join(" -> ")
            );
        }
    }
}

#[test]
fn an_added_cycle_is_found() {
    let mut core = module_graph(&root().join("crates/core/src"));
    assert_eq!(find_cycle(&core), None);
    // `records` is below `content`; make it use `content` back.
    core.get_mut("records")
        .expect("records")
        .insert("content".to_owned());
    let cycle = find_cycle(&core).expect("the added cycle is found");
    assert!(cycle.contains(&"records".to_owned()) && cycle.contains(&"content".to_owned()));
    assert_eq!(cycle.first(), cycle.last());
}

/// The calls between the modules of a crate through `impl Cms` methods
/// (`self.method(…)`, `cms.method(…)`), which no import shows: an edge from
/// the module that calls to the module whose `impl Cms` block defines the
/// method. The crate root (the facade: `read`, `write`, `srn`) is left out
/// as in [`module_graph`]; so are tests, which may call any use case.
fn cms_call_graph(src: &Path) -> ModuleGraph {
    let texts = module_texts(src, Tests::LeftOut);
    let mut owner: BTreeMap<String, String> = BTreeMap::new();
    for (module, text) in &texts {
        let mut inside = false;
        for line in text.lines() {
            if line.starts_with("impl Cms {") {
                inside = true;
            } else if line.starts_with('}') {
                inside = false;
            } else if inside && let Some(name) = method_defined(line) {
                owner.insert(name, module.clone());
            }
        }
    }
    let mut graph = ModuleGraph::new();
    for (module, text) in &texts {
        let called = graph.entry(module.clone()).or_default();
        for line in text.lines() {
            if line.trim_start().starts_with("//") {
                continue;
            }
            for name in cms_calls(line) {
                if let Some(defined_in) = owner.get(&name)
                    && defined_in != module
                {
                    called.insert(defined_in.clone());
                }
            }
        }
    }
    graph
}

/// The method a line of an `impl Cms` block defines, if it opens one (at
/// the block's own indentation).
fn method_defined(line: &str) -> Option<String> {
    let rest = line.strip_prefix("    ")?;
    let rest = rest
        .strip_prefix("pub(crate) ")
        .or_else(|| rest.strip_prefix("pub "))
        .unwrap_or(rest);
    let name: String = rest
        .strip_prefix("fn ")?
        .chars()
        .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
        .collect();
    (!name.is_empty()).then_some(name)
}

/// The methods a line calls on the service (`self.x(`, `cms.x(`, `self.cms.x(`).
fn cms_calls(line: &str) -> Vec<String> {
    let mut names = Vec::new();
    for receiver in ["self.", "cms."] {
        for (at, _) in line.match_indices(receiver) {
            let before = line[..at].chars().next_back();
            if before.is_some_and(|c| c.is_ascii_alphanumeric() || c == '_') {
                continue;
            }
            let rest = &line[at + receiver.len()..];
            let name: String = rest
                .chars()
                .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
                .collect();
            if !name.is_empty() && rest[name.len()..].starts_with('(') {
                names.push(name);
            }
        }
    }
    names
}

/// The import graph and the `impl Cms` call graph of a crate, as one,
/// tests left out (a test may set up with any use case).
fn uses_and_calls(src: &Path) -> ModuleGraph {
    let mut graph = module_graph_of(src, Tests::LeftOut);
    for (module, called) in cms_call_graph(src) {
        graph.entry(module).or_default().extend(called);
    }
    graph
}

#[test]
fn no_use_case_calls_another_in_a_cycle() {
    let core = root().join("crates/core/src");
    let calls = cms_call_graph(&core);
    assert!(
        calls["versions"].contains("content_embeds"),
        "the walk found the calls between impl Cms blocks: {calls:?}"
    );
    if let Some(cycle) = find_cycle(&uses_and_calls(&core)) {
        panic!(
            "core's modules use or call each other in a cycle: {}",
            cycle.join(" -> ")
        );
    }
}

#[test]
fn a_call_back_between_impl_cms_blocks_is_found() {
    let folder = tempfile::tempdir().expect("a folder");
    let dir = folder.path();
    std::fs::write(
        dir.join("stories.rs"),
        "//! x\nimpl Cms {\n    pub fn publish(&self) {\n        self.lock_story();\n    }\n}\n",
    )
    .expect("written");
    std::fs::write(
        dir.join("locks.rs"),
        "//! x\nimpl Cms {\n    pub(crate) fn lock_story(&self) {\n        let _ = cms.publish();\n    }\n}\n",
    )
    .expect("written");
    let graph = uses_and_calls(dir);
    assert_eq!(graph["stories"], BTreeSet::from(["locks".to_owned()]));
    let cycle = find_cycle(&graph).expect("the call back is found");
    assert!(cycle.contains(&"stories".to_owned()) && cycle.contains(&"locks".to_owned()));
}

#[test]
fn crate_paths_reads_groups_and_single_paths() {
    assert_eq!(
        crate_paths("use crate::{clock, error::{CoreError, Result}, records::Table};"),
        ["clock", "error", "records"]
    );
    assert_eq!(
        crate_paths("let x = crate::content::replace_links(tx); crate::slug::Slug::new()"),
        ["content", "slug"]
    );
}

/// The floor each crate of the workspace stands on: a crate may depend on
/// crates on lower floors only (the text and the wire types at the bottom,
/// the store on them, the service above it, HTTP and sync above that, the
/// programs on top).
const FLOORS: [(&str, u8); 10] = [
    ("copydesk-text", 0),
    ("copydesk-search-rank", 0),
    ("copydesk-wire", 0),
    ("copydesk-store", 1),
    ("copydesk-core", 2),
    ("copydesk-api", 3),
    ("copydesk-sync", 3),
    ("copydesk-server", 4),
    ("copydesk", 4),
    ("copydesk-tests", 4),
];

/// Each workspace crate's `copydesk-*` dependencies, from its Cargo.toml.
fn crate_dependencies() -> BTreeMap<String, BTreeSet<String>> {
    let mut manifests: Vec<PathBuf> = std::fs::read_dir(root().join("crates"))
        .expect("crates/")
        .flatten()
        .map(|entry| entry.path().join("Cargo.toml"))
        .collect();
    manifests.push(root().join("src-tauri/Cargo.toml"));
    manifests.push(root().join("tests/Cargo.toml"));
    manifests
        .iter()
        .map(|manifest| {
            let text = std::fs::read_to_string(manifest).expect("a manifest");
            let name = text
                .lines()
                .find_map(|line| line.strip_prefix("name = \""))
                .and_then(|rest| rest.strip_suffix('"'))
                .expect("the package's name")
                .to_owned();
            let dependencies = text
                .lines()
                .filter(|line| line.starts_with("copydesk-"))
                .filter_map(|line| line.split(['.', ' ', '=']).next())
                .map(str::to_owned)
                .collect();
            (name, dependencies)
        })
        .collect()
}

/// The dependencies that do not point to a lower floor, as `from -> to`.
fn upward_arrows(dependencies: &BTreeMap<String, BTreeSet<String>>) -> Vec<String> {
    let floor = |name: &str| {
        FLOORS
            .iter()
            .find(|(known, _)| *known == name)
            .map(|(_, floor)| *floor)
            .unwrap_or_else(|| panic!("{name} has no floor in FLOORS"))
    };
    dependencies
        .iter()
        .flat_map(|(from, tos)| tos.iter().map(move |to| (from, to)))
        .filter(|(from, to)| floor(to) >= floor(from))
        .map(|(from, to)| format!("{from} -> {to}"))
        .collect()
}

#[test]
fn crates_depend_only_on_lower_floors() {
    let dependencies = crate_dependencies();
    assert!(
        dependencies["copydesk-core"].contains("copydesk-text")
            && dependencies["copydesk-core"].contains("copydesk-store"),
        "the manifests were read: {dependencies:?}"
    );
    assert_eq!(upward_arrows(&dependencies), Vec::<String>::new());
    // An arrow back up (the text code reaching for the service) is caught.
    let mut upward = dependencies;
    upward
        .get_mut("copydesk-text")
        .expect("copydesk-text")
        .insert("copydesk-core".to_owned());
    assert_eq!(upward_arrows(&upward), ["copydesk-text -> copydesk-core"]);
}

/// The most lines the service crate may hold (its tests included, as
/// `find crates/core -name '*.rs' | xargs wc -l` counts them): what is not a
/// rule or a use case (an upload's files, the engines) belongs to the store.
const CORE_MAX_LINES: usize = 14_000;

/// The most lines of code one source file may hold, its tests left out.
const FILE_MAX_LINES: usize = 1_000;

/// The lines of a source file that are not its tests: none for a
/// `tests.rs` or a file in a `tests/` folder, else those before its
/// `#[cfg(test)]` line.
fn code_lines(relative: &Path, text: &str) -> usize {
    let is_test_file = relative.file_name().is_some_and(|name| name == "tests.rs")
        || relative
            .components()
            .any(|part| part.as_os_str() == "tests");
    if is_test_file {
        return 0;
    }
    text.lines()
        .take_while(|line| !line.trim_start().starts_with("#[cfg(test)]"))
        .count()
}

#[test]
fn core_stays_small_and_no_file_grows_past_a_thousand_lines() {
    let mut core = Vec::new();
    rust_files(&root().join("crates/core"), &mut core);
    assert!(core.len() > 25, "the walk found core's files: {core:?}");
    let total: usize = core
        .iter()
        .map(|path| {
            let text = std::fs::read_to_string(path).expect("a source file");
            text.lines().count()
        })
        .sum();
    assert!(
        total < CORE_MAX_LINES,
        "crates/core holds {total} lines of Rust, more than {CORE_MAX_LINES}: move what is \
         not a rule or a use case (stored data, files) down to the store"
    );

    let mut sources: Vec<PathBuf> = std::fs::read_dir(root().join("crates"))
        .expect("crates/")
        .flatten()
        .map(|entry| entry.path().join("src"))
        .collect();
    sources.push(root().join("src-tauri/src"));
    let mut too_long = Vec::new();
    for src in &sources {
        let mut files = Vec::new();
        rust_files(src, &mut files);
        for file in files {
            let relative = file.strip_prefix(src).expect("under src");
            let text = std::fs::read_to_string(&file).expect("a source file");
            let lines = code_lines(relative, &text);
            if lines > FILE_MAX_LINES {
                let shown = file.strip_prefix(root()).unwrap_or(&file).display();
                too_long.push(format!("{shown} ({lines} lines)"));
            }
        }
    }
    assert!(
        too_long.is_empty(),
        "these files hold more than {FILE_MAX_LINES} lines besides their tests; split them \
         by what they are about: {too_long:?}"
    );

    // The tests of a file are left out, and a test file is not counted.
    let long = "//! x\n".repeat(FILE_MAX_LINES + 1);
    assert_eq!(code_lines(Path::new("a.rs"), &long), FILE_MAX_LINES + 1);
    let with_tests = format!("//! x\nfn a() {{}}\n#[cfg(test)]\n{long}");
    assert_eq!(code_lines(Path::new("a.rs"), &with_tests), 2);
    assert_eq!(code_lines(Path::new("merge/tests.rs"), &long), 0);
    assert_eq!(code_lines(Path::new("merge/tests/edits.rs"), &long), 0);
}

/// Every file under `dir` whose name ends in one of `endings`.
fn files_ending(dir: &Path, endings: &[&str], out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        let name = path.to_string_lossy().into_owned();
        if path.is_dir() {
            if !path.ends_with("target") && !path.ends_with("node_modules") {
                files_ending(&path, endings, out);
            }
        } else if endings.iter().any(|ending| name.ends_with(ending)) {
            out.push(path);
        }
    }
}

/// Whether `text` writes an access action as a string: `"CONTENT get"`.
fn names_an_action_as_text(text: &str) -> bool {
    text.split('"').skip(1).step_by(2).any(|quoted| {
        let mut words = quoted.split(' ');
        match (words.next(), words.next(), words.next()) {
            (Some(resource), Some(verb), None) => {
                !resource.is_empty()
                    && resource.chars().all(|c| c.is_ascii_uppercase())
                    && ["get", "create", "update", "delete", "list"].contains(&verb)
            }
            _ => false,
        }
    })
}

#[test]
fn access_actions_are_written_as_text_in_one_file_and_screens_call_operations() {
    // The one closed list of access actions is the wire crate's enum; every
    // other Rust file names `Action::ContentGet`.
    let mut sources = Vec::new();
    for entry in std::fs::read_dir(root().join("crates"))
        .expect("crates/")
        .flatten()
    {
        rust_files(&entry.path().join("src"), &mut sources);
    }
    let spelled: Vec<String> = sources
        .iter()
        .filter(|path| names_an_action_as_text(&std::fs::read_to_string(path).unwrap_or_default()))
        .map(|path| {
            path.strip_prefix(root())
                .unwrap_or(path)
                .display()
                .to_string()
        })
        .collect();
    assert_eq!(
        spelled,
        ["crates/wire/src/action.rs"],
        "access actions written as strings outside the Action enum"
    );
    // The UI's screens call the named operations of ui/src/operations.ts,
    // never a path of the service.
    let mut screens = Vec::new();
    files_ending(
        &root().join("ui/src/screens"),
        &[".ts", ".tsx"],
        &mut screens,
    );
    assert!(screens.len() > 5, "the walk found the screens: {screens:?}");
    let with_paths: Vec<String> = screens
        .iter()
        .filter(|path| {
            std::fs::read_to_string(path)
                .unwrap_or_default()
                .contains("/v3/")
        })
        .map(|path| path.display().to_string())
        .collect();
    assert!(
        with_paths.is_empty(),
        "these screens name a /v3/ path instead of calling ui/src/operations.ts: {with_paths:?}"
    );
    // The check sees what it must.
    assert!(names_an_action_as_text(r#"may("CONTENT get")"#));
    assert!(names_an_action_as_text(r#"["x", "PRINTDOCUMENT list"]"#));
    assert!(!names_an_action_as_text(
        r#""Content get", "CONTENT", "GET /v3""#
    ));
}
