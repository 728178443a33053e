//! The command line: every command, its flags and the data directory or database each opens.

use std::net::SocketAddr;
use std::path::PathBuf;

use anyhow::{Context as _, Result};
use clap::{Args, Parser, Subcommand};
use copydesk_core::store::StartCheck;
use copydesk_core::{Cms, CoreError};

#[derive(Parser)]
#[command(
    name = "copydesk-server",
    version,
    about = "Copydesk's /v3 service, headless"
)]
pub(crate) struct Cli {
    #[command(subcommand)]
    pub(crate) command: Command,
}

#[derive(Subcommand)]
pub(crate) enum Command {
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
pub(crate) struct DataArgs {
    /// The data directory (holds copydesk.db and the attachment files).
    #[arg(long, env = "COPYDESK_DATA")]
    pub(crate) data: Option<PathBuf>,
    /// The namespace of the SRNs this instance writes.
    #[arg(long, env = "COPYDESK_NAMESPACE", default_value = copydesk_core::DEFAULT_NAMESPACE)]
    pub(crate) namespace: String,
    /// Keep the data in this PostgreSQL database instead of copydesk.db (a
    /// libpq URL such as postgres://copydesk@db.internal/copydesk; the
    /// database must use the C locale). Attachment files stay in --data.
    #[arg(long, env = "COPYDESK_DATABASE_URL")]
    pub(crate) database: Option<String>,
}

/// A `--trusted-proxy` address, spaces around it allowed (`a, b` in the
/// environment variable).
pub(crate) fn proxy_address(text: &str) -> Result<std::net::IpAddr, String> {
    text.trim()
        .parse()
        .map_err(|err| format!("{text:?} is not an IP address: {err}"))
}

#[derive(Args)]
pub(crate) struct ServeArgs {
    /// Address to listen on; port 0 picks a free port.
    #[arg(long, env = "COPYDESK_LISTEN", default_value = "127.0.0.1:8080")]
    pub(crate) listen: SocketAddr,
    #[command(flatten)]
    pub(crate) data: DataArgs,
    /// The largest request body in bytes.
    #[arg(long, env = "COPYDESK_MAX_BODY", default_value_t = copydesk_api::DEFAULT_BODY_LIMIT)]
    pub(crate) max_body: usize,
    /// Seconds a client may pause while sending a request body before it is
    /// cut off with 408.
    #[arg(long, env = "COPYDESK_BODY_TIMEOUT", default_value_t = copydesk_api::BODY_IDLE_TIMEOUT.as_secs())]
    pub(crate) body_timeout: u64,
    /// Seconds a client has to send a request's line and headers (and that
    /// an idle kept-alive connection stays open) before it is closed.
    #[arg(long, env = "COPYDESK_HEADER_TIMEOUT", default_value_t = 20)]
    pub(crate) header_timeout: u64,
    /// Connections open at once; the next waits until one closes. By
    /// default as many as the open-files limit leaves room for (at most 16,384).
    #[arg(long, env = "COPYDESK_MAX_CONNECTIONS")]
    pub(crate) max_connections: Option<usize>,
    /// Seconds someone stays listed in a story after their client last said
    /// it is there (`PUT /v3/presence/{uuid}`).
    #[arg(long, env = "COPYDESK_PRESENCE_EXPIRY", default_value_t = copydesk_core::presence::DEFAULT_EXPIRY.as_secs())]
    pub(crate) presence_expiry: u64,
    /// Keep this data directory synced with a central server in the background.
    #[arg(long, env = "COPYDESK_REMOTE")]
    pub(crate) remote: Option<String>,
    /// The remote user's key pair file (else COPYDESK_REMOTE_PUBLIC_KEY and COPYDESK_REMOTE_PRIVATE_KEY).
    #[arg(long, requires = "remote")]
    pub(crate) key_file: Option<PathBuf>,
    /// Milliseconds between background sync rounds.
    #[arg(long, default_value_t = 1000, requires = "remote")]
    pub(crate) sync_every_ms: u64,
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
    pub(crate) trusted_proxies: Vec<std::net::IpAddr>,
    /// Serve only the plain /v3 service (no change feed, no idempotency keys),
    /// as a remote that is not a Copydesk server would.
    #[arg(long)]
    pub(crate) plain: bool,
    /// When SQLite's quick_check reads the database at start: `before`
    /// serving (a damaged file is refused), `beside` serving (reads at once,
    /// writes once it passes), or `auto`: before up to 1 GiB, beside above.
    /// A replica (--remote) is always checked before.
    #[arg(long, env = "COPYDESK_START_CHECK", value_enum, default_value_t = StartCheckArg::Auto)]
    pub(crate) start_check: StartCheckArg,
}

/// `serve --start-check`.
#[derive(Clone, Copy, clap::ValueEnum)]
pub(crate) enum StartCheckArg {
    Before,
    Beside,
    Auto,
}

impl StartCheckArg {
    pub(crate) fn check(self) -> StartCheck {
        match self {
            Self::Before => StartCheck::Before,
            Self::Beside => StartCheck::Beside,
            Self::Auto => StartCheck::SERVER,
        }
    }
}

#[derive(Args)]
pub(crate) struct SyncArgs {
    #[command(flatten)]
    pub(crate) data: DataArgs,
    /// The central server's address, for example http://newsroom.example:8080.
    #[arg(long, env = "COPYDESK_REMOTE")]
    pub(crate) remote: String,
    /// The remote user's key pair, as `key create --json` printed it (else
    /// COPYDESK_REMOTE_PUBLIC_KEY and COPYDESK_REMOTE_PRIVATE_KEY).
    #[arg(long)]
    pub(crate) key_file: Option<PathBuf>,
    /// Keep syncing, every few seconds, until stopped.
    #[arg(long)]
    pub(crate) watch: bool,
    /// Seconds between rounds with --watch.
    #[arg(long, default_value_t = 5)]
    pub(crate) every: u64,
}

#[derive(Subcommand)]
pub(crate) enum KeyCommand {
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
pub(crate) enum UserCommand {
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
    pub(crate) fn dir(&self) -> Result<PathBuf> {
        match &self.data {
            Some(dir) => Ok(dir.clone()),
            None => directories::ProjectDirs::from("", "", "copydesk")
                .map(|dirs| dirs.data_dir().to_owned())
                .context("no data directory given (--data) and no platform data directory found"),
        }
    }

    /// Opens the store, the whole file checked first.
    pub(crate) fn open(&self) -> Result<(Cms, PathBuf)> {
        self.open_checked(StartCheck::Before)
    }

    /// Opens the store for a short command that writes a row or two (the
    /// `key` and `user` commands): a large file is checked only for its
    /// schema and free pages ([`StartCheck::COMMAND`]).
    pub(crate) fn open_for_a_few_rows(&self) -> Result<(Cms, PathBuf)> {
        self.open_checked(StartCheck::COMMAND)
    }

    /// [`DataArgs::open`], running SQLite's `quick_check` when `check` says.
    pub(crate) fn open_checked(&self, check: StartCheck) -> Result<(Cms, PathBuf)> {
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
pub(crate) const POSTGRES_CONNECTIONS: usize = 16;
