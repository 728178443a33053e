//! A real PostgreSQL server for the suites: Debian's binaries, started once
//! per test process in a temporary directory, one fresh database per server.
//!
//! `COPYDESK_TEST_DATABASE=postgres` makes every [`crate::TestServer`] run
//! on PostgreSQL. The cluster is made with `initdb` as the `postgres` user
//! when the tests run as root (PostgreSQL refuses root), listens on a free
//! loopback port, and is stopped by a watchdog once the test process exits.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::OnceLock;
use std::sync::atomic::{AtomicUsize, Ordering};

use anyhow::{Context as _, Result, bail};

/// What PostgreSQL logs after a death, naming the statement that ran.
const RUNNING: &str = "Failed process was running";

/// Where Debian puts PostgreSQL 15's programs.
const BIN: &str = "/usr/lib/postgresql/15/bin";

/// Whether the suites run on PostgreSQL (`COPYDESK_TEST_DATABASE=postgres`).
pub fn on_postgres() -> bool {
    std::env::var("COPYDESK_TEST_DATABASE").is_ok_and(|v| v == "postgres")
}

/// A running cluster.
pub struct Cluster {
    pub port: u16,
    pub dir: PathBuf,
    /// How many deaths of its processes its log told of when a test last
    /// looked (see [`Cluster::createdb`]).
    deaths_told: AtomicUsize,
}

static CLUSTER: OnceLock<Cluster> = OnceLock::new();
static DATABASES: AtomicUsize = AtomicUsize::new(0);

/// The test process's cluster, started on first use.
pub fn cluster() -> &'static Cluster {
    CLUSTER.get_or_init(|| Cluster::start(&[]).expect("a PostgreSQL cluster starts"))
}

/// A new, empty database on the process's cluster, made with a plain
/// `createdb` in the cluster's default locale (C.UTF-8, as a stock Debian
/// cluster's); its URL.
pub fn fresh_database() -> String {
    let cluster = cluster();
    let name = format!(
        "copydesk_{}_{}",
        std::process::id(),
        DATABASES.fetch_add(1, Ordering::Relaxed)
    );
    cluster.create_database(&name).expect("a fresh database");
    cluster.url(&name)
}

fn as_postgres(program: &str) -> Command {
    let path = Path::new(BIN).join(program);
    // SAFETY-free check of who we are: `id -u` is 0 for root.
    let root = Command::new("id")
        .arg("-u")
        .output()
        .is_ok_and(|out| String::from_utf8_lossy(&out.stdout).trim() == "0");
    if root {
        let mut command = Command::new("runuser");
        command.args(["-u", "postgres", "--"]).arg(path);
        command
    } else {
        Command::new(path)
    }
}

fn run(mut command: Command, what: &str) -> Result<()> {
    let output = command
        .stdin(Stdio::null())
        .output()
        .with_context(|| format!("running {what}"))?;
    if !output.status.success() {
        bail!(
            "{what} failed: {}{}",
            String::from_utf8_lossy(&output.stdout),
            String::from_utf8_lossy(&output.stderr)
        );
    }
    Ok(())
}

fn free_port() -> Result<u16> {
    let listener = std::net::TcpListener::bind("127.0.0.1:0")?;
    Ok(listener.local_addr()?.port())
}

impl Cluster {
    /// Makes and starts a cluster with extra `postgres -c` settings; it is
    /// stopped and removed when this test process ends.
    pub fn start(settings: &[&str]) -> Result<Self> {
        let dir = tempfile::Builder::new()
            .prefix("copydesk-pg")
            .tempdir()?
            .keep();
        let _ = Command::new("chown").arg("postgres").arg(&dir).status();
        let data = dir.join("db");
        let mut initdb = as_postgres("initdb");
        initdb.arg("-D").arg(&data).args([
            "-A",
            "trust",
            "-U",
            "postgres",
            // A stock Debian cluster's default, which a plain `createdb` takes.
            "--locale=C.UTF-8",
            "--encoding=UTF8",
            "--data-checksums",
        ]);
        run(initdb, "initdb")?;
        let port = free_port()?;
        let mut options = format!(
            "-p {port} -k {} -c listen_addresses=127.0.0.1 -c fsync=off -c max_connections=200",
            dir.display()
        );
        for setting in settings {
            options.push_str(" -c ");
            options.push_str(setting);
        }
        let mut start = as_postgres("pg_ctl");
        start
            .arg("-D")
            .arg(&data)
            .arg("-o")
            .arg(&options)
            .arg("-l")
            .arg(dir.join("pg.log"))
            .args(["-w", "start"]);
        run(start, "pg_ctl start")?;
        watch_for_exit(&dir, &data)?;
        Ok(Self {
            port,
            dir,
            deaths_told: AtomicUsize::new(0),
        })
    }

    /// A streaming standby of this cluster (`pg_basebackup`), started on a
    /// port of its own.
    pub fn standby(&self) -> Result<Self> {
        let dir = tempfile::Builder::new()
            .prefix("copydesk-pg-standby")
            .tempdir()?
            .keep();
        let _ = Command::new("chown").arg("postgres").arg(&dir).status();
        let data = dir.join("db");
        let mut backup = as_postgres("pg_basebackup");
        backup
            .args([
                "-h",
                "127.0.0.1",
                "-U",
                "postgres",
                "-R",
                "--checkpoint=fast",
                "-X",
                "stream",
                "-p",
            ])
            .arg(self.port.to_string())
            .arg("-D")
            .arg(&data);
        run(backup, "pg_basebackup")?;
        let port = free_port()?;
        let mut start = as_postgres("pg_ctl");
        start
            .arg("-D")
            .arg(&data)
            .arg("-o")
            .arg(format!(
                "-p {port} -k {} -c listen_addresses=127.0.0.1 -c max_connections=200 -c hot_standby=on",
                dir.display()
            ))
            .arg("-l")
            .arg(dir.join("pg.log"))
            .args(["-w", "start"]);
        run(start, "pg_ctl start (standby)")?;
        watch_for_exit(&dir, &data)?;
        Ok(Self {
            port,
            dir,
            deaths_told: AtomicUsize::new(0),
        })
    }

    /// Runs one SQL statement on the cluster's `postgres` database; its output.
    pub fn sql(&self, statement: &str) -> Result<String> {
        let output = Command::new(Path::new(BIN).join("psql"))
            .args([
                "-h",
                "127.0.0.1",
                "-U",
                "postgres",
                "-d",
                "postgres",
                "-At",
                "-p",
            ])
            .arg(self.port.to_string())
            .arg("-c")
            .arg(statement)
            .stdin(Stdio::null())
            .output()
            .context("running psql")?;
        if !output.status.success() {
            bail!("psql failed: {}", String::from_utf8_lossy(&output.stderr));
        }
        Ok(String::from_utf8_lossy(&output.stdout).trim().to_owned())
    }

    /// Makes every commit wait for a standby's flush, and waits until the
    /// standby is attached as synchronous.
    pub fn require_synchronous_standby(&self) -> Result<()> {
        self.sql("ALTER SYSTEM SET synchronous_standby_names = '*'")?;
        self.sql("SELECT pg_reload_conf()")?;
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(30);
        loop {
            if self.sql("SELECT sync_state FROM pg_stat_replication")? == "sync" {
                return Ok(());
            }
            if std::time::Instant::now() > deadline {
                bail!("the standby never became synchronous");
            }
            std::thread::sleep(std::time::Duration::from_millis(100));
        }
    }

    /// Kills the cluster's postmaster and every process it started with
    /// SIGKILL: a machine lost, nothing shut down.
    pub fn kill(&self) -> Result<()> {
        let pid = std::fs::read_to_string(self.dir.join("db").join("postmaster.pid"))?;
        let pid = pid.lines().next().context("a pid")?.trim().to_owned();
        let children = Command::new("pgrep").args(["-P", &pid]).output()?;
        let mut kill = Command::new("kill");
        kill.arg("-KILL").arg(&pid);
        kill.args(String::from_utf8_lossy(&children.stdout).split_whitespace());
        run(kill, "kill")
    }

    /// Promotes a standby to primary.
    pub fn promote(&self) -> Result<()> {
        let mut promote = as_postgres("pg_ctl");
        promote
            .arg("-D")
            .arg(self.dir.join("db"))
            .args(["-w", "promote"]);
        run(promote, "pg_ctl promote")
    }

    pub fn url(&self, database: &str) -> String {
        format!("postgres://postgres@127.0.0.1:{}/{database}", self.port)
    }

    /// A database made as an operator's first step does: a plain `createdb`.
    pub fn create_database(&self, name: &str) -> Result<()> {
        self.createdb(name, &[])
    }

    /// A database made in `locale` (`en_US.UTF-8`, as managed services make them).
    pub fn create_database_in_locale(&self, name: &str, locale: &str) -> Result<()> {
        self.createdb(
            name,
            &[
                format!("--locale={locale}"),
                "--template=template0".to_owned(),
            ],
        )
    }

    /// Runs `createdb`. A cluster restarting after one of its processes
    /// died (it answers "not yet accepting connections" until its WAL is
    /// replayed) is waited for, at most a minute; then the first database
    /// asked for since the death fails, with what the log says of it. So a
    /// crash is seen by the next test that asks for a database, and fails
    /// the tests running beside it and that one, not every test after it.
    fn createdb(&self, name: &str, options: &[String]) -> Result<()> {
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(60);
        loop {
            let mut createdb = Command::new(Path::new(BIN).join("createdb"));
            createdb
                .args(["-h", "127.0.0.1", "-U", "postgres"])
                .args(options)
                .arg("-p")
                .arg(self.port.to_string())
                .arg(name);
            let made = run(createdb, "createdb");
            let restarting = made.as_ref().is_err_and(|err| {
                [
                    "not yet accepting connections",
                    "is starting up",
                    "in recovery mode",
                ]
                .iter()
                .any(|words| err.to_string().contains(words))
            });
            if restarting && std::time::Instant::now() < deadline {
                std::thread::sleep(std::time::Duration::from_millis(200));
                continue;
            }
            let lines = self.death_lines();
            let deaths = lines.iter().filter(|line| !line.contains(RUNNING)).count();
            if deaths > self.deaths_told.swap(deaths, Ordering::Relaxed) {
                let told = format!(
                    "the PostgreSQL cluster lost a process:\n{}",
                    lines.join("\n")
                );
                return Err(match made {
                    Ok(()) => anyhow::anyhow!(told),
                    Err(err) => err.context(told),
                });
            }
            return made;
        }
    }

    /// The lines of the cluster's log that say one of its processes died
    /// (one line a death), each with the statement it was running.
    fn death_lines(&self) -> Vec<String> {
        let log = std::fs::read_to_string(self.dir.join("pg.log")).unwrap_or_default();
        log.lines()
            .filter(|line| {
                ["terminated by signal", "PANIC:", RUNNING]
                    .iter()
                    .any(|words| line.contains(words))
            })
            .map(str::to_owned)
            .collect()
    }
}

/// Stops the cluster in `data` and removes `dir` once this process is gone.
fn watch_for_exit(dir: &Path, data: &Path) -> Result<()> {
    let script = format!(
        "while kill -0 {pid} 2>/dev/null; do sleep 1; done; {stop} -D '{data}' -m immediate stop >/dev/null 2>&1; rm -rf '{dir}'",
        pid = std::process::id(),
        stop = if Command::new("id")
            .arg("-u")
            .output()
            .is_ok_and(|out| String::from_utf8_lossy(&out.stdout).trim() == "0")
        {
            format!("runuser -u postgres -- {BIN}/pg_ctl")
        } else {
            format!("{BIN}/pg_ctl")
        },
        data = data.display(),
        dir = dir.display(),
    );
    Command::new("setsid")
        .args(["sh", "-c", &script])
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .context("starting the cluster's watchdog")?;
    Ok(())
}
