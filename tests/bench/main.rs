//! `copydesk-bench`: drives the real `copydesk-server` over loopback HTTP and prints latency and throughput.
//!
//! It starts the server on a fresh data directory (SQLite), or on a fresh
//! PostgreSQL database of its own cluster (`--database postgres`, durable
//! settings: fsync and synchronous commit on), with `--nodes` servers on it
//! taking requests in turn as a proxy would hand them out; creates the
//! content items (the create figures), then reads single items and pages of
//! 50. With `--files`, it then uploads attachment files and reads each back
//! twice: first from a node other than the one that took it (with several
//! nodes on PostgreSQL, a read from the database into that node's cache),
//! then again. The load comes from one thread with `--clients` concurrent
//! keep-alive connections. With `--beside-pgbench SECONDS` (PostgreSQL,
//! two nodes or more) it times creates alone, side by side with `pgbench`
//! making the same three inserts on the same database: pgbench, creates on
//! one node, creates on every node in turn, pgbench again; with
//! `--top-statements N`, the N statements that took most of PostgreSQL's
//! time during the creates (`pg_stat_statements`, triggers' included).

mod pgbench;

use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::time::{Duration, Instant};

use anyhow::{Context as _, Result, ensure};
use clap::Parser;
use copydesk_tests::TestServer;
use serde_json::json;

#[derive(Parser)]
#[command(about = "Benchmark copydesk-server over loopback HTTP")]
struct Args {
    /// Content items to create (and to list from).
    #[arg(long, default_value_t = 100_000)]
    items: usize,
    /// Single-item GETs to time.
    #[arg(long, default_value_t = 50_000)]
    reads: usize,
    /// List requests to time.
    #[arg(long, default_value_t = 2_000)]
    lists: usize,
    /// Concurrent clients (each a thread with a keep-alive connection).
    #[arg(long, default_value_t = 4)]
    clients: usize,
    /// Time creates alone, against pgbench run this many seconds before and after.
    #[arg(long, default_value_t = 0)]
    beside_pgbench: u64,
    /// With `--beside-pgbench`: print the statements (triggers' included)
    /// that took the most of PostgreSQL's time during the creates, this many.
    #[arg(long, default_value_t = 0)]
    top_statements: usize,
    /// Where the data lives: sqlite or postgres.
    #[arg(long, default_value = "sqlite")]
    database: String,
    /// Servers on the one PostgreSQL database, taking requests in turn.
    #[arg(long, default_value_t = 1)]
    nodes: usize,
    /// Attachment files to upload and read back (0: none).
    #[arg(long, default_value_t = 0)]
    files: usize,
    /// Size of each attachment file, in KiB.
    #[arg(long, default_value_t = 1024)]
    file_kib: usize,
}

struct Figures {
    name: String,
    latencies: Vec<Duration>,
    wall: Duration,
}

impl Figures {
    fn print(&mut self) {
        self.latencies.sort();
        let n = self.latencies.len();
        let at = |q: f64| self.latencies[((n as f64 * q).ceil() as usize).clamp(1, n) - 1];
        println!(
            "{:<34} {:>8} req  p50 {:>8.3} ms  p99 {:>8.3} ms  {:>9.0} req/s",
            self.name,
            n,
            at(0.50).as_secs_f64() * 1e3,
            at(0.99).as_secs_f64() * 1e3,
            n as f64 / self.wall.as_secs_f64()
        );
    }
}

/// One timed request: the client, the request's index; true when it succeeded.
type Request =
    Arc<dyn Fn(reqwest::Client, usize) -> Pin<Box<dyn Future<Output = bool> + Send>> + Send + Sync>;

/// Runs `total` requests over `clients` concurrent connections on one client
/// thread, so the load generator takes as little of the machine as it can.
fn run(
    runtime: &tokio::runtime::Runtime,
    name: &str,
    total: usize,
    clients: usize,
    request: Request,
) -> Result<Figures> {
    runtime.block_on(async move {
        let client = reqwest::Client::builder()
            .timeout(Duration::from_secs(30))
            .pool_max_idle_per_host(clients)
            .build()?;
        let started = Instant::now();
        let mut tasks = Vec::with_capacity(clients);
        for c in 0..clients {
            let client = client.clone();
            let request = Arc::clone(&request);
            tasks.push(tokio::spawn(async move {
                let mut latencies = Vec::with_capacity(total / clients + 1);
                let mut i = c;
                while i < total {
                    let t = Instant::now();
                    ensure!(request(client.clone(), i).await, "request {i} failed");
                    latencies.push(t.elapsed());
                    i += clients;
                }
                Ok::<_, anyhow::Error>(latencies)
            }));
        }
        let mut latencies = Vec::with_capacity(total);
        for task in tasks {
            latencies.extend(task.await??);
        }
        Ok(Figures {
            name: name.to_owned(),
            latencies,
            wall: started.elapsed(),
        })
    })
}

/// A GET of `path(i)` that succeeds with a 2xx and a fully read body; the
/// nodes in `bases` take the requests in turn.
fn get_request(
    bases: Arc<Vec<String>>,
    token: Arc<String>,
    path: impl Fn(usize) -> String + Send + Sync + 'static,
) -> Request {
    let path = Arc::new(path);
    Arc::new(move |client, i| {
        let url = format!("{}{}", bases[i % bases.len()], path(i));
        let token = Arc::clone(&token);
        Box::pin(async move {
            match client.get(url).bearer_auth(token.as_str()).send().await {
                Ok(response) => response.status().is_success() && response.bytes().await.is_ok(),
                Err(_) => false,
            }
        })
    })
}

/// A POST of `body(i)` to `/v3/content` that succeeds when the answer
/// holds a string at `pointer` (a JSON pointer), kept in `kept[i]`; the
/// nodes in `bases` take the requests in turn.
fn create_request(
    bases: Arc<Vec<String>>,
    token: Arc<String>,
    kept: Arc<std::sync::Mutex<Vec<String>>>,
    pointer: &'static str,
    body: impl Fn(usize) -> serde_json::Value + Send + Sync + 'static,
) -> Request {
    let body = Arc::new(body);
    Arc::new(move |client, i| {
        let url = format!("{}/v3/content", bases[i % bases.len()]);
        let (token, kept, body) = (Arc::clone(&token), Arc::clone(&kept), Arc::clone(&body));
        Box::pin(async move {
            let Ok(response) = client
                .post(url)
                .bearer_auth(token.as_str())
                .json(&body(i))
                .send()
                .await
            else {
                return false;
            };
            let Ok(value) = response.json::<serde_json::Value>().await else {
                return false;
            };
            match (value.pointer(pointer).and_then(|v| v.as_str()), kept.lock()) {
                (Some(found), Ok(mut all)) => {
                    all[i] = found.to_owned();
                    true
                }
                _ => false,
            }
        })
    })
}

fn main() -> Result<()> {
    copydesk_tests::measuring();
    let args = Args::parse();
    ensure!(
        args.top_statements == 0 || args.beside_pgbench > 0,
        "--top-statements goes with --beside-pgbench"
    );
    let (_cluster, servers) = match args.database.as_str() {
        "sqlite" => {
            ensure!(args.nodes == 1, "several nodes need --database postgres");
            (None, vec![TestServer::start_replica()])
        }
        "postgres" => {
            ensure!(args.nodes >= 1, "at least one node");
            // A newsroom's settings, not a test's: every commit on disk.
            let mut settings = vec![
                "fsync=on",
                "synchronous_commit=on",
                "shared_buffers=512MB",
                "random_page_cost=1.1",
                // A newsroom's tables grow slowly beside autovacuum, so
                // their statistics (and the plans cached from them) follow
                // their size; this database grows from empty by thousands
                // of stories in seconds, and with the default minute
                // between analyses each node would plan its reads by id
                // for a table of a few hundred rows: a scan of all of it.
                "autovacuum_naptime=1s",
            ];
            if args.top_statements > 0 {
                settings.extend([
                    "shared_preload_libraries=pg_stat_statements",
                    "pg_stat_statements.track=all",
                ]);
            }
            let cluster = copydesk_tests::postgres::Cluster::start(&settings)?;
            cluster.create_database("bench")?;
            let first = TestServer::start_on_database(&cluster.url("bench"));
            let mut servers = vec![];
            for _ in 1..args.nodes {
                servers.push(TestServer::start_beside(&first));
            }
            servers.insert(0, first);
            (Some(cluster), servers)
        }
        other => anyhow::bail!("--database is sqlite or postgres, not {other}"),
    };
    let server = &servers[0];
    let bases = Arc::new(servers.iter().map(|s| s.base.clone()).collect::<Vec<_>>());
    let token = Arc::new(server.admin_token().to_owned());
    println!(
        "copydesk-bench: {} items, {} clients, {} on {} node(s) {}",
        args.items,
        args.clients,
        args.database,
        servers.len(),
        bases.join(" ")
    );

    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()?;
    if args.beside_pgbench > 0 {
        let cluster = _cluster
            .as_ref()
            .context("--beside-pgbench needs --database postgres")?;
        return beside_pgbench(&runtime, &args, cluster, &bases, &token);
    }
    let uuids = Arc::new(std::sync::Mutex::new(vec![String::new(); args.items]));
    let create = create_request(
        Arc::clone(&bases),
        Arc::clone(&token),
        Arc::clone(&uuids),
        "/uuid",
        |i| {
            json!({"title": format!("Item {i}: council votes on budget"), "type": "article",
                   "abstract": "A short summary.", "content": "<p>Body text of the article.</p>"})
        },
    );
    run(
        &runtime,
        "create content item",
        args.items,
        args.clients,
        create,
    )?
    .print();
    let uuids: Arc<Vec<String>> = Arc::new(
        uuids
            .lock()
            .map_err(|_| anyhow::anyhow!("poisoned"))?
            .clone(),
    );

    let get = {
        let uuids = Arc::clone(&uuids);
        get_request(Arc::clone(&bases), Arc::clone(&token), move |i| {
            format!("/v3/content/{}", uuids[i.wrapping_mul(7919) % uuids.len()])
        })
    };
    run(
        &runtime,
        "GET one content item",
        args.reads,
        args.clients,
        get,
    )?
    .print();

    let first_page = get_request(Arc::clone(&bases), Arc::clone(&token), |_| {
        "/v3/content?per_page=50".to_owned()
    });
    run(
        &runtime,
        "list 50 (page 1)",
        args.lists,
        args.clients,
        first_page,
    )?
    .print();

    let pages = args.items.div_ceil(50).max(1);
    let any_page = get_request(Arc::clone(&bases), Arc::clone(&token), move |i| {
        format!(
            "/v3/content?per_page=50&page={}",
            1 + i.wrapping_mul(104_729) % pages
        )
    });
    run(
        &runtime,
        "list 50 (random page)",
        args.lists,
        args.clients,
        any_page,
    )?
    .print();

    if args.files > 0 {
        files(&runtime, &args, &bases, &token)?;
    }

    let check = server.get("/v3/content?per_page=1").body["total_items"]
        .as_u64()
        .context("a count")?;
    ensure!(
        check == (args.items + args.files) as u64,
        "expected {} items, found {check}",
        args.items + args.files
    );
    Ok(())
}

/// Creates a story as the create figures do, keeping nothing of the answer.
fn story_create(bases: Arc<Vec<String>>, token: &Arc<String>, items: usize) -> Request {
    let kept = Arc::new(std::sync::Mutex::new(vec![String::new(); items]));
    create_request(bases, Arc::clone(token), kept, "/uuid", |i| {
        json!({"title": format!("Item {i}: council votes on budget"), "type": "article",
               "abstract": "A short summary.", "content": "<p>Body text of the article.</p>"})
    })
}

/// `--beside-pgbench`: pgbench, `--items` creates on the first node, as
/// many on every node in turn, pgbench again; then the rates side by side.
fn beside_pgbench(
    runtime: &tokio::runtime::Runtime,
    args: &Args,
    cluster: &copydesk_tests::postgres::Cluster,
    bases: &Arc<Vec<String>>,
    token: &Arc<String>,
) -> Result<()> {
    ensure!(
        bases.len() >= 2,
        "--beside-pgbench compares one node with several"
    );
    let url = cluster.url("bench");
    pgbench::prepare(&url)?;
    let before = pgbench::transactions_a_second(&url, args.clients, args.beside_pgbench)?;
    println!(
        "pgbench, the three inserts, {} clients: {before:.0} transactions/s",
        args.clients
    );
    if args.top_statements > 0 {
        cluster.sql("CREATE EXTENSION pg_stat_statements")?;
        cluster.sql("SELECT pg_stat_statements_reset()")?;
    }
    let one = Arc::new(bases[..1].to_vec());
    let mut rates = vec![];
    for (name, nodes) in [
        ("create, 1 node", one),
        ("create, every node in turn", Arc::clone(bases)),
    ] {
        let mut figures = run(
            runtime,
            name,
            args.items,
            args.clients,
            story_create(nodes, token, args.items),
        )?;
        figures.print();
        rates.push(args.items as f64 / figures.wall.as_secs_f64());
    }
    if args.top_statements > 0 {
        println!("the statements that took most of PostgreSQL's time during the creates:");
        println!(
            "{}",
            cluster.sql(&format!(
                "SELECT round(total_exec_time)::text || ' ms, ' || calls || ' calls, ' || \
                 round((total_exec_time / calls)::numeric, 3) || ' ms each: ' || \
                 left(regexp_replace(query, '\\s+', ' ', 'g'), 160) \
                 FROM pg_stat_statements WHERE query NOT LIKE '%pgbench%' \
                 ORDER BY total_exec_time DESC LIMIT {}",
                args.top_statements
            ))?
        );
    }
    let after = pgbench::transactions_a_second(&url, args.clients, args.beside_pgbench)?;
    println!("pgbench again: {after:.0} transactions/s");
    let pgbench = (before + after) / 2.0;
    println!(
        "creates against pgbench's mean: 1 node {:.1}%, {} nodes {:.1}%; {} nodes / 1 node: {:.2}",
        100.0 * rates[0] / pgbench,
        bases.len(),
        100.0 * rates[1] / pgbench,
        bases.len(),
        rates[1] / rates[0]
    );
    Ok(())
}

/// Uploads `--files` documents of `--file-kib` KiB as media items, then
/// reads each original back from the next node in turn, and again.
fn files(
    runtime: &tokio::runtime::Runtime,
    args: &Args,
    bases: &Arc<Vec<String>>,
    token: &Arc<String>,
) -> Result<()> {
    use base64::Engine as _;
    let line = b"Minutes of the council meeting, as the clerk kept them.\n";
    let document: Vec<u8> = line
        .iter()
        .copied()
        .cycle()
        .take(args.file_kib * 1024)
        .collect();
    let encoded = Arc::new(base64::engine::general_purpose::STANDARD.encode(&document));
    let urls = Arc::new(std::sync::Mutex::new(vec![String::new(); args.files]));
    let upload = create_request(
        Arc::clone(bases),
        Arc::clone(token),
        Arc::clone(&urls),
        "/attachment/original_url",
        move |i| {
            json!({"title": format!("Minutes {i}"), "type": "media",
                   "attachment": {"name": format!("minutes-{i}.txt"), "file": encoded.as_str()}})
        },
    );
    let name = format!("upload a {} KiB file", args.file_kib);
    run(runtime, &name, args.files, args.clients, upload)?.print();
    let urls: Arc<Vec<String>> = Arc::new(
        urls.lock()
            .map_err(|_| anyhow::anyhow!("poisoned"))?
            .clone(),
    );
    let size = document.len();
    for name in ["read it (first time on node)", "read it again"] {
        let (bases, token, urls) = (Arc::clone(bases), Arc::clone(token), Arc::clone(&urls));
        let read: Request = Arc::new(move |client, i| {
            // The node after the one that took the upload.
            let url = format!("{}{}", bases[(i + 1) % bases.len()], urls[i]);
            let token = Arc::clone(&token);
            Box::pin(async move {
                match client.get(url).bearer_auth(token.as_str()).send().await {
                    Ok(response) => {
                        response.status().is_success()
                            && response.bytes().await.is_ok_and(|b| b.len() == size)
                    }
                    Err(_) => false,
                }
            })
        });
        run(runtime, name, args.files, args.clients, read)?.print();
    }
    Ok(())
}
