//! Runs the real `copydesk-server` binary on a loopback port with a temporary data directory,
//! and speaks HTTP to it with real signed tokens. Shared by the end-to-end suites and the benchmark.

use std::io::{BufRead as _, BufReader};
use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::mpsc;
use std::time::Duration;

use anyhow::{Context as _, Result, bail};
use reqwest::blocking::{Client, RequestBuilder};
use reqwest::{Method, StatusCode};
use serde::{Deserialize, Serialize};
use serde_json::Value;

pub mod event_stream;

/// A response header's value as text, if it has one.
pub fn header(response: &reqwest::blocking::Response, name: &str) -> Option<String> {
    response
        .headers()
        .get(name)
        .and_then(|v| v.to_str().ok())
        .map(str::to_owned)
}
pub mod postgres;
pub mod tls;

/// The server binary as a command, apart from the surroundings of whoever
/// runs the tests: libpq's `PGSSL...` variables and `HOME` (whose
/// `~/.postgresql` a node reads) are not the tester's.
pub fn server_command() -> Command {
    server_command_under(&[])
}

/// The server binary run by a wrapper: `wrapper` (a program and its
/// arguments) then the binary, as [`server_command`] runs it.
pub fn server_command_under(wrapper: &[String]) -> Command {
    static HOME: std::sync::OnceLock<PathBuf> = std::sync::OnceLock::new();
    let home = HOME.get_or_init(|| {
        tempfile::Builder::new()
            .prefix("copydesk-home")
            .tempdir()
            .expect("a home directory")
            .keep()
    });
    let mut command = match wrapper.split_first() {
        Some((program, args)) => {
            let mut command = Command::new(program);
            command.args(args).arg(server_binary());
            command
        }
        None => Command::new(server_binary()),
    };
    command
        .env_remove("PGSSLMODE")
        .env_remove("PGSSLROOTCERT")
        .env_remove("PGSSLCERT")
        .env_remove("PGSSLKEY")
        .env("HOME", home);
    command
}

/// Where the server binary is: `COPYDESK_SERVER_BIN`, or beside the running test in `target/<profile>/`.
pub fn server_binary() -> PathBuf {
    if let Some(path) = std::env::var_os("COPYDESK_SERVER_BIN") {
        return PathBuf::from(path);
    }
    let exe = std::env::current_exe().expect("the test knows its own path");
    let mut dir = exe
        .parent()
        .expect("the test binary sits in a folder")
        .to_path_buf();
    if dir.ends_with("deps") {
        dir.pop();
    }
    let binary = dir.join("copydesk-server");
    assert!(
        binary.exists(),
        "{} is missing: build it first with `cargo build -p copydesk-server` (the test script does)",
        binary.display()
    );
    static CHECKED: std::sync::OnceLock<()> = std::sync::OnceLock::new();
    CHECKED.get_or_init(|| {
        if let Some(changed) = source_newer_than(&binary) {
            panic!(
                "{} is older than {}: the tests would run the code as it was; \
                 build it again with `cargo build -p copydesk-server` (the test script does)",
                binary.display(),
                changed.display()
            );
        }
    });
    binary
}

/// A source file `binary` was built from that changed after it was, as
/// cargo's dep-info beside the binary lists them (the files rustc read, so
/// a test module a build leaves out never counts): a suite run after an
/// edit without building the server again would test the old server.
fn source_newer_than(binary: &std::path::Path) -> Option<PathBuf> {
    let built = std::fs::metadata(binary).and_then(|m| m.modified()).ok()?;
    let dep_info = std::fs::read_to_string(binary.with_extension("d")).ok()?;
    dep_info
        .lines()
        .filter_map(|line| line.split_once(": ").map(|(_, sources)| sources))
        .flat_map(|sources| {
            // Make's syntax: a space within a path is escaped.
            sources
                .replace("\\ ", "\u{0}")
                .split_whitespace()
                .map(|path| PathBuf::from(path.replace('\u{0}', " ")))
                .collect::<Vec<_>>()
        })
        .find(|source| {
            std::fs::metadata(source)
                .and_then(|m| m.modified())
                .is_ok_and(|changed| changed > built)
        })
}

/// The `q` quantile (0 to 1) of `sorted` by nearest rank: the smallest
/// duration at least a `q` share of them do not exceed. What every
/// benchmark reports as p50 and p99.
pub fn percentile(sorted: &[Duration], q: f64) -> Duration {
    let n = sorted.len();
    let at = ((n as f64 * q).ceil() as usize).clamp(1, n) - 1;
    sorted[at]
}

/// A key pair as `key create --json` prints it.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct KeyPair {
    pub user_uuid: String,
    pub public_key: String,
    pub private_key: String,
}

#[derive(Serialize)]
struct Claims<'a> {
    pk: &'a str,
    iat: i64,
    exp: i64,
}

impl KeyPair {
    /// A token valid for `lifetime_secs` (negative: already expired).
    pub fn token_for(&self, lifetime_secs: i64) -> String {
        let now = chrono::Utc::now().timestamp();
        let claims = Claims {
            pk: &self.public_key,
            iat: now,
            exp: now + lifetime_secs,
        };
        jsonwebtoken::encode(
            &jsonwebtoken::Header::new(jsonwebtoken::Algorithm::HS256),
            &claims,
            &jsonwebtoken::EncodingKey::from_secret(self.private_key.as_bytes()),
        )
        .expect("a token signs")
    }

    pub fn token(&self) -> String {
        self.token_for(3600)
    }
}

/// Set by a benchmark: its servers run as in production, without comparing
/// every kept content answer with a fresh one (which the suites do).
static MEASURING: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

/// Makes every server started from now on run without the suites' check of
/// kept answers: for benchmarks, which measure the server as it is run.
pub fn measuring() {
    MEASURING.store(true, std::sync::atomic::Ordering::Relaxed);
}

/// How many of its last log lines a [`TestServer`] keeps.
const LOG_LINES_KEPT: usize = 10_000;

/// A running `copydesk-server serve`, killed when dropped.
pub struct TestServer {
    pub dir: tempfile::TempDir,
    pub base: String,
    child: Option<Child>,
    client: Client,
    pub admin: KeyPair,
    admin_token: String,
    extra_args: Vec<String>,
    /// Where the server listens: a free port unless a test names one.
    listen: String,
    /// The open-files soft limit it starts with, when a test sets one.
    open_files: Option<u64>,
    /// The last lines the server wrote to its log (at most [`LOG_LINES_KEPT`]).
    log: std::sync::Arc<std::sync::Mutex<std::collections::VecDeque<String>>>,
}

/// The answer to one request: status and JSON body (`Value::Null` when not JSON).
#[derive(Debug, Clone)]
pub struct Reply {
    pub status: StatusCode,
    pub body: Value,
    pub content_type: String,
    /// The `Retry-After` header, when the answer has one.
    pub retry_after: Option<String>,
    pub bytes: Vec<u8>,
}

impl Reply {
    /// The error code of a contract error body.
    pub fn code(&self) -> &str {
        self.body["code"].as_str().unwrap_or("")
    }

    pub fn message(&self) -> &str {
        self.body["error"].as_str().unwrap_or("")
    }

    #[track_caller]
    pub fn expect(self, status: u16) -> Self {
        assert_eq!(
            self.status.as_u16(),
            status,
            "unexpected status; body: {}",
            self.body
        );
        self
    }

    /// Asserts a contract error: status, code, and the JSON shape.
    #[track_caller]
    pub fn expect_error(self, status: u16, code: &str) -> Self {
        assert_eq!(
            self.status.as_u16(),
            status,
            "unexpected status; body: {}",
            self.body
        );
        assert_eq!(self.code(), code, "unexpected code; body: {}", self.body);
        assert!(
            !self.message().is_empty(),
            "an error needs a message: {}",
            self.body
        );
        assert!(
            self.content_type.starts_with("application/json"),
            "errors are JSON"
        );
        self
    }
}

impl TestServer {
    pub fn start() -> Self {
        Self::start_with(&[])
    }

    /// Starts a server with extra `serve` flags, and an admin key; on
    /// PostgreSQL when the suites run there ([`postgres::on_postgres`]),
    /// unless it is a replica (given `--remote`), which stays on SQLite.
    pub fn start_with(extra: &[&str]) -> Self {
        let central = !extra.contains(&"--remote");
        Self::start_in(
            (central && postgres::on_postgres()).then(postgres::fresh_database),
            extra,
        )
    }

    /// Starts a replica's server: always on SQLite, as a laptop runs it,
    /// whatever its central server runs on.
    pub fn start_replica() -> Self {
        Self::start_in(None, &[])
    }

    /// Starts a second node on `other`'s PostgreSQL database (its own data
    /// directory, the same data).
    pub fn start_beside(other: &TestServer) -> Self {
        Self::start_in(Some(other.database_url()), &[])
    }

    /// The URL of the PostgreSQL database this server runs on.
    pub fn database_url(&self) -> String {
        std::fs::read_to_string(self.dir.path().join(DATABASE_FILE))
            .expect("the server runs on PostgreSQL")
    }

    /// Starts a server on the PostgreSQL database at `url`.
    pub fn start_on_database(url: &str) -> Self {
        Self::start_in(Some(url.to_owned()), &[])
    }

    /// Stops this server and starts one on the PostgreSQL database at `url`
    /// at the same address, as a newsroom keeps its server's name when it
    /// moves it: its replicas know it by that.
    pub fn replace_with_database(mut self, url: &str) -> Self {
        self.kill();
        let dir = tempfile::tempdir().expect("a temporary directory");
        std::fs::write(dir.path().join(DATABASE_FILE), url).expect("the URL is noted");
        let admin = create_key(dir.path(), "admin", &["admin"], &[]).expect("an admin key");
        self.listen = self.base.trim_start_matches("http://").to_owned();
        self.admin_token = admin.token();
        self.admin = admin;
        self.dir = dir;
        self.launch().expect("the server starts");
        self
    }

    /// Starts a server on a fresh PostgreSQL database, whatever the suites run on.
    pub fn start_on_postgres() -> Self {
        Self::start_in(Some(postgres::fresh_database()), &[])
    }

    fn start_in(database: Option<String>, extra: &[&str]) -> Self {
        let mut server = Self::prepared(database, extra);
        server.launch().expect("the server starts");
        server
    }

    /// A server ready to launch: its data directory, database and admin key.
    fn prepared(database: Option<String>, extra: &[&str]) -> Self {
        let dir = tempfile::tempdir().expect("a temporary directory");
        if let Some(url) = database {
            std::fs::write(dir.path().join(DATABASE_FILE), url)
                .expect("the test database's URL is noted");
        }
        let admin = create_key(dir.path(), "admin", &["admin"], &[]).expect("an admin key");
        Self {
            dir,
            base: String::new(),
            child: None,
            client: Client::builder()
                .timeout(Duration::from_secs(60))
                .pool_max_idle_per_host(8)
                .build()
                .expect("an HTTP client"),
            admin_token: admin.token(),
            admin,
            extra_args: extra.iter().map(|s| (*s).to_owned()).collect(),
            listen: "127.0.0.1:0".to_owned(),
            open_files: None,
            log: std::sync::Arc::default(),
        }
    }

    /// Starts a server on SQLite as a service manager starts one: with an
    /// open-files soft limit of `soft` (systemd's is 1,024), and `extra` flags.
    pub fn start_with_open_files(soft: u64, extra: &[&str]) -> Self {
        let mut server = Self::prepared(None, extra);
        server.open_files = Some(soft);
        server.launch().expect("the server starts");
        server
    }

    /// The lines the server has written to its log so far.
    pub fn log_lines(&self) -> Vec<String> {
        self.log
            .lock()
            .map(|lines| lines.iter().cloned().collect())
            .unwrap_or_default()
    }

    fn launch(&mut self) -> Result<()> {
        let wrapper: Vec<String> = self
            .open_files
            .map(|soft| {
                vec![
                    "prlimit".to_owned(),
                    format!("--nofile={soft}:"),
                    "--".to_owned(),
                ]
            })
            .unwrap_or_default();
        let mut child = server_command_under(&wrapper)
            .arg("serve")
            .arg("--listen")
            .arg(&self.listen)
            .arg("--data")
            .arg(self.dir.path())
            .args(database_args(self.dir.path()))
            .args(&self.extra_args)
            .env("COPYDESK_LOG", "info")
            // Every content answer the server kept is compared with a fresh one.
            .env(
                "COPYDESK_CHECK_RENDERED",
                if MEASURING.load(std::sync::atomic::Ordering::Relaxed) {
                    "0"
                } else {
                    "1"
                },
            )
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .context("starting copydesk-server")?;
        let stderr = child.stderr.take().context("the server's stderr")?;
        let (tx, rx) = mpsc::channel();
        let log = std::sync::Arc::clone(&self.log);
        std::thread::spawn(move || {
            let mut sent = false;
            for line in BufReader::new(stderr).lines().map_while(Result::ok) {
                if let Ok(mut lines) = log.lock() {
                    if lines.len() == LOG_LINES_KEPT {
                        lines.pop_front();
                    }
                    lines.push_back(line.clone());
                }
                if !sent && let Some(rest) = line.split("listening on http://").nth(1) {
                    let addr = rest.split_whitespace().next().unwrap_or("").to_owned();
                    let _ = tx.send(addr);
                    sent = true;
                }
            }
        });
        let addr = rx
            // Long enough for the integrity check at start over an archive
            // of a million stories; a server that fails exits, ending this
            // wait at once.
            .recv_timeout(Duration::from_secs(600))
            .context("the server did not say where it listens")?;
        let addr: SocketAddr = addr.parse().context("the ready line names an address")?;
        self.base = format!("http://{addr}");
        self.child = Some(child);
        Ok(())
    }

    /// Kills the server with SIGKILL: no chance to flush or clean up.
    pub fn kill(&mut self) {
        if let Some(mut child) = self.child.take() {
            let _ = child.kill();
            let _ = child.wait();
        }
    }

    /// Stops the server as an operator does (SIGTERM) and waits for it to
    /// exit, at most `within`; returns whether it exited successfully.
    pub fn terminate(&mut self, within: Duration) -> bool {
        let Some(mut child) = self.child.take() else {
            return false;
        };
        let sent = Command::new("kill")
            .args(["-TERM", &child.id().to_string()])
            .status()
            .is_ok_and(|status| status.success());
        assert!(sent, "SIGTERM was sent");
        let started = std::time::Instant::now();
        loop {
            if let Ok(Some(status)) = child.try_wait() {
                return status.success();
            }
            if started.elapsed() > within {
                let _ = child.kill();
                let _ = child.wait();
                return false;
            }
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    /// The server's peak resident memory so far (`VmHWM` in `/proc`), in bytes.
    pub fn peak_memory_bytes(&self) -> u64 {
        let pid = self.pid().expect("the server runs");
        let status = std::fs::read_to_string(format!("/proc/{pid}/status"))
            .expect("the server's /proc status");
        let kib: u64 = status
            .lines()
            .find_map(|line| line.strip_prefix("VmHWM:"))
            .and_then(|rest| rest.split_whitespace().next())
            .and_then(|n| n.parse().ok())
            .expect("VmHWM in /proc status");
        kib * 1024
    }

    /// Starts the server again on the same data directory.
    pub fn restart(&mut self) {
        self.kill();
        self.launch().expect("the server starts again");
    }

    /// Starts the server again on the same data directory, with `extra`
    /// `serve` flags instead of those it had.
    pub fn restart_with(&mut self, extra: &[&str]) {
        self.extra_args = extra.iter().map(|s| (*s).to_owned()).collect();
        self.restart();
    }

    pub fn pid(&self) -> Option<u32> {
        self.child.as_ref().map(Child::id)
    }

    /// A new key pair for a new or existing user.
    pub fn key(&self, name: &str, roles: &[&str], actions: &[&str]) -> KeyPair {
        create_key(self.dir.path(), name, roles, actions).expect("a key")
    }

    /// Revokes `key` as an operator does (`key revoke` on the data directory).
    pub fn revoke(&self, key: &KeyPair) {
        let revoked = server_command()
            .args(["key", "revoke", "--public-key", &key.public_key, "--data"])
            .arg(self.dir.path())
            .args(database_args(self.dir.path()))
            .output()
            .expect("key revoke runs");
        assert!(revoked.status.success(), "key revoke: {revoked:?}");
    }

    /// Makes `admin` the key this server's requests are signed with (for a
    /// data directory whose database was put in place of the one the
    /// server started with).
    pub fn use_admin(&mut self, admin: KeyPair) {
        self.admin_token = admin.token();
        self.admin = admin;
    }

    pub fn admin_token(&self) -> &str {
        &self.admin_token
    }

    pub fn url(&self, path: &str) -> String {
        format!("{}{path}", self.base)
    }

    pub fn request(&self, method: Method, path: &str) -> RequestBuilder {
        self.client.request(method, self.url(path))
    }

    pub fn send(&self, request: RequestBuilder) -> Reply {
        let response = request.send().expect("the server answers");
        let status = response.status();
        let content_type = header(&response, "content-type").unwrap_or_default();
        let retry_after = header(&response, "retry-after");
        let bytes = response.bytes().expect("a body").to_vec();
        let body = serde_json::from_slice(&bytes).unwrap_or(Value::Null);
        Reply {
            status,
            body,
            content_type,
            retry_after,
            bytes,
        }
    }

    /// A request as `token` (None: no Authorization header) with an optional JSON body.
    pub fn call(
        &self,
        method: Method,
        path: &str,
        token: Option<&str>,
        body: Option<&Value>,
    ) -> Reply {
        let mut request = self.request(method, path);
        if let Some(token) = token {
            request = request.bearer_auth(token);
        }
        if let Some(body) = body {
            request = request.json(body);
        }
        self.send(request)
    }

    pub fn get(&self, path: &str) -> Reply {
        self.call(Method::GET, path, Some(&self.admin_token), None)
    }

    pub fn post(&self, path: &str, body: &Value) -> Reply {
        self.call(Method::POST, path, Some(&self.admin_token), Some(body))
    }

    pub fn put(&self, path: &str, body: &Value) -> Reply {
        self.call(Method::PUT, path, Some(&self.admin_token), Some(body))
    }

    pub fn delete(&self, path: &str) -> Reply {
        self.call(Method::DELETE, path, Some(&self.admin_token), None)
    }

    pub fn db_path(&self) -> PathBuf {
        self.dir.path().join("copydesk.db")
    }
}

impl Drop for TestServer {
    fn drop(&mut self) {
        self.kill();
    }
}

/// The file in a test server's data directory that names its PostgreSQL
/// database, when the suites run on PostgreSQL.
const DATABASE_FILE: &str = "test-database-url";

/// `--database URL` for a data directory whose server runs on PostgreSQL.
pub fn database_args(dir: &Path) -> Vec<String> {
    match std::fs::read_to_string(dir.join(DATABASE_FILE)) {
        Ok(url) => vec!["--database".to_owned(), url],
        Err(_) => Vec::new(),
    }
}

/// Runs `copydesk-server key create --json` on a data directory.
pub fn create_key(dir: &Path, name: &str, roles: &[&str], actions: &[&str]) -> Result<KeyPair> {
    let mut command = server_command();
    command
        .args(["key", "create", "--json", "--name", name, "--data"])
        .arg(dir)
        .args(database_args(dir));
    for role in roles {
        command.args(["--role", role]);
    }
    for action in actions {
        command.args(["--action", action]);
    }
    let output = command.output().context("running key create")?;
    if !output.status.success() {
        bail!(
            "key create failed: {}",
            String::from_utf8_lossy(&output.stderr)
        );
    }
    serde_json::from_slice(&output.stdout).context("key create prints one JSON object")
}

/// A TCP proxy on a loopback port in front of a server, which can cut
/// connections: to show that sync survives a network that drops answers.
pub struct CuttingProxy {
    pub base: String,
    state: std::sync::Arc<std::sync::Mutex<ProxyState>>,
}

#[derive(Debug)]
struct ProxyState {
    target: SocketAddr,
    /// How many upcoming connections lose their answer (the request still arrives).
    cut_answers: usize,
    /// Whether new connections are refused outright.
    down: bool,
    /// How many upcoming POST requests lose their answer (the request still arrives).
    cut_posts: usize,
}

impl CuttingProxy {
    pub fn new(target_base: &str) -> Self {
        let target: SocketAddr = target_base
            .trim_start_matches("http://")
            .parse()
            .expect("a loopback address");
        let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("a free port");
        let base = format!("http://{}", listener.local_addr().expect("an address"));
        let state = std::sync::Arc::new(std::sync::Mutex::new(ProxyState {
            target,
            cut_answers: 0,
            down: false,
            cut_posts: 0,
        }));
        let shared = std::sync::Arc::clone(&state);
        std::thread::spawn(move || {
            for client in listener.incoming() {
                let Ok(client) = client else { continue };
                let (target, cut, down) = {
                    let mut state = shared.lock().expect("proxy state");
                    let cut = state.cut_answers > 0;
                    if cut {
                        state.cut_answers -= 1;
                    }
                    (state.target, cut, state.down)
                };
                if down {
                    drop(client);
                    continue;
                }
                let state = std::sync::Arc::clone(&shared);
                std::thread::spawn(move || relay(client, target, cut, state));
            }
        });
        Self { base, state }
    }

    /// The next `n` connections deliver their request but lose the answer.
    pub fn cut_next_answers(&self, n: usize) {
        self.state.lock().expect("proxy state").cut_answers = n;
    }

    /// The next `n` POST requests arrive, but their answers are lost.
    pub fn cut_next_posts(&self, n: usize) {
        self.state.lock().expect("proxy state").cut_posts = n;
    }

    pub fn set_down(&self, down: bool) {
        self.state.lock().expect("proxy state").down = down;
    }

    /// Points the proxy at a restarted server.
    pub fn retarget(&self, target_base: &str) {
        self.state.lock().expect("proxy state").target = target_base
            .trim_start_matches("http://")
            .parse()
            .expect("a loopback address");
    }
}

fn relay(
    client: std::net::TcpStream,
    target: SocketAddr,
    cut_answer: bool,
    state: std::sync::Arc<std::sync::Mutex<ProxyState>>,
) {
    use std::io::{Read as _, Write as _};
    let Ok(upstream) = std::net::TcpStream::connect(target) else {
        return;
    };
    let (Ok(mut client_read), Ok(mut upstream_write)) = (client.try_clone(), upstream.try_clone())
    else {
        return;
    };
    let cut_now = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(cut_answer));
    let cut_flag = std::sync::Arc::clone(&cut_now);
    let forward = std::thread::spawn(move || {
        let mut buffer = [0u8; 16 * 1024];
        while let Ok(n) = client_read.read(&mut buffer) {
            if buffer[..n].starts_with(b"POST ")
                && let Ok(mut state) = state.lock()
                && state.cut_posts > 0
            {
                state.cut_posts -= 1;
                cut_flag.store(true, std::sync::atomic::Ordering::SeqCst);
            }
            // A proxy taken down drops the connections it already holds too.
            let down = state.lock().map(|s| s.down).unwrap_or(true);
            if n == 0 || down || upstream_write.write_all(&buffer[..n]).is_err() {
                let _ = client_read.shutdown(std::net::Shutdown::Both);
                break;
            }
        }
        let _ = upstream_write.shutdown(std::net::Shutdown::Write);
    });
    let mut upstream_read = upstream;
    let mut client_write = client;
    let mut buffer = [0u8; 16 * 1024];
    while let Ok(n) = upstream_read.read(&mut buffer) {
        if n == 0 {
            break;
        }
        if cut_now.load(std::sync::atomic::Ordering::SeqCst) {
            // The server answered; the client never hears it.
            break;
        }
        if client_write.write_all(&buffer[..n]).is_err() {
            break;
        }
    }
    let _ = client_write.shutdown(std::net::Shutdown::Both);
    let _ = forward.join();
}

/// A small PNG of the given size, base64, made with the real encoder: a
/// photograph's stand-in.
pub fn png_base64(width: u32, height: u32) -> String {
    use base64::Engine as _;
    let mut image = image::RgbImage::new(width, height);
    for (x, _, pixel) in image.enumerate_pixels_mut() {
        *pixel = image::Rgb([(x % 256) as u8, 10, 200]);
    }
    let mut bytes = Vec::new();
    image::DynamicImage::ImageRgb8(image)
        .write_to(
            &mut std::io::Cursor::new(&mut bytes),
            image::ImageFormat::Png,
        )
        .expect("encodes");
    base64::engine::general_purpose::STANDARD.encode(bytes)
}

/// Runs `copydesk-server sync` once for `replica` against the central
/// server at `central_base`, as the user of `key`: whether it succeeded,
/// and what it printed.
pub fn sync_once(replica: &TestServer, central_base: &str, key: &KeyPair) -> (bool, String) {
    run_sync(&mut sync_command(replica, central_base, key))
}

/// The command `copydesk-server sync` for `replica` against `central_base`,
/// with `key` written to the replica's key file; not started yet.
pub fn sync_command(replica: &TestServer, central_base: &str, key: &KeyPair) -> Command {
    let key_file = replica.dir.path().join("remote-key.json");
    std::fs::write(&key_file, serde_json::to_string(key).expect("JSON"))
        .expect("writes the key file");
    let mut command = server_command();
    command
        .args(["sync", "--remote", central_base, "--key-file"])
        .arg(&key_file)
        .arg("--data")
        .arg(replica.dir.path());
    command
}

/// Runs a sync command to its end: whether it succeeded, and what it printed.
pub fn run_sync(command: &mut Command) -> (bool, String) {
    let output = command.output().expect("sync runs");
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
    (output.status.success(), text)
}

#[cfg(test)]
mod tests {
    use std::time::{Duration, SystemTime};

    fn touched(path: &std::path::Path, at: SystemTime) {
        std::fs::File::options()
            .write(true)
            .open(path)
            .and_then(|file| file.set_modified(at))
            .expect("the file's time set");
    }

    #[test]
    fn a_binary_is_stale_only_when_a_source_its_dep_info_lists_changed_after_it() {
        let dir = tempfile::tempdir().expect("a directory");
        let binary = dir.path().join("copydesk-server");
        let listed = dir.path().join("a source.rs");
        let unlisted = dir.path().join("tests.rs");
        for file in [&binary, &listed, &unlisted] {
            std::fs::write(file, "").expect("a file");
        }
        std::fs::write(
            binary.with_extension("d"),
            format!(
                "{}: {}\n",
                binary.display(),
                listed.display().to_string().replace(' ', "\\ ")
            ),
        )
        .expect("the dep-info");
        let built = SystemTime::now() - Duration::from_secs(60);
        touched(&binary, built);
        touched(&listed, built - Duration::from_secs(1));
        touched(&unlisted, built + Duration::from_secs(1));
        assert_eq!(super::source_newer_than(&binary), None);
        touched(&listed, built + Duration::from_secs(1));
        assert_eq!(super::source_newer_than(&binary), Some(listed));
    }
}
