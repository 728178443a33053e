//! `sync`: one round with a central server, or rounds until stopped (`--watch`), with their progress shown.

use std::sync::Arc;

use anyhow::{Context as _, Result};
use copydesk_api::stop::StopRequests;
use copydesk_core::Cms;

use crate::cli::SyncArgs;
use crate::serving::{REPLICAS_ON_SQLITE, STOP_GRACE, finish_cleanly};

pub(crate) fn sync(args: SyncArgs) -> Result<()> {
    anyhow::ensure!(args.data.database.is_none(), REPLICAS_ON_SQLITE);
    let (cms, _) = args.data.open()?;
    let key = match &args.key_file {
        Some(file) => copydesk_sync::RemoteKey::from_file(file)?,
        None => copydesk_sync::RemoteKey::from_env()?,
    };
    let remote = Arc::new(copydesk_sync::Remote::new(&args.remote, key)?);
    cms.set_remote(remote.base())?;
    let cms = Arc::new(cms);
    let store = Arc::clone(&cms);
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .context("starting the async runtime")?;
    let synced = runtime.block_on(async move {
        // Watching, a stop asked for during a round ends the loop once that
        // round is done, and a second stop ends it at once (a round may
        // wait long on a central server that does not answer); a single
        // round stops as any command does.
        let mut stop = args.watch.then(StopRequests::catch);
        // Watching, a change on the central server starts a round at once.
        let listener = args
            .watch
            .then(|| copydesk_sync::Listener::start(&cms, Arc::clone(&remote)));
        loop {
            let bar = SyncBar::new();
            let round = copydesk_sync::sync_with_progress(&cms, &remote, &bar);
            let (result, stopping) = match &mut stop {
                Some(stop) => {
                    tokio::pin!(round);
                    tokio::select! {
                        result = &mut round => (result, false),
                        () = stop.requested() => {
                            tracing::info!("stopping once this sync round is done; stop again to stop now");
                            tokio::select! {
                                result = &mut round => (result, true),
                                () = stop.requested() => {
                                    bar.finish();
                                    tracing::info!("stopping without finishing the sync round");
                                    return Ok(());
                                }
                            }
                        }
                    }
                }
                None => (round.await, false),
            };
            bar.finish();
            match result {
                Ok(summary) => println!(
                    "synced with {}: pushed {}, pulled {}, conflicts {}, needs attention {}{}{}",
                    remote.base(),
                    summary.pushed,
                    summary.pulled,
                    summary.conflicts,
                    summary.needs_attention,
                    if summary.waiting > 0 {
                        format!(", {} waiting to retry", summary.waiting)
                    } else {
                        String::new()
                    },
                    not_synced(&cms).await
                ),
                Err(err) if args.watch && err.is_transient() => {
                    tracing::warn!(%err, "sync round failed; trying again")
                }
                Err(err) => {
                    let hint = match err.code() {
                        Some(
                            copydesk_sync::ErrorCode::TokenInvalid
                            | copydesk_sync::ErrorCode::TokenExpired
                            | copydesk_sync::ErrorCode::TokenMissing,
                        ) => " (the central server refuses this key)",
                        _ => "",
                    };
                    anyhow::bail!("sync with {} failed: {err}{hint}", remote.base());
                }
            }
            let Some(stop) = stop.as_mut().filter(|_| !stopping) else {
                return Ok(());
            };
            let heard = async {
                match &listener {
                    Some(listener) => listener.changed().await,
                    None => std::future::pending().await,
                }
            };
            tokio::select! {
                () = tokio::time::sleep(std::time::Duration::from_secs(args.every.max(1))) => {}
                () = heard => {}
                () = stop.requested() => return Ok(()),
            }
        }
    });
    runtime.shutdown_timeout(STOP_GRACE);
    finish_cleanly(&store);
    synced
}

/// What the replica does not receive because its key may not read it, to
/// end the summary line: `; not readable with this key: print documents
/// (3, needs PRINTDOCUMENT create)`; empty when it receives everything.
pub(crate) async fn not_synced(cms: &Arc<Cms>) -> String {
    let cms = Arc::clone(cms);
    let state = tokio::task::spawn_blocking(move || cms.sync_state()).await;
    let Ok(Ok(state)) = state else {
        return String::new();
    };
    let each: Vec<String> = state
        .not_readable
        .iter()
        .map(|n| {
            let count = n.count.map(|c| format!("{c}, ")).unwrap_or_default();
            format!("{} ({count}needs {})", n.record_type.plural(), n.action)
        })
        .collect();
    if each.is_empty() {
        String::new()
    } else {
        format!("; not readable with this key: {}", each.join(", "))
    }
}

/// A progress line for long syncs (drawn only on a terminal), with counts.
pub(crate) struct SyncBar {
    bar: indicatif::ProgressBar,
    counts: std::sync::Mutex<(usize, usize)>,
}

impl SyncBar {
    fn new() -> Self {
        let bar = indicatif::ProgressBar::new_spinner();
        bar.set_style(
            indicatif::ProgressStyle::with_template("{spinner} syncing: {msg} [{elapsed}]")
                .unwrap_or_else(|_| indicatif::ProgressStyle::default_spinner()),
        );
        bar.enable_steady_tick(std::time::Duration::from_millis(120));
        Self {
            bar,
            counts: std::sync::Mutex::new((0, 0)),
        }
    }

    fn show(&self, update: impl FnOnce(&mut (usize, usize))) {
        if let Ok(mut counts) = self.counts.lock() {
            update(&mut counts);
            self.bar
                .set_message(format!("{} pulled, {} pushed", counts.0, counts.1));
        }
    }

    fn finish(&self) {
        self.bar.finish_and_clear();
    }
}

impl copydesk_sync::Progress for SyncBar {
    fn pulled(&self, so_far: usize) {
        self.show(|counts| counts.0 = so_far);
    }

    fn pushed(&self, so_far: usize) {
        self.show(|counts| counts.1 = so_far);
    }
}
