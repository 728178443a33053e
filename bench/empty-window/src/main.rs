//! An empty Tauri 2 window on a blank page, and nothing else: the floor that
//! `scripts/desktop-bench.sh` measures Copydesk's idle memory against.

fn main() {
    if let Err(err) = tauri::Builder::default().run(tauri::generate_context!()) {
        eprintln!("copydesk-empty-window: {err}");
        std::process::exit(1);
    }
}
