//! `copydesk-server`: Copydesk's backend run headless, with the command line of the contract.

mod open_files;

use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::Arc;

use anyhow::{Context as _, Result};
use clap::{Args, Parser, Subcommand};
use copydesk_api::stop::StopRequests;
use copydesk_core::store::StartCheck;
use copydesk_core::{Cms, CoreError};

/// mimalloc rather than glibc's allocator: a story merged in sync or a
/// save is hundreds of thousands of small allocations freed at once, and
/// glibc's consolidation of them cost as much as the merge itself (see
/// docs/BENCHMARKS.md, "Merging a story").
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

#[derive(Parser)]
#[command(
    name = "copydesk-server",
    version,
    about = "Copydesk's /v3 service, headless"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Serve /v3 over HTTP.
    Serve(ServeArgs),
    /// Print a signed token for a key pair (the JSON `key create --json` prints).
    Token {
        /// The key pair file.
        #[arg(long, env = "COPYDESK_KEY_FILE")]
        key_file: PathBuf,
        /// How long the token is valid, in seconds.
        #[arg(long, default_value_t = 3600)]
        lifetime: i64,
    },
    /// Sync this data directory (a replica) with a central server: push local changes, pull remote ones.
    Sync(SyncArgs),
    /// Manage key pairs.
    Key {
        #[command(subcommand)]
        command: KeyCommand,
    },
    /// Let people sign in to the browser UI without a key: passwords and one-time links.
    User {
        #[command(subcommand)]
        command: UserCommand,
    },
    /// Check the whole database (SQLite's integrity_check and foreign keys;
    /// on PostgreSQL every table read, every index with amcheck when
    /// installed, every attachment's file); exits 0 when sound, 1 with the
    /// problems listed when not. Only reads, so it is safe beside a running
    /// server.
    Check {
        #[command(flatten)]
        data: DataArgs,
    },
    /// Empty the full-text search index and build it again from the stored
    /// stories, in batches (for a database whose index is in doubt; an
    /// upgraded one is indexed when it is first opened).
    ReindexSearch {
        #[command(flatten)]
        data: DataArgs,
    },
    /// Render every story's kept answer again, in batches (after an
    /// upgrade, rather than as each story is next written).
    RenderAnswers {
        #[command(flatten)]
        data: DataArgs,
    },
    /// Move a SQLite central server (a stopped one's data directory) into a
    /// new, empty PostgreSQL database (--database): every id, UUID,
    /// version, comment, file and the change feed's position, so its
    /// replicas keep syncing without starting over.
    Import {
        /// The SQLite server's data directory (holds copydesk.db and files/).
        #[arg(long)]
        from: PathBuf,
        #[command(flatten)]
        data: DataArgs,
    },
    /// Copy the database, live or not, to a new file: one consistent
    /// snapshot, checked once written. Attachment files are not in it: copy
    /// DIR/files beside it. (On PostgreSQL: pg_basebackup with WAL archiving.)
    Backup {
        #[command(flatten)]
        data: DataArgs,
        /// The file to write; it must not exist yet.
        #[arg(long)]
        to: PathBuf,
    },
}

#[derive(Args)]
struct DataArgs {
    /// The data directory (holds copydesk.db and the attachment files).
    #[arg(long, env = "COPYDESK_DATA")]
    data: Option<PathBuf>,
    /// The namespace of the SRNs this instance writes.
    #[arg(long, env = "COPYDESK_NAMESPACE", default_value = copydesk_core::DEFAULT_NAMESPACE)]
    namespace: String,
    /// Keep the data in this PostgreSQL database instead of copydesk.db (a
    /// libpq URL such as postgres://copydesk@db.internal/copydesk; the
    /// database must use the C locale). Attachment files stay in --data.
    #[arg(long, env = "COPYDESK_DATABASE_URL")]
    database: Option<String>,
}

/// A `--trusted-proxy` address, spaces around it allowed (`a, b` in the
/// environment variable).
fn proxy_address(text: &str) -> Result<std::net::IpAddr, String> {
    text.trim()
        .parse()
        .map_err(|err| format!("{text:?} is not an IP address: {err}"))
}

#[derive(Args)]
struct ServeArgs {
    /// Address to listen on; port 0 picks a free port.
    #[arg(long, env = "COPYDESK_LISTEN", default_value = "127.0.0.1:8080")]
    listen: SocketAddr,
    #[command(flatten)]
    data: DataArgs,
    /// The largest request body in bytes.
    #[arg(long, env = "COPYDESK_MAX_BODY", default_value_t = copydesk_api::DEFAULT_BODY_LIMIT)]
    max_body: usize,
    /// Seconds a client may pause while sending a request body before it is
    /// cut off with 408.
    #[arg(long, env = "COPYDESK_BODY_TIMEOUT", default_value_t = copydesk_api::BODY_IDLE_TIMEOUT.as_secs())]
    body_timeout: u64,
    /// Seconds a client has to send a request's line and headers (and that
    /// an idle kept-alive connection stays open) before it is closed.
    #[arg(long, env = "COPYDESK_HEADER_TIMEOUT", default_value_t = 20)]
    header_timeout: u64,
    /// Connections open at once; the next waits until one closes. By
    /// default as many as the open-files limit leaves room for (at most 16,384).
    #[arg(long, env = "COPYDESK_MAX_CONNECTIONS")]
    max_connections: Option<usize>,
    /// Keep this data directory synced with a central server in the background.
    #[arg(long, env = "COPYDESK_REMOTE")]
    remote: Option<String>,
    /// The remote user's key pair file (else COPYDESK_REMOTE_PUBLIC_KEY and COPYDESK_REMOTE_PRIVATE_KEY).
    #[arg(long, requires = "remote")]
    key_file: Option<PathBuf>,
    /// Milliseconds between background sync rounds.
    #[arg(long, default_value_t = 1000, requires = "remote")]
    sync_every_ms: u64,
    /// A reverse proxy in front of this server (an IP address; repeat, or
    /// separate with commas): for requests from it, the client is the
    /// address it forwarded in X-Forwarded-For (sign-in counts failures by
    /// it). Requests from any other address are taken as their own. The
    /// server's port must be reachable only through the proxy.
    #[arg(
        long = "trusted-proxy",
        env = "COPYDESK_TRUSTED_PROXIES",
        value_delimiter = ',',
        value_parser = proxy_address
    )]
    trusted_proxies: Vec<std::net::IpAddr>,
    /// Serve only the plain /v3 service (no change feed, no idempotency keys),
    /// as a remote that is not a Copydesk server would.
    #[arg(long)]
    plain: bool,
    /// When SQLite's quick_check reads the database at start: `before`
    /// serving (a damaged file is refused), `beside` serving (reads at once,
    /// writes once it passes), or `auto`: before up to 1 GiB, beside above.
    /// A replica (--remote) is always checked before.
    #[arg(long, env = "COPYDESK_START_CHECK", value_enum, default_value_t = StartCheckArg::Auto)]
    start_check: StartCheckArg,
}

/// `serve --start-check`.
#[derive(Clone, Copy, clap::ValueEnum)]
enum StartCheckArg {
    Before,
    Beside,
    Auto,
}

impl StartCheckArg {
    fn check(self) -> StartCheck {
        match self {
            Self::Before => StartCheck::Before,
            Self::Beside => StartCheck::Beside,
            Self::Auto => StartCheck::SERVER,
        }
    }
}

#[derive(Args)]
struct SyncArgs {
    #[command(flatten)]
    data: DataArgs,
    /// The central server's address, for example http://newsroom.example:8080.
    #[arg(long, env = "COPYDESK_REMOTE")]
    remote: String,
    /// The remote user's key pair, as `key create --json` printed it (else
    /// COPYDESK_REMOTE_PUBLIC_KEY and COPYDESK_REMOTE_PRIVATE_KEY).
    #[arg(long)]
    key_file: Option<PathBuf>,
    /// Keep syncing, every few seconds, until stopped.
    #[arg(long)]
    watch: bool,
    /// Seconds between rounds with --watch.
    #[arg(long, default_value_t = 5)]
    every: u64,
}

#[derive(Subcommand)]
enum KeyCommand {
    /// Create the user NAME if missing and a new key pair for it.
    Create {
        #[command(flatten)]
        data: DataArgs,
        /// The user's name.
        #[arg(long)]
        name: String,
        /// A role to grant (admin, editor, journalist, printdesk, reader); repeatable.
        #[arg(long = "role")]
        roles: Vec<String>,
        /// A single access action to grant, as "RESOURCE action"; repeatable.
        #[arg(long = "action")]
        actions: Vec<String>,
        /// Print exactly one JSON object with user_uuid, public_key and private_key.
        #[arg(long)]
        json: bool,
        /// Answer this key's requests for a single content item with a
        /// one-element array, as some clients of the hosted service read it.
        #[arg(long)]
        content_as_array: bool,
    },
    /// List user NAME's key pairs (public key, created, label); never their private keys.
    List {
        #[command(flatten)]
        data: DataArgs,
        /// The user's name.
        #[arg(long)]
        name: String,
    },
    /// Revoke a key pair: every token signed with it is refused from now on
    /// (a browser signed in with it is sent back to sign in).
    Revoke {
        #[command(flatten)]
        data: DataArgs,
        /// The key's public key (see `key list`).
        #[arg(long)]
        public_key: String,
    },
    /// Change how an existing key's answers are shaped.
    Set {
        #[command(flatten)]
        data: DataArgs,
        /// The key's public key.
        #[arg(long)]
        public_key: String,
        /// Single content items as one-element arrays (true) or objects (false).
        #[arg(long, action = clap::ArgAction::Set)]
        content_as_array: bool,
    },
}

#[derive(Subcommand)]
enum UserCommand {
    /// Set the password user NAME signs in to the browser UI with. It is read
    /// from standard input: typed without echo on a terminal, or the first
    /// line of what is piped in.
    Password {
        /// The user's name (made with `key create`).
        name: String,
        #[command(flatten)]
        data: DataArgs,
    },
    /// Print a one-time sign-in link for user NAME, valid once for 15 minutes.
    Link {
        /// The user's name (made with `key create`).
        name: String,
        #[command(flatten)]
        data: DataArgs,
        /// The address people open the UI at, for example https://desk.newsroom.example.
        #[arg(
            long,
            env = "COPYDESK_BASE_URL",
            default_value = "http://127.0.0.1:8080"
        )]
        base: String,
    },
}

impl DataArgs {
    fn dir(&self) -> Result<PathBuf> {
        match &self.data {
            Some(dir) => Ok(dir.clone()),
            None => directories::ProjectDirs::from("", "", "copydesk")
                .map(|dirs| dirs.data_dir().to_owned())
                .context("no data directory given (--data) and no platform data directory found"),
        }
    }

    /// Opens the store, the whole file checked first.
    fn open(&self) -> Result<(Cms, PathBuf)> {
        self.open_checked(StartCheck::Before)
    }

    /// Opens the store for a short command that writes a row or two (the
    /// `key` and `user` commands): a large file is checked only for its
    /// schema and free pages ([`StartCheck::COMMAND`]).
    fn open_for_a_few_rows(&self) -> Result<(Cms, PathBuf)> {
        self.open_checked(StartCheck::COMMAND)
    }

    /// [`DataArgs::open`], running SQLite's `quick_check` when `check` says.
    fn open_checked(&self, check: StartCheck) -> Result<(Cms, PathBuf)> {
        let dir = self.dir()?;
        let memory = copydesk_core::store::ReadMemory::SERVER;
        if let Some(url) = &self.database {
            let cms = Cms::open_postgres(url, &dir, &self.namespace, POSTGRES_CONNECTIONS)
                .context("opening the PostgreSQL database")?;
            return Ok((cms, dir));
        }
        let cms = match Cms::open_checked(&dir, &self.namespace, memory, check) {
            Ok(cms) => cms,
            Err(CoreError::Damaged(problems)) => anyhow::bail!(
                "{} is damaged, so it was not opened (SQLite's quick_check found {}; the first: {}). \
                 Nothing was written to it. Run `copydesk-server check --data {}` for the full report, \
                 then restore the newest backup (see `copydesk-server backup`).",
                copydesk_core::store::database_path(&dir).display(),
                problems.len(),
                problems.first().map_or("unreadable", String::as_str),
                dir.display()
            ),
            Err(err) => {
                return Err(err)
                    .with_context(|| format!("opening the data directory {}", dir.display()));
            }
        };
        Ok((cms, dir))
    }
}

/// The most connections one node holds to PostgreSQL.
const POSTGRES_CONNECTIONS: usize = 16;

/// How long a stop waits for requests still running before it checkpoints anyway.
const STOP_GRACE: std::time::Duration = std::time::Duration::from_secs(10);

/// How old a folder no attachment names must be before `check`, which may
/// run beside a serving server, removes it: an upload in flight is younger.
const ORPHANS_AGE_BESIDE_SERVING: std::time::Duration = std::time::Duration::from_secs(3600);

/// `check`: SQLite's full integrity check, printed for a person.
fn check(data: &DataArgs) -> Result<()> {
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
fn check_postgres(url: &str) -> Result<()> {
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
fn backup(data: &DataArgs, to: &std::path::Path) -> Result<()> {
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
fn import(from: &std::path::Path, data: &DataArgs) -> Result<()> {
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
        Command::Serve(args) => serve(args),
        Command::Check { data } => check(&data),
        Command::Backup { data, to } => backup(&data, &to),
        Command::Import { from, data } => import(&from, &data),
        Command::ReindexSearch { data } => {
            let (cms, _) = data.open()?;
            let started = std::time::Instant::now();
            let indexed = cms.rebuild_search_index()?;
            println!(
                "indexed {indexed} stories for search in {:.1} s",
                started.elapsed().as_secs_f64()
            );
            Ok(())
        }
        Command::RenderAnswers { data } => {
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
        Command::Sync(args) => sync(args),
        Command::User { command } => user(command),
        Command::Key {
            command: KeyCommand::List { data, name },
        } => {
            let (cms, _) = data.open_for_a_few_rows()?;
            for key in cms.list_keys(&name)? {
                let label = if key.label.is_empty() {
                    "made with key create"
                } else {
                    &key.label
                };
                println!("{}  {}  {label}", key.public_key, key.created_at);
            }
            Ok(())
        }
        Command::Key {
            command: KeyCommand::Revoke { data, public_key },
        } => {
            let (cms, _) = data.open_for_a_few_rows()?;
            cms.revoke_key(&public_key)?;
            println!("key {public_key} revoked: its tokens are refused from now on");
            Ok(())
        }
        Command::Token { key_file, lifetime } => {
            let text = std::fs::read_to_string(&key_file)
                .with_context(|| format!("reading the key file {}", key_file.display()))?;
            let key: serde_json::Value =
                serde_json::from_str(&text).context("the key file is not JSON")?;
            let field = |name: &str| {
                key[name]
                    .as_str()
                    .map(str::to_owned)
                    .with_context(|| format!("the key file has no {name}"))
            };
            let token = copydesk_core::access::mint_token(
                &field("public_key")?,
                &field("private_key")?,
                Some(lifetime),
            )?;
            println!("{token}");
            Ok(())
        }
        Command::Key {
            command:
                KeyCommand::Set {
                    data,
                    public_key,
                    content_as_array,
                },
        } => {
            let (cms, _) = data.open_for_a_few_rows()?;
            cms.set_key_content_as_array(&public_key, content_as_array)?;
            println!(
                "key {public_key}: single content items as {}",
                if content_as_array {
                    "one-element arrays"
                } else {
                    "objects"
                }
            );
            Ok(())
        }
        Command::Key {
            command:
                KeyCommand::Create {
                    data,
                    name,
                    roles,
                    actions,
                    json,
                    content_as_array,
                },
        } => {
            let (cms, _) = data.open_for_a_few_rows()?;
            let key = cms.create_key(&name, &roles, &actions)?;
            if content_as_array {
                cms.set_key_content_as_array(&key.public_key, true)?;
            }
            if json {
                println!(
                    "{}",
                    serde_json::json!({
                        "user_uuid": key.user_uuid,
                        "public_key": key.public_key,
                        "private_key": key.private_key,
                    })
                );
            } else {
                println!("user:        {name} ({})", key.user_uuid);
                println!("public key:  {}", key.public_key);
                println!("private key: {}", key.private_key);
                println!("Keep the private key safe: it is shown only now.");
            }
            Ok(())
        }
    }
}

/// `user password` and `user link`.
fn user(command: UserCommand) -> Result<()> {
    match command {
        UserCommand::Password { name, data } => {
            let password = read_password(&name)?;
            let (cms, _) = data.open_for_a_few_rows()?;
            cms.set_password(&name, &password)?;
            println!("{name} can now sign in with this password");
            Ok(())
        }
        UserCommand::Link { name, data, base } => {
            let (cms, _) = data.open_for_a_few_rows()?;
            let token = cms.make_sign_in_link(&name)?;
            println!("{}/#/sign-in/{token}", base.trim_end_matches('/'));
            eprintln!("The link signs {name} in once, within 15 minutes.");
            Ok(())
        }
    }
}

/// The password from standard input: without echo from a terminal (asked
/// twice), else the first line piped in.
fn read_password(name: &str) -> Result<String> {
    use std::io::{BufRead as _, IsTerminal as _};
    if std::io::stdin().is_terminal() {
        let first = rpassword::prompt_password(format!("New password for {name}: "))
            .context("reading the password")?;
        let again =
            rpassword::prompt_password("The same again: ").context("reading the password")?;
        anyhow::ensure!(
            first == again,
            "the two passwords differ; nothing was changed"
        );
        return Ok(first);
    }
    let mut line = String::new();
    std::io::stdin()
        .lock()
        .read_line(&mut line)
        .context("reading the password from standard input")?;
    let password = line.trim_end_matches(['\n', '\r']).to_owned();
    anyhow::ensure!(!password.is_empty(), "no password on standard input");
    Ok(password)
}

/// A replica keeps its own copy on SQLite, as the desktop app does: only a
/// central server runs on PostgreSQL.
const REPLICAS_ON_SQLITE: &str =
    "a replica (--remote) keeps its data in SQLite; --database is for a central server";

fn serve(args: ServeArgs) -> Result<()> {
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
fn finish_cleanly(cms: &Cms) {
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

fn sync(args: SyncArgs) -> Result<()> {
    anyhow::ensure!(args.data.database.is_none(), REPLICAS_ON_SQLITE);
    let (cms, _) = args.data.open()?;
    let key = match &args.key_file {
        Some(file) => copydesk_sync::RemoteKey::from_file(file)?,
        None => copydesk_sync::RemoteKey::from_env()?,
    };
    let remote = copydesk_sync::Remote::new(&args.remote, key)?;
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
            tokio::select! {
                () = tokio::time::sleep(std::time::Duration::from_secs(args.every.max(1))) => {}
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
async fn not_synced(cms: &Arc<Cms>) -> String {
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
struct SyncBar {
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
