//! The desktop shell: opens the local replica, serves its `/v3` service to
//! this app's window only, hands the window its address and token, and keeps
//! the replica synced with the central server. What the service does lives
//! in the libraries; this file only wires them to a window.

use std::path::PathBuf;
use std::sync::{Arc, Mutex};

use copydesk_core::Cms;
use copydesk_sync::{ForwardedLocks, Remote, RemoteKey};
use serde::{Deserialize, Serialize};
use tauri::{Manager, State};

/// The origins the app's own pages have (WebKitGTK, and other platforms' webviews).
const APP_ORIGINS: [&str; 2] = ["tauri://localhost", "http://tauri.localhost"];
/// How often the background sync runs a round.
const SYNC_EVERY: std::time::Duration = std::time::Duration::from_secs(5);

/// The app's embedded service.
struct Local {
    cms: Arc<Cms>,
    /// The keychain's name for the remote key pairs: the product's, lower case.
    keychain_service: String,
    base: String,
    token: String,
    /// Whether the background sync runs (it starts once, when a remote is known).
    syncing: Mutex<bool>,
}

/// What the window needs to call its service: the address and this launch's token.
#[derive(Serialize)]
struct Connection {
    base: String,
    token: String,
}

#[derive(Serialize)]
struct RemoteSettings {
    remote: Option<String>,
}

/// A key pair as `copydesk-server key create --json` prints it.
#[derive(Deserialize, Serialize)]
struct KeyJson {
    public_key: String,
    private_key: String,
}

#[tauri::command]
fn connection(local: State<'_, Local>) -> Connection {
    Connection {
        base: local.base.clone(),
        token: local.token.clone(),
    }
}

#[tauri::command]
fn remote_settings(local: State<'_, Local>) -> Result<RemoteSettings, String> {
    let state = local.cms.sync_state().map_err(|err| err.to_string())?;
    Ok(RemoteSettings {
        remote: state.remote,
    })
}

/// Makes this copy a replica of `address`, the key kept in the system keychain.
/// Answers whether sync started now (`false`: it already ran, and a new key is
/// used from the next launch).
#[tauri::command]
async fn set_remote(
    local: State<'_, Local>,
    address: String,
    key: KeyJson,
) -> Result<bool, String> {
    let remote = Remote::new(
        &address,
        RemoteKey {
            public_key: key.public_key.clone(),
            private_key: key.private_key.clone(),
        },
    )
    .map_err(|err| err.to_string())?;
    // The key first: a replica never names a remote whose key it lacks.
    let secret = serde_json::to_string(&key).map_err(|err| err.to_string())?;
    let address = remote.base().to_owned();
    let keychain_service = local.keychain_service.clone();
    // The keychain's client blocks on D-Bus: off the async workers.
    tauri::async_runtime::spawn_blocking(move || {
        keyring::Entry::new(&keychain_service, &address)
            .and_then(|entry| entry.set_password(&secret))
    })
    .await
    .map_err(|err| err.to_string())?
    .map_err(|err| format!("the system keychain did not take the key: {err}"))?;
    local
        .cms
        .set_remote(remote.base())
        .map_err(|err| err.to_string())?;
    Ok(start_sync(&local, Arc::new(remote)))
}

/// Starts the background sync, and lock forwarding, once; answers whether it started now.
fn start_sync(local: &Local, remote: Arc<Remote>) -> bool {
    let Ok(mut syncing) = local.syncing.lock() else {
        return false;
    };
    if *syncing {
        return false;
    }
    *syncing = true;
    local
        .cms
        .forward_locks(Arc::new(ForwardedLocks::new(Arc::clone(&remote))));
    tauri::async_runtime::spawn(copydesk_sync::keep_synced(
        Arc::clone(&local.cms),
        remote,
        SYNC_EVERY,
    ));
    true
}

/// The remote this copy syncs with and its key from the keychain, if both are there.
fn configured_remote(local: &Local) -> Option<Remote> {
    let url = local.cms.sync_state().ok()?.remote?;
    let secret = keyring::Entry::new(&local.keychain_service, &url)
        .and_then(|entry| entry.get_password())
        .map_err(|err| tracing::warn!(%err, "no key for {url} in the system keychain; not syncing"))
        .ok()?;
    let key: KeyJson = serde_json::from_str(&secret).ok()?;
    Remote::new(
        &url,
        RemoteKey {
            public_key: key.public_key,
            private_key: key.private_key,
        },
    )
    .ok()
}

/// Where the replica lives: `COPYDESK_DATA`, or the platform's data directory for the app.
fn data_dir(app: &tauri::App) -> anyhow::Result<PathBuf> {
    match std::env::var_os("COPYDESK_DATA") {
        Some(dir) => Ok(PathBuf::from(dir)),
        None => Ok(app.path().app_data_dir()?),
    }
}

/// Opens the replica and serves it on a loopback port to this app only.
async fn start_local(dir: PathBuf, product: &str) -> anyhow::Result<Local> {
    std::fs::create_dir_all(&dir)?;
    let cms = Arc::new(Cms::open(&dir, copydesk_core::DEFAULT_NAMESPACE)?);
    let person = std::env::var("USER").unwrap_or_else(|_| "me".to_owned());
    let key = cms.launch_key(&person)?;
    let token = copydesk_core::access::mint_token(&key.public_key, &key.private_key, None)?;
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await?;
    let port = listener.local_addr()?.port();
    let app = copydesk_api::router(
        Arc::clone(&cms),
        copydesk_api::Options {
            local_only: Some(copydesk_api::LocalOnly {
                port,
                origins: APP_ORIGINS.iter().map(|o| (*o).to_owned()).collect(),
            }),
            ..copydesk_api::Options::default()
        },
    );
    tauri::async_runtime::spawn(async move {
        if let Err(err) = axum::serve(listener, app).await {
            tracing::error!(%err, "the local service stopped");
        }
    });
    tracing::info!(data = %dir.display(), "{product} serving its replica on http://127.0.0.1:{port}");
    Ok(Local {
        cms,
        keychain_service: product.to_lowercase(),
        base: format!("http://127.0.0.1:{port}"),
        token,
        syncing: Mutex::new(false),
    })
}

/// Sizes WebKitGTK's caches for one document, not for browsing.
#[cfg(target_os = "linux")]
fn lighten(webview: &webkit2gtk::WebView) {
    use webkit2gtk::{WebContextExt, WebViewExt};
    if let Some(context) = webview.context() {
        context.set_cache_model(webkit2gtk::CacheModel::DocumentViewer);
    }
}

/// Set by the user to keep WebKitGTK's GPU compositing (see [`draw_in_software`]).
#[cfg(target_os = "linux")]
const KEEP_COMPOSITING: &str = "COPYDESK_GPU_COMPOSITING";
/// WebKitGTK's switch, read when it makes a view's settings: pages drawn
/// without GPU compositing.
#[cfg(target_os = "linux")]
const NO_COMPOSITING: &str = "WEBKIT_DISABLE_COMPOSITING_MODE";

/// Has WebKitGTK draw the window's pages on the CPU, without GPU
/// compositing, by starting the app again (same process, same arguments)
/// with WebKit's switch set, unless it is set already or the user set
/// `COPYDESK_GPU_COMPOSITING`. Nothing in Copydesk's screens animates, and
/// compositing held a layer tree and, on a machine drawing GL in software,
/// Mesa's LLVM in the web process: the app's idle memory went from 322 to
/// 242 MiB PSS (`scripts/desktop-bench.sh`). The switch is read when the
/// view is made, so the page never composites; the view's own setting
/// (`hardware-acceleration-policy`) reaches it only after Tauri has made it
/// and started the page, and switches a live page out of compositing.
/// (Either way WebKitWebDriver's screenshots can hang: the desktop tests that
/// take them keep compositing.) Called first thing in `main`, before any
/// thread starts; if the app cannot start again, it goes on with compositing.
#[cfg(target_os = "linux")]
pub fn draw_in_software() {
    use std::os::unix::process::CommandExt;
    if std::env::var_os(NO_COMPOSITING).is_some()
        || asks_for_compositing(std::env::var_os(KEEP_COMPOSITING).as_deref())
    {
        return;
    }
    let mut args = std::env::args_os();
    let (Some(name), Ok(exe)) = (args.next(), std::env::current_exe()) else {
        return;
    };
    let err = std::process::Command::new(exe)
        .arg0(name)
        .args(args)
        .env(NO_COMPOSITING, "1")
        .exec();
    eprintln!(
        "copydesk: drawing with GPU compositing, as the app could not start again without it: {err}"
    );
}

/// Whether `COPYDESK_GPU_COMPOSITING` asks to keep compositing: set to
/// anything but an empty value, `0`, `false`, `no` or `off` (any case), so
/// that `COPYDESK_GPU_COMPOSITING=0` means what it says.
#[cfg(target_os = "linux")]
fn asks_for_compositing(value: Option<&std::ffi::OsStr>) -> bool {
    let Some(value) = value else {
        return false;
    };
    let value = value.to_string_lossy();
    let value = value.trim();
    !(value.is_empty()
        || ["0", "false", "no", "off"]
            .iter()
            .any(|no| value.eq_ignore_ascii_case(no)))
}

/// The product's name, as the Tauri config gives it.
fn product_name(config: &tauri::Config, package: &tauri::PackageInfo) -> String {
    config
        .product_name
        .clone()
        .unwrap_or_else(|| package.name.clone())
}

pub fn run() {
    tracing_subscriber::fmt()
        .with_env_filter(
            tracing_subscriber::EnvFilter::try_from_default_env()
                .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("info")),
        )
        .init();
    let context = tauri::generate_context!();
    let product = product_name(context.config(), context.package_info());
    let result = tauri::Builder::default()
        // One instance at a time: a second launch brings the first to the front.
        .plugin(tauri_plugin_single_instance::init(|app, _args, _cwd| {
            if let Some(window) = app.get_webview_window("main") {
                let _ = window.unminimize();
                let _ = window.set_focus();
            }
        }))
        .setup(|app| {
            // Caught before the replica is served, so a stop asked for as
            // soon as the app says it is serving is still a clean stop.
            let mut stop =
                tauri::async_runtime::block_on(async { copydesk_api::stop::StopRequests::catch() });
            let dir = data_dir(app)?;
            let product = product_name(app.config(), app.package_info());
            let local = tauri::async_runtime::block_on(start_local(dir, &product))?;
            if let Some(remote) = configured_remote(&local) {
                tauri::async_runtime::block_on(async { start_sync(&local, Arc::new(remote)) });
            }
            app.manage(local);
            // A logout or `kill` ends the app as closing its window does, so
            // the replica is checkpointed on the way out.
            let handle = app.handle().clone();
            tauri::async_runtime::spawn(async move {
                stop.requested().await;
                handle.exit(0);
            });
            #[cfg(target_os = "linux")]
            if let Some(window) = app.get_webview_window("main") {
                window.with_webview(|webview| lighten(&webview.inner()))?;
            }
            Ok(())
        })
        .invoke_handler(tauri::generate_handler![
            connection,
            remote_settings,
            set_remote
        ])
        .build(context);
    let app = match result {
        Ok(app) => app,
        Err(err) => {
            eprintln!("{product}: {err}");
            std::process::exit(1);
        }
    };
    app.run(|app, event| {
        // Closing the app leaves the replica's copydesk.db holding everything.
        if let tauri::RunEvent::Exit = event
            && let Some(local) = app.try_state::<Local>()
        {
            match local.cms.checkpoint() {
                Ok(_) => tracing::info!("the replica is checkpointed"),
                Err(err) => tracing::error!(%err, "the replica could not be checkpointed"),
            }
        }
    });
}

#[cfg(all(test, target_os = "linux"))]
mod tests {
    use std::ffi::OsStr;

    use super::asks_for_compositing;

    #[test]
    fn compositing_is_kept_only_when_asked_for() {
        assert!(!asks_for_compositing(None));
        for no in ["", " ", "0", "false", "FALSE", "no", "Off"] {
            assert!(
                !asks_for_compositing(Some(OsStr::new(no))),
                "{no:?} keeps compositing"
            );
        }
        for yes in ["1", "true", "yes", "on", "gpu"] {
            assert!(
                asks_for_compositing(Some(OsStr::new(yes))),
                "{yes:?} drops compositing"
            );
        }
    }
}
