//! Serving the API on a listener: a request's head read within a time limit, and no more connections open at once than the process can hold files for.
//!
//! axum's own `serve` gives hyper no timer, so a client that sends half a
//! request head keeps its connection, and a thousand of them take every
//! file the process may open. Here each connection is served by hyper with
//! a timer and a head timeout, and a connection is only accepted while
//! fewer than the cap are open; the others wait in the listen queue.

use std::future::Future;
use std::sync::Arc;
use std::time::{Duration, Instant};

use axum::Router;
use axum::extract::ConnectInfo;
use hyper::body::Incoming;
use hyper_util::rt::{TokioIo, TokioTimer};
use hyper_util::server::graceful::GracefulShutdown;
use hyper_util::service::TowerToHyperService;
use tokio::net::TcpListener;
use tokio::sync::Semaphore;
use tower::ServiceExt as _;

/// How connections are held.
#[derive(Debug, Clone, Copy)]
pub struct ConnectionLimits {
    /// How long a client has to send a request's whole head (its line and
    /// headers), from when the server waits for one; an idle kept-alive
    /// connection is closed after as long.
    pub header_timeout: Duration,
    /// Connections open at once; the next waits until one closes.
    pub max_open: usize,
}

/// How often, at most, the log says the cap is reached.
const CAP_LOGGED_EVERY: Duration = Duration::from_secs(60);

/// Serves `app` on `listener` until `stop` completes; then accepts no more
/// connections and returns once the requests in flight are answered.
/// Handlers see the client's address as `ConnectInfo<SocketAddr>`.
pub async fn serve(
    listener: TcpListener,
    app: Router,
    limits: ConnectionLimits,
    stop: impl Future<Output = ()> + Send,
) {
    let open = Arc::new(Semaphore::new(limits.max_open.max(1)));
    let graceful = GracefulShutdown::new();
    // Told to every change stream, which ends so that the stop need not wait on it.
    let (stopping, stopping_seen) = tokio::sync::watch::channel(false);
    let mut cap_logged: Option<Instant> = None;
    tokio::pin!(stop);
    loop {
        let permit = match Arc::clone(&open).try_acquire_owned() {
            Ok(permit) => permit,
            Err(_) => {
                if cap_logged.is_none_or(|at| at.elapsed() >= CAP_LOGGED_EVERY) {
                    tracing::warn!(
                        max_open = limits.max_open,
                        "open connections are at the cap of {}: new ones wait until one closes (serve --max-connections)",
                        limits.max_open
                    );
                    cap_logged = Some(Instant::now());
                }
                tokio::select! {
                    permit = Arc::clone(&open).acquire_owned() => match permit {
                        Ok(permit) => permit,
                        Err(_) => break,
                    },
                    () = &mut stop => break,
                }
            }
        };
        let (stream, address) = tokio::select! {
            accepted = listener.accept() => match accepted {
                Ok(accepted) => accepted,
                Err(err) => {
                    // Out of files or memory for a moment: wait, as a busy server must.
                    tracing::warn!(%err, "accepting a connection failed; trying again shortly");
                    tokio::time::sleep(Duration::from_millis(100)).await;
                    continue;
                }
            },
            () = &mut stop => break,
        };
        let _ = stream.set_nodelay(true);
        let service = app.clone().map_request({
            let stopping = crate::change_stream::Stopping(stopping_seen.clone());
            move |mut request: axum::http::Request<Incoming>| {
                request.extensions_mut().insert(ConnectInfo(address));
                request.extensions_mut().insert(stopping.clone());
                request
            }
        });
        let mut http = hyper::server::conn::http1::Builder::new();
        http.timer(TokioTimer::new())
            .header_read_timeout(limits.header_timeout);
        let connection =
            http.serve_connection(TokioIo::new(stream), TowerToHyperService::new(service));
        let connection = graceful.watch(connection);
        tokio::spawn(async move {
            // A client that goes away or sends no head in time ends here.
            if let Err(err) = connection.await {
                tracing::debug!(%err, %address, "a connection ended");
            }
            drop(permit);
        });
    }
    drop(listener);
    let _ = stopping.send(true);
    graceful.shutdown().await;
}
