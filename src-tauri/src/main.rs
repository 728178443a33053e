//! Starts the Copydesk desktop app.

// No console window beside the app on Windows.
#![cfg_attr(not(debug_assertions), windows_subsystem = "windows")]

fn main() {
    #[cfg(target_os = "linux")]
    copydesk_desktop::draw_in_software();
    copydesk_desktop::run();
}
