//! `copydesk-sync-bench`: first sync of a large newsroom into an empty replica, the delay from a change on
//! the central server to a watching replica, and the push of many offline edits. Real servers, loopback.

use std::time::{Duration, Instant};

use anyhow::{Context as _, Result, ensure};
use clap::Parser;
use copydesk_tests::{KeyPair, TestServer, server_command};
use serde_json::json;

#[derive(Parser)]
#[command(about = "Benchmark sync between real copydesk-server processes over loopback")]
struct Args {
    /// Content items on the central server for the first sync.
    #[arg(long, default_value_t = 10_000)]
    items: usize,
    /// Offline edits to push.
    #[arg(long, default_value_t = 1_000)]
    edits: usize,
    /// Changes timed from the central server to a watching replica.
    #[arg(long, default_value_t = 30)]
    changes: usize,
}

fn key_file(dir: &std::path::Path, key: &KeyPair) -> Result<std::path::PathBuf> {
    let path = dir.join("remote-key.json");
    std::fs::write(&path, serde_json::to_string(key)?)?;
    Ok(path)
}

fn sync_once(replica: &TestServer, remote: &str, key: &KeyPair) -> Result<(Duration, String)> {
    let file = key_file(replica.dir.path(), key)?;
    let started = Instant::now();
    let output = server_command()
        .args(["sync", "--remote", remote, "--key-file"])
        .arg(&file)
        .arg("--data")
        .arg(replica.dir.path())
        .output()
        .context("running sync")?;
    let took = started.elapsed();
    let text = String::from_utf8_lossy(&output.stdout).trim().to_owned();
    ensure!(
        output.status.success(),
        "sync failed: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    Ok((took, text))
}

/// Sends `count` requests over `clients` concurrent connections.
fn fan_out(
    count: usize,
    clients: usize,
    request: impl Fn(&reqwest::blocking::Client, usize) -> Result<()> + Sync,
) -> Result<()> {
    std::thread::scope(|scope| {
        let handles: Vec<_> = (0..clients)
            .map(|c| {
                let request = &request;
                scope.spawn(move || -> Result<()> {
                    let client = reqwest::blocking::Client::new();
                    let mut i = c;
                    while i < count {
                        request(&client, i)?;
                        i += clients;
                    }
                    Ok(())
                })
            })
            .collect();
        for handle in handles {
            handle
                .join()
                .map_err(|_| anyhow::anyhow!("a client thread panicked"))??;
        }
        Ok(())
    })
}

fn main() -> Result<()> {
    copydesk_tests::measuring();
    let args = Args::parse();
    let central = TestServer::start();
    let key = central.key("laptop", &["editor"], &[]);
    let token = central.admin_token().to_owned();
    println!(
        "copydesk-sync-bench: {} items, {} edits, {} timed changes",
        args.items, args.edits, args.changes
    );

    // A newsroom: authors, and content items with two versions each.
    let authors: Vec<String> = (0..100)
        .map(|i| -> Result<String> {
            let body = central
                .post("/v3/author", &json!({"name": format!("Author {i}")}))
                .body;
            Ok(body[0]["uuid"].as_str().context("an author")?.to_owned())
        })
        .collect::<Result<_>>()?;
    let seeded = Instant::now();
    fan_out(args.items, 4, |client, i| {
        let created: serde_json::Value = client
            .post(format!("{}/v3/content", central.base))
            .bearer_auth(&token)
            .json(&json!({"title": format!("Story {i}"), "type": "article", "content": "<p>First text.</p>",
                          "authors": [authors[i % authors.len()]]}))
            .send()?
            .json()?;
        let uuid = created["uuid"].as_str().context("a story")?;
        client
            .put(format!("{}/v3/content/{uuid}", central.base))
            .bearer_auth(&token)
            .json(&json!({"content": "<p>Second text.</p>"}))
            .send()?
            .error_for_status()?;
        Ok(())
    })?;
    println!(
        "seeded the central server in {:.1} s",
        seeded.elapsed().as_secs_f64()
    );

    let replica = TestServer::start();
    let (took, summary) = sync_once(&replica, &central.base, &key)?;
    println!(
        "first sync of {} items into an empty replica: {:.2} s ({summary})",
        args.items,
        took.as_secs_f64()
    );
    let local = replica.get("/v3/content?per_page=1").body["total_items"]
        .as_u64()
        .unwrap_or(0);
    ensure!(
        local == args.items as u64,
        "the replica holds {local} items"
    );

    // Offline edits, then one sync that pushes them.
    let items: Vec<String> = {
        let mut uuids: Vec<String> = Vec::new();
        for page in 1..=args.edits.div_ceil(500) {
            let listed = replica
                .get(&format!(
                    "/v3/content?per_page=500&order=id&dir=asc&page={page}"
                ))
                .body;
            for item in listed["items"].as_array().context("items")? {
                uuids.push(item["uuid"].as_str().context("uuid")?.to_owned());
            }
        }
        uuids.truncate(args.edits);
        uuids
    };
    let replica_token = replica.admin_token().to_owned();
    fan_out(items.len(), 4, |client, i| {
        client
            .put(format!("{}/v3/content/{}", replica.base, items[i]))
            .bearer_auth(&replica_token)
            .json(&json!({"title": format!("Edited offline {i}")}))
            .send()?
            .error_for_status()?;
        Ok(())
    })?;
    let (took, summary) = sync_once(&replica, &central.base, &key)?;
    println!(
        "push of {} offline edits: {:.2} s ({summary})",
        items.len(),
        took.as_secs_f64()
    );

    // A watching replica: time from a change on the central server to its arrival.
    let keys = tempfile::tempdir()?;
    let file = key_file(keys.path(), &key)?;
    let file_arg = file.to_string_lossy().into_owned();
    let watcher = TestServer::start_with(&[
        "--remote",
        &central.base,
        "--key-file",
        &file_arg,
        "--sync-every-ms",
        "50",
    ]);
    // Let it take the newsroom in first.
    let started = Instant::now();
    while watcher.get("/v3/content?per_page=1").body["total_items"]
        .as_u64()
        .unwrap_or(0)
        < args.items as u64
    {
        ensure!(
            started.elapsed() < Duration::from_secs(300),
            "the watcher never caught up"
        );
        std::thread::sleep(Duration::from_millis(200));
    }
    let mut delays = Vec::with_capacity(args.changes);
    for i in 0..args.changes {
        let tag = central
            .post("/v3/tag", &json!({"name": format!("live {i}")}))
            .body;
        let uuid = tag[0]["uuid"].as_str().context("a tag")?.to_owned();
        let changed = Instant::now();
        loop {
            if watcher
                .call(
                    reqwest::Method::GET,
                    &format!("/v3/tag/{uuid}"),
                    Some(watcher.admin_token()),
                    None,
                )
                .status
                == 200
            {
                break;
            }
            ensure!(
                changed.elapsed() < Duration::from_secs(30),
                "change {i} never arrived"
            );
            std::thread::sleep(Duration::from_millis(5));
        }
        delays.push(changed.elapsed());
    }
    delays.sort();
    let at =
        |q: f64| delays[((delays.len() as f64 * q).ceil() as usize).clamp(1, delays.len()) - 1];
    println!(
        "change on the central server to a watching replica (polling every 50 ms): p50 {:.0} ms, p99 {:.0} ms",
        at(0.5).as_secs_f64() * 1e3,
        at(0.99).as_secs_f64() * 1e3
    );
    Ok(())
}
