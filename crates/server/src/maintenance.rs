//! The operator's commands on a store: `check`, `backup`, `import`, `reindex-search` and `render-answers`.

use anyhow::{Context as _, Result};
use copydesk_core::Cms;

use crate::cli::DataArgs;

/// How old a folder no attachment names must be before `check`, which may
/// run beside a serving server, removes it: an upload in flight is younger.
pub(crate) const ORPHANS_AGE_BESIDE_SERVING: std::time::Duration =
    std::time::Duration::from_secs(3600);

/// `check`: SQLite's full integrity check, printed for a person.
pub(crate) fn check(data: &DataArgs) -> Result<()> {
    if let Some(url) = &data.database {
        return check_postgres(url);
    }
    let dir = data.dir()?;
    let started = std::time::Instant::now();
    let problems = copydesk_core::store::full_check(&dir)?;
    let path = copydesk_core::store::database_path(&dir);
    if problems.is_empty() {
        println!(
            "{} is sound (integrity_check and foreign_key_check, {:.1} s)",
            path.display(),
            started.elapsed().as_secs_f64()
        );
        let removed =
            copydesk_core::store::remove_orphaned_uploads(&dir, ORPHANS_AGE_BESIDE_SERVING)?;
        println!(
            "folders of uploads cut off before they were recorded (an hour old or more) removed: {removed}"
        );
        return Ok(());
    }
    println!("{} is damaged: {} problems", path.display(), problems.len());
    for problem in problems.iter().take(50) {
        println!("  {problem}");
    }
    if problems.len() > 50 {
        println!("  ... and {} more", problems.len() - 50);
    }
    println!(
        "Restore the newest backup (made with `copydesk-server backup`) into {}, then start the server again.",
        dir.display()
    );
    std::process::exit(1);
}

/// `check --database`: every table, index and attachment file of a
/// PostgreSQL database read, printed for a person.
pub(crate) fn check_postgres(url: &str) -> Result<()> {
    let started = std::time::Instant::now();
    let report = copydesk_core::store::full_check_postgres(url)?;
    for note in &report.notes {
        println!("note: {note}");
    }
    if report.problems.is_empty() {
        println!(
            "the PostgreSQL database is sound (every table read, {:.1} s)",
            started.elapsed().as_secs_f64()
        );
        return Ok(());
    }
    println!(
        "the PostgreSQL database is damaged: {} problems",
        report.problems.len()
    );
    for problem in report.problems.iter().take(50) {
        println!("  {problem}");
    }
    println!(
        "Restore the newest base backup with its archived WAL (or promote the standby), then start the nodes again."
    );
    std::process::exit(1);
}

/// `backup`: a consistent copy of a live database.
pub(crate) fn backup(data: &DataArgs, to: &std::path::Path) -> Result<()> {
    anyhow::ensure!(
        data.database.is_none(),
        "on PostgreSQL, back up with PostgreSQL's own tools: pg_basebackup with WAL archiving \
         (docs/RUNNING.md, deploying on PostgreSQL), or pg_dump --format=custom for a single copy; \
         attachment files are in the database, so nothing else needs copying"
    );
    let dir = data.dir()?;
    let started = std::time::Instant::now();
    let bytes = copydesk_core::store::backup(&dir, to)
        .with_context(|| format!("backing up {} to {}", dir.display(), to.display()))?;
    println!(
        "backed up {} to {} ({bytes} bytes, {:.1} s, checked); copy {} beside it for the attachment files",
        copydesk_core::store::database_path(&dir).display(),
        to.display(),
        started.elapsed().as_secs_f64(),
        dir.join("files").display()
    );
    Ok(())
}

/// `import`: a SQLite central server moved into PostgreSQL.
pub(crate) fn import(from: &std::path::Path, data: &DataArgs) -> Result<()> {
    anyhow::ensure!(
        data.database.is_some(),
        "an import needs the PostgreSQL database to move into (--database or COPYDESK_DATABASE_URL)"
    );
    anyhow::ensure!(
        copydesk_core::store::database_path(from).exists(),
        "{} holds no copydesk.db",
        from.display()
    );
    let started = std::time::Instant::now();
    let source = Cms::open_with(
        from,
        &data.namespace,
        copydesk_core::store::ReadMemory::SERVER,
    )
    .with_context(|| format!("opening {}", from.display()))?;
    let (target, _) = data.open()?;
    let report =
        copydesk_core::store::import_sqlite(source.store(), target.store()).context("importing")?;
    let rows: u64 = report.rows.values().sum();
    println!(
        "imported {rows} rows from {} tables, {} attachment files and indexed {} stories for search in {:.1} s",
        report.rows.len(),
        report.files,
        report.indexed,
        started.elapsed().as_secs_f64()
    );
    for (table, count) in report.rows.iter().filter(|(_, count)| **count > 0) {
        println!("  {table}: {count}");
    }
    if !report.missing_files.is_empty() {
        println!(
            "{} attachments had no files in {} (they had none there before either): {}",
            report.missing_files.len(),
            from.join("files").display(),
            report.missing_files.join(", ")
        );
    }
    Ok(())
}

/// `reindex-search`: the search index made anew from the stories.
pub(crate) fn reindex_search(data: &DataArgs) -> Result<()> {
    let (cms, _) = data.open()?;
    let started = std::time::Instant::now();
    let indexed = cms.rebuild_search_index()?;
    println!(
        "indexed {indexed} stories for search in {:.1} s",
        started.elapsed().as_secs_f64()
    );
    Ok(())
}

/// `render-answers`: every story's kept answer rendered anew.
pub(crate) fn render_answers(data: &DataArgs) -> Result<()> {
    let (cms, _) = data.open()?;
    copydesk_api::keep_rendered_content(&cms);
    let started = std::time::Instant::now();
    let rendered = cms.render_kept_answers()?;
    println!(
        "rendered the answers of {rendered} stories in {:.1} s",
        started.elapsed().as_secs_f64()
    );
    Ok(())
}
