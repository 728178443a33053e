//! `copydesk-bench`: drives the real `copydesk-server` over loopback HTTP and prints latency and throughput.
//!
//! It starts the server on a fresh data directory, creates the content items
//! (the create figures), then reads single items and pages of 50 at random.

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

/// Runs `total` requests spread over `clients` threads; `request(i)` returns whether it succeeded.
fn run<F>(name: &str, total: usize, clients: usize, request: F) -> Result<Figures>
where
    F: Fn(&reqwest::blocking::Client, usize) -> bool + Send + Sync + 'static,
{
    let request = Arc::new(request);
    let started = Instant::now();
    let threads: Vec<_> = (0..clients)
        .map(|c| {
            let request = Arc::clone(&request);
            std::thread::spawn(move || -> Result<Vec<Duration>> {
                let client = reqwest::blocking::Client::builder()
                    .timeout(Duration::from_secs(30))
                    .build()?;
                let mut latencies = Vec::with_capacity(total / clients + 1);
                let mut i = c;
                while i < total {
                    let t = Instant::now();
                    ensure!(request(&client, i), "request {i} failed");
                    latencies.push(t.elapsed());
                    i += clients;
                }
                Ok(latencies)
            })
        })
        .collect();
    let mut latencies = Vec::with_capacity(total);
    for thread in threads {
        latencies.extend(
            thread
                .join()
                .map_err(|_| anyhow::anyhow!("a client thread panicked"))??,
        );
    }
    Ok(Figures {
        name: name.to_owned(),
        latencies,
        wall: started.elapsed(),
    })
}

fn main() -> Result<()> {
    let args = Args::parse();
    let server = TestServer::start();
    let base = Arc::new(server.base.clone());
    let token = Arc::new(server.admin_token().to_owned());
    println!(
        "copydesk-bench: {} items, {} clients, server {} (pid {})",
        args.items,
        args.clients,
        server.base,
        server.pid().unwrap_or(0)
    );

    let uuids = Arc::new(std::sync::Mutex::new(vec![String::new(); args.items]));
    let mut create = {
        let (base, token, uuids) = (Arc::clone(&base), Arc::clone(&token), Arc::clone(&uuids));
        run(
            "create content item",
            args.items,
            args.clients,
            move |client, i| {
                let body = json!({"title": format!("Item {i}: council votes on budget"), "type": "article",
                              "abstract": "A short summary.", "content": "<p>Body text of the article.</p>"});
                let Ok(response) = client
                    .post(format!("{base}/v3/content"))
                    .bearer_auth(token.as_str())
                    .json(&body)
                    .send()
                else {
                    return false;
                };
                let Ok(value) = response.json::<serde_json::Value>() else {
                    return false;
                };
                match value["uuid"].as_str() {
                    Some(uuid) => {
                        if let Ok(mut all) = uuids.lock() {
                            all[i] = uuid.to_owned();
                        }
                        true
                    }
                    None => false,
                }
            },
        )?
    };
    create.print();
    let uuids: Arc<Vec<String>> = Arc::new(
        uuids
            .lock()
            .map_err(|_| anyhow::anyhow!("poisoned"))?
            .clone(),
    );

    let mut get = {
        let (base, token, uuids) = (Arc::clone(&base), Arc::clone(&token), Arc::clone(&uuids));
        run(
            "GET one content item",
            args.reads,
            args.clients,
            move |client, i| {
                let uuid = &uuids[(i.wrapping_mul(7919)) % uuids.len()];
                client
                    .get(format!("{base}/v3/content/{uuid}"))
                    .bearer_auth(token.as_str())
                    .send()
                    .is_ok_and(|r| r.status().is_success() && r.bytes().is_ok())
            },
        )?
    };
    get.print();

    let pages = args.items.div_ceil(50).max(1);
    let mut first_page = {
        let (base, token) = (Arc::clone(&base), Arc::clone(&token));
        run(
            "list 50 (page 1)",
            args.lists,
            args.clients,
            move |client, _| {
                client
                    .get(format!("{base}/v3/content?per_page=50"))
                    .bearer_auth(token.as_str())
                    .send()
                    .is_ok_and(|r| r.status().is_success() && r.bytes().is_ok())
            },
        )?
    };
    first_page.print();
    let mut any_page = {
        let (base, token) = (Arc::clone(&base), Arc::clone(&token));
        run(
            "list 50 (random page)",
            args.lists,
            args.clients,
            move |client, i| {
                let page = 1 + (i.wrapping_mul(104_729)) % pages;
                client
                    .get(format!("{base}/v3/content?per_page=50&page={page}"))
                    .bearer_auth(token.as_str())
                    .send()
                    .is_ok_and(|r| r.status().is_success() && r.bytes().is_ok())
            },
        )?
    };
    any_page.print();

    let check = server.get("/v3/content?per_page=1").body["total_items"]
        .as_u64()
        .context("a count")?;
    ensure!(
        check == args.items as u64,
        "expected {} items, found {check}",
        args.items
    );
    Ok(())
}
