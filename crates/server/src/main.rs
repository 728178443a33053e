//! `copydesk-server`: Copydesk's backend run headless, with the command line of the contract.

mod cli;
mod keys;
mod maintenance;
mod open_files;
mod serving;
mod syncing;

use anyhow::Result;
use clap::Parser as _;

use cli::{Cli, Command};

/// mimalloc rather than glibc's allocator: a story merged in sync or a
/// save is hundreds of thousands of small allocations freed at once, and
/// glibc's consolidation of them cost as much as the merge itself (see
/// docs/BENCHMARKS.md, "Merging a story").
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() -> Result<()> {
    let cli = Cli::parse();
    tracing_subscriber::fmt()
        .with_env_filter(
            tracing_subscriber::EnvFilter::try_from_env("COPYDESK_LOG")
                .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("info")),
        )
        .with_writer(std::io::stderr)
        .with_ansi(std::io::IsTerminal::is_terminal(&std::io::stderr()))
        .init();
    match cli.command {
        Command::Serve(args) => serving::serve(args),
        Command::Check { data } => maintenance::check(&data),
        Command::Backup { data, to } => maintenance::backup(&data, &to),
        Command::Import { from, data } => maintenance::import(&from, &data),
        Command::ReindexSearch { data } => maintenance::reindex_search(&data),
        Command::RenderAnswers { data } => maintenance::render_answers(&data),
        Command::Sync(args) => syncing::sync(args),
        Command::User { command } => keys::user(command),
        Command::Key { command } => keys::key(command),
        Command::Token { key_file, lifetime } => keys::token(&key_file, lifetime),
    }
}
