//! `copydesk-stream-bench`: many clients holding the change stream open on one central server: its memory and CPU while they wait, and how long a write takes to reach the last of them. A real server, real signed tokens, loopback.
//!
//! Each stream is one HTTP/1.1 connection of its own reading
//! `GET /v3/changes/stream`, as a browser tab or a watching replica holds
//! it. The server allows 16 streams a key, so the streams are spread over
//! as many keys as they need. A write is one `POST /v3/content`; its time
//! to a stream is from just before the request to the moment that stream
//! has read the event naming the new story.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use anyhow::{Context as _, Result, ensure};
use clap::Parser;
use copydesk_tests::{TestServer, percentile};
use serde_json::json;

#[derive(Parser)]
#[command(about = "Benchmark many open change streams on one real copydesk-server")]
struct Args {
    /// Streams held open.
    #[arg(long, default_value_t = 1_000)]
    streams: usize,
    /// Writes timed to every stream.
    #[arg(long, default_value_t = 50)]
    writes: usize,
    /// Seconds the server is watched at idle with every stream open.
    #[arg(long, default_value_t = 30)]
    idle_seconds: u64,
}

/// The streams a key may hold on the server.
const STREAMS_PER_KEY: usize = 16;

/// When each stream read each new story's event (by the story's UUID).
type Arrivals = Arc<Mutex<HashMap<String, Vec<Instant>>>>;

/// The server's resident memory now (`VmRSS`), in bytes.
fn resident_bytes(pid: u32) -> Result<u64> {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status"))?;
    let kib: u64 = status
        .lines()
        .find_map(|line| line.strip_prefix("VmRSS:"))
        .and_then(|rest| rest.split_whitespace().next())
        .and_then(|n| n.parse().ok())
        .context("VmRSS in /proc status")?;
    Ok(kib * 1024)
}

/// The CPU time the server has used so far (user and system), in seconds.
fn cpu_seconds(pid: u32) -> Result<f64> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat"))?;
    // The fields after the command's closing parenthesis: utime and stime are the 12th and 13th.
    let after = stat.rsplit_once(')').context("a /proc stat line")?.1;
    let fields: Vec<&str> = after.split_whitespace().collect();
    let ticks: f64 = fields[11].parse::<f64>()? + fields[12].parse::<f64>()?;
    // Linux counts in USER_HZ, 100 a second on every architecture it runs here.
    Ok(ticks / 100.0)
}

/// Reads one stream until the runtime ends, noting when each change event's story arrived.
async fn read_stream(
    client: reqwest::Client,
    url: String,
    token: String,
    arrivals: Arrivals,
    opened: tokio::sync::mpsc::Sender<()>,
) -> Result<()> {
    let mut response = client
        .get(&url)
        .bearer_auth(&token)
        .send()
        .await?
        .error_for_status()?;
    opened.send(()).await.ok();
    let mut pending = String::new();
    while let Some(chunk) = response.chunk().await? {
        let now = Instant::now();
        pending.push_str(&String::from_utf8_lossy(&chunk));
        while let Some(end) = pending.find("\n\n") {
            let event: String = pending.drain(..end + 2).collect();
            if !event.lines().any(|line| line == "event: change") {
                continue;
            }
            let Some(data) = event.lines().find_map(|line| line.strip_prefix("data:")) else {
                continue;
            };
            let change: serde_json::Value = serde_json::from_str(data.trim())?;
            if let Some(uuid) = change["uuid"].as_str() {
                arrivals
                    .lock()
                    .expect("the arrivals")
                    .entry(uuid.to_owned())
                    .or_default()
                    .push(now);
            }
        }
    }
    Ok(())
}

fn main() -> Result<()> {
    let args = Args::parse();
    // A socket a stream on this side, beside the server's own.
    let (_, hard) = rlimit::getrlimit(rlimit::Resource::NOFILE)?;
    rlimit::setrlimit(rlimit::Resource::NOFILE, hard, hard)?;
    let server = TestServer::start();
    let pid = server.pid().context("the server runs")?;
    let keys: Vec<String> = (0..args.streams.div_ceil(STREAMS_PER_KEY))
        .map(|n| {
            server
                .key(&format!("Reader {n}"), &["journalist"], &[])
                .token_for(24 * 3600)
        })
        .collect();
    let before = resident_bytes(pid)?;

    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(1)
        .enable_all()
        .build()?;
    let arrivals: Arrivals = Arc::default();
    let url = server.url("/v3/changes/stream");
    let started = Instant::now();
    runtime.block_on(async {
        let (opened, mut open) = tokio::sync::mpsc::channel(args.streams);
        for n in 0..args.streams {
            // One connection a stream, as each tab or replica holds its own.
            let client = reqwest::Client::builder()
                .pool_max_idle_per_host(0)
                .build()?;
            let token = keys[n / STREAMS_PER_KEY].clone();
            let (url, arrivals, opened) = (url.clone(), Arc::clone(&arrivals), opened.clone());
            tokio::spawn(async move {
                if let Err(err) = read_stream(client, url, token, arrivals, opened).await {
                    eprintln!("a stream ended: {err:#}");
                }
            });
        }
        for _ in 0..args.streams {
            tokio::time::timeout(Duration::from_secs(60), open.recv())
                .await
                .context("the streams did not all open within a minute")?;
        }
        anyhow::Ok(())
    })?;
    println!(
        "{} streams open in {:.2} s ({} keys)",
        args.streams,
        started.elapsed().as_secs_f64(),
        keys.len()
    );

    // At idle: only heartbeats (every 15 s) cross the streams.
    std::thread::sleep(Duration::from_secs(2));
    let cpu_before = cpu_seconds(pid)?;
    std::thread::sleep(Duration::from_secs(args.idle_seconds));
    let idle_cpu = (cpu_seconds(pid)? - cpu_before) / args.idle_seconds as f64;
    let open_bytes = resident_bytes(pid)?;
    println!(
        "server memory: {:.1} MiB before the streams, {:.1} MiB with them open ({:.1} KiB a stream); CPU at idle {:.2}% of one core over {} s",
        before as f64 / 1048576.0,
        open_bytes as f64 / 1048576.0,
        (open_bytes.saturating_sub(before)) as f64 / 1024.0 / args.streams as f64,
        idle_cpu * 100.0,
        args.idle_seconds
    );

    // Writes, one at a time, each timed to every stream.
    let writer = reqwest::blocking::Client::new();
    let mut to_last = Vec::with_capacity(args.writes);
    let mut to_each = Vec::with_capacity(args.writes * args.streams);
    for n in 0..args.writes {
        let sent = Instant::now();
        let answer: serde_json::Value = writer
            .post(server.url("/v3/content"))
            .bearer_auth(server.admin_token())
            .json(&json!({"title": format!("Bulletin {n}"), "type": "article", "content": "<p>News.</p>"}))
            .send()?
            .error_for_status()?
            .json()?;
        let item = if answer.is_array() {
            &answer[0]
        } else {
            &answer
        };
        let uuid = item["uuid"]
            .as_str()
            .context("the new story's uuid")?
            .to_owned();
        let deadline = Instant::now() + Duration::from_secs(30);
        let times = loop {
            let seen = arrivals.lock().expect("the arrivals").get(&uuid).cloned();
            if let Some(times) = seen.filter(|t| t.len() >= args.streams) {
                break times;
            }
            ensure!(
                Instant::now() < deadline,
                "write {n} did not reach every stream within 30 s"
            );
            std::thread::sleep(Duration::from_millis(2));
        };
        to_each.extend(times.iter().map(|t| t.duration_since(sent)));
        to_last.push(times.iter().max().expect("arrivals").duration_since(sent));
        std::thread::sleep(Duration::from_millis(200));
    }
    to_last.sort();
    to_each.sort();
    let ms = |d: Duration| d.as_secs_f64() * 1000.0;
    println!(
        "write to the last of {} streams, {} writes: p50 {:.0} ms, p99 {:.0} ms; write to each stream: p50 {:.0} ms, p99 {:.0} ms",
        args.streams,
        args.writes,
        ms(percentile(&to_last, 0.5)),
        ms(percentile(&to_last, 0.99)),
        ms(percentile(&to_each, 0.5)),
        ms(percentile(&to_each, 0.99)),
    );
    println!(
        "server peak memory: {:.1} MiB",
        server.peak_memory_bytes() as f64 / 1048576.0
    );
    drop(runtime);
    Ok(())
}
