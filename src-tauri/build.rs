//! Tauri's build step: the app's configuration and capabilities, checked at compile time.

fn main() {
    tauri_build::build();
}
