//! A watching sync (`copydesk-server sync --watch`) asked to stop: it finishes the round under way, or stops at once when asked twice.

use super::*;

/// A central server that answers every request with 503, holding the
/// answer to the `held`th request of a round until told to let it go (the
/// change stream's requests are not counted); it says on `arrived` when
/// that request has come.
fn unavailable_central(
    held: usize,
) -> (
    String,
    std::sync::mpsc::Receiver<()>,
    std::sync::mpsc::Sender<()>,
) {
    use std::io::{BufRead, BufReader, Write};
    let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("a loopback port");
    let base = format!("http://{}", listener.local_addr().expect("its address"));
    let (arrived, arrival) = std::sync::mpsc::channel();
    let (release, released) = std::sync::mpsc::channel::<()>();
    std::thread::spawn(move || {
        let mut n = 0;
        for stream in listener.incoming() {
            let Ok(mut stream) = stream else { continue };
            let mut reader = BufReader::new(stream.try_clone().expect("the stream"));
            let mut request_line = String::new();
            let _ = reader.read_line(&mut request_line);
            let mut line = String::new();
            while reader.read_line(&mut line).is_ok_and(|read| read > 2) {
                line.clear();
            }
            if !request_line.contains("/v3/changes/stream") {
                n += 1;
            }
            if n == held && !request_line.contains("/v3/changes/stream") {
                let _ = arrived.send(());
                let _ = released.recv();
            }
            let _ = stream.write_all(
                b"HTTP/1.1 503 Service Unavailable\r\ncontent-length: 0\r\nconnection: close\r\n\r\n",
            );
        }
    });
    (base, arrival, release)
}

/// Sends SIGTERM to `child`.
fn terminate(child: &std::process::Child) {
    let sent = std::process::Command::new("kill")
        .args(["-TERM", &child.id().to_string()])
        .status()
        .is_ok_and(|status| status.success());
    assert!(sent, "SIGTERM was sent");
}

/// How `child` exited within 20 seconds, or `None` when it had to be killed.
fn exit_within_20_s(child: &mut std::process::Child) -> Option<std::process::ExitStatus> {
    let started = std::time::Instant::now();
    loop {
        if let Some(status) = child.try_wait().expect("the sync's status") {
            return Some(status);
        }
        if started.elapsed() > std::time::Duration::from_secs(20) {
            let _ = child.kill();
            let _ = child.wait();
            return None;
        }
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
}

/// A replica syncing with `--watch` every second against a central server
/// whose second answer waits to be released; returned once the sync's
/// second round waits on it.
fn sync_waiting_on_its_second_round()
-> (TestServer, std::process::Child, std::sync::mpsc::Sender<()>) {
    let central = TestServer::start();
    let replica = TestServer::start_replica();
    let key = central.key("laptop", &["editor"], &[]);
    // The first round fails at once; the second waits on its first request.
    let (base, arrival, release) = unavailable_central(2);
    let child = sync_in_background(&replica, &base, &key, &["--watch", "--every", "1"]);
    arrival
        .recv_timeout(std::time::Duration::from_secs(60))
        .expect("the second round reaches the central server");
    (replica, child, release)
}

#[test]
fn a_watching_sync_stopped_during_a_round_stops_once_the_round_is_done() {
    let (_replica, mut child, release) = sync_waiting_on_its_second_round();
    terminate(&child);
    std::thread::sleep(std::time::Duration::from_millis(500));
    assert!(
        child.try_wait().expect("the sync's status").is_none(),
        "the sync waits for its round to end"
    );
    release.send(()).expect("the central server answers");
    let status = exit_within_20_s(&mut child)
        .expect("the sync stopped after its round, not only when killed");
    assert!(status.success(), "a clean stop: {status}");
}

#[test]
fn a_watching_sync_stopped_twice_stops_without_its_round() {
    let (_replica, mut child, _release) = sync_waiting_on_its_second_round();
    terminate(&child);
    std::thread::sleep(std::time::Duration::from_millis(500));
    terminate(&child);
    // The central server never answers: only the second stop ends the sync.
    let status = exit_within_20_s(&mut child)
        .expect("the second stop ended the sync with its round still waiting");
    assert!(status.success(), "a clean stop: {status}");
}
