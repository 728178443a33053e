//! `serve`: the service on a listener until the system asks it to stop, then a clean stop.

use std::sync::Arc;

use anyhow::{Context as _, Result};
use copydesk_api::stop::StopRequests;
use copydesk_core::store::StartCheck;
use copydesk_core::{Cms, CoreError};

use crate::cli::ServeArgs;
use crate::open_files;

/// How long a stop waits for requests still running before it checkpoints anyway.
pub(crate) const STOP_GRACE: std::time::Duration = std::time::Duration::from_secs(10);

/// A replica keeps its own copy on SQLite, as the desktop app does: only a
/// central server runs on PostgreSQL.
pub(crate) const REPLICAS_ON_SQLITE: &str =
    "a replica (--remote) keeps its data in SQLite; --database is for a central server";

pub(crate) fn serve(args: ServeArgs) -> Result<()> {
    anyhow::ensure!(
        args.remote.is_none() || args.data.database.is_none(),
        REPLICAS_ON_SQLITE
    );
    // A replica writes its central server's address at once.
    let check = match &args.remote {
        Some(_) => StartCheck::Before,
        None => args.start_check.check(),
    };
    let (cms, dir) = args.data.open_checked(check)?;
    // Nothing is uploading yet: every folder no attachment names is left by a kill.
    match cms.remove_orphaned_uploads(std::time::Duration::ZERO) {
        Ok(0) => {}
        Ok(removed) => tracing::info!(
            removed,
            "removed the folders of uploads cut off before they were recorded"
        ),
        Err(err) => tracing::warn!(%err, "could not look for folders of cut-off uploads"),
    }
    cms.set_presence_expiry(std::time::Duration::from_secs(args.presence_expiry));
    let cms = Arc::new(cms);
    let store = Arc::clone(&cms);
    let remote = match &args.remote {
        Some(url) => {
            let key = match &args.key_file {
                Some(file) => copydesk_sync::RemoteKey::from_file(file)?,
                None => copydesk_sync::RemoteKey::from_env()?,
            };
            let remote = Arc::new(copydesk_sync::Remote::new(url, key)?);
            cms.set_remote(remote.base())?;
            Some(remote)
        }
        None => None,
    };
    let max_connections = {
        let fit = open_files::raise_and_fit();
        args.max_connections.unwrap_or(fit)
    };
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .context("starting the async runtime")?;
    runtime.block_on(async move {
        let listener = tokio::net::TcpListener::bind(args.listen)
            .await
            .with_context(|| format!("listening on {}", args.listen))?;
        let address = listener.local_addr()?;
        if let Some(remote) = remote {
            cms.forward_locks(Arc::new(copydesk_sync::ForwardedLocks::new(Arc::clone(
                &remote,
            ))));
            tokio::spawn(copydesk_sync::keep_synced(
                Arc::clone(&cms),
                remote,
                std::time::Duration::from_millis(args.sync_every_ms),
            ));
        }
        let app = copydesk_api::router(
            cms,
            copydesk_api::Options {
                body_limit: args.max_body,
                plain: args.plain,
                local_only: None,
                body_idle_timeout: std::time::Duration::from_secs(args.body_timeout.max(1)),
                trusted_proxies: args.trusted_proxies.clone(),
            },
        );
        // Caught before the server says it listens, so a stop asked for as
        // soon as it does is still a clean stop.
        let mut stop = StopRequests::catch();
        tracing::info!(data = %dir.display(), "copydesk-server listening on http://{address}");
        let (stopping, mut stop_seen) = tokio::sync::watch::channel(false);
        // The client's address reaches handlers (sign-in counts failures per address).
        let limits = copydesk_api::serve::ConnectionLimits {
            header_timeout: std::time::Duration::from_secs(args.header_timeout.max(1)),
            max_open: max_connections,
        };
        tracing::info!(
            "connections: at most {max_connections} open, a request head within {} s",
            limits.header_timeout.as_secs()
        );
        let serving = copydesk_api::serve::serve(listener, app, limits, async move {
            stop.requested().await;
            tracing::info!("stopping: finishing the requests in flight");
            let _ = stopping.send(true);
        });
        let grace = async {
            let _ = stop_seen.wait_for(|stopping| *stopping).await;
            tokio::time::sleep(STOP_GRACE).await;
        };
        tokio::select! {
            () = serving => {}
            () = grace => tracing::warn!("requests still running {} s after the stop; stopping without them", STOP_GRACE.as_secs()),
        }
        Ok::<_, anyhow::Error>(())
    })?;
    // The background sync and any request still running stop before the
    // checkpoint, so that nothing writes behind it.
    runtime.shutdown_timeout(STOP_GRACE);
    finish_cleanly(&store);
    tracing::info!("copydesk-server stopped");
    Ok(())
}

/// The last step of a clean stop: everything into `copydesk.db`, the WAL emptied.
pub(crate) fn finish_cleanly(cms: &Cms) {
    match cms.checkpoint() {
        Ok(true) => tracing::info!("the database is checkpointed: copydesk.db holds everything"),
        Ok(false) => tracing::warn!(
            "a reader held part of the WAL back; SQLite will checkpoint it at the next start"
        ),
        Err(CoreError::Damaged(_)) => tracing::error!(
            "the database is damaged: its WAL is left beside copydesk.db as it is, nothing copied \
             into the file; run `copydesk-server check`"
        ),
        Err(err) => tracing::error!(%err, "the database could not be checkpointed"),
    }
}
