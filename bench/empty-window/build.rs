//! Tauri's build step for the empty window: its configuration and capability, checked at compile time.

fn main() {
    tauri_build::build();
}
