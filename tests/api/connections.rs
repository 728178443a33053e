//! Clients that open connections and never finish a request: half-sent heads, against a server started as systemd starts one (1,024 open files).

use std::io::{Read as _, Write as _};
use std::net::TcpStream;
use std::time::{Duration, Instant};

use copydesk_tests::TestServer;

/// Opens a connection that sends half a request head, then waits.
fn half_sent_head(address: &str) -> TcpStream {
    let mut stream = TcpStream::connect(address).expect("connects");
    stream
        .write_all(b"GET /v3/me HTTP/1.1\r\nHost: copydesk\r\nAccept: appl")
        .expect("sends");
    stream
}

/// Whether the server closed `stream` within `within` (it reads the end, or a reset).
fn closed_within(stream: &mut TcpStream, within: Duration) -> bool {
    stream.set_read_timeout(Some(within)).expect("a timeout");
    let mut answer = [0u8; 256];
    match stream.read(&mut answer) {
        Ok(0) => true,
        Ok(_) => false,
        Err(err) => !matches!(
            err.kind(),
            std::io::ErrorKind::WouldBlock | std::io::ErrorKind::TimedOut
        ),
    }
}

#[test]
fn fifteen_hundred_half_sent_heads_leave_the_server_answering_and_are_closed_after_the_timeout() {
    // This test's own side of 1,500 connections.
    rlimit::increase_nofile_limit(4_096).expect("the test's open-files limit");
    let server = TestServer::start_with_open_files(1_024, &["--header-timeout", "3"]);
    let log = server.log_lines();
    assert!(
        log.iter()
            .any(|line| line.contains("open files: the soft limit is raised from 1024 to")),
        "the log says the limit was raised: {log:#?}"
    );
    let address = server.base.trim_start_matches("http://").to_owned();
    let opened = Instant::now();
    let mut heads: Vec<TcpStream> = (0..1_500).map(|_| half_sent_head(&address)).collect();
    // Every other request still answers at once.
    for _ in 0..5 {
        let started = Instant::now();
        server.get("/v3/me").expect(200);
        assert!(
            started.elapsed() < Duration::from_secs(1),
            "GET /v3/me took {:?} beside 1,500 half-sent heads",
            started.elapsed()
        );
        std::thread::sleep(Duration::from_millis(100));
    }
    // None is closed before its time, and every one is closed after it.
    if opened.elapsed() < Duration::from_secs(2) {
        assert!(
            !closed_within(&mut heads[0], Duration::from_millis(500)),
            "a half-sent head is given its time"
        );
    }
    let mut unclosed = 0;
    for stream in &mut heads {
        if !closed_within(stream, Duration::from_secs(10)) {
            unclosed += 1;
        }
    }
    assert_eq!(
        unclosed, 0,
        "every half-sent head is closed after the timeout"
    );
    assert!(opened.elapsed() >= Duration::from_secs(3));
    server.get("/v3/me").expect(200);
}

#[test]
fn connections_past_the_cap_wait_and_the_log_says_so() {
    let server = TestServer::start_with(&["--max-connections", "64", "--header-timeout", "2"]);
    let address = server.base.trim_start_matches("http://").to_owned();
    let heads: Vec<TcpStream> = (0..80).map(|_| half_sent_head(&address)).collect();
    // The request waits in the queue until the stalled heads are cut off, then answers.
    let started = Instant::now();
    server.get("/v3/me").expect(200);
    let waited = started.elapsed();
    assert!(
        waited < Duration::from_secs(8),
        "answered once the stalled heads were closed: {waited:?}"
    );
    let log = server.log_lines();
    assert!(
        log.iter()
            .any(|line| line.contains("open connections are at the cap of 64")),
        "the log says the cap was reached: {log:#?}"
    );
    drop(heads);
}
