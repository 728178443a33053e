//! `copydesk-search-bench`: search over an archive the size of a newsroom's.
//!
//! It makes `--stories` stories (a million by default) through the core
//! library in batches, as an import would, with words drawn from a skewed
//! vocabulary (a few words common, most rare, some accented), authors and
//! tags; then starts the real `copydesk-server` on that data and times
//! `/v3/search` over loopback HTTP, one request at a time on one kept-alive
//! connection, from sending it to its answer's last byte: a one-word search,
//! a three-word search (the last word half typed) and a one-word search within
//! a tag. It prints p50 and p99, the hits each search found, and the database
//! size per story. With `--archive DIR` the stories are made once and kept.
//! With `--common-words 400` the stories draw their words evenly from 400
//! common words (each in about 40% of stories) and one in 2,000 holds a rare
//! word; each kind of search is then timed by relevance and newest first.
//! With `--lists`, the web UI's content lists are timed too (newest change
//! first: all, a type, a deep page, an author, a tag, a type over a day).
//! With `--on-postgres`, the archive is then imported into a fresh
//! PostgreSQL cluster (durable settings), the import timed, and every kind
//! timed again against a server on it (`--imported URL`: on a database an
//! earlier import filled).

use std::time::{Duration, Instant};

use anyhow::{Context as _, Result, ensure};
use clap::Parser;
use copydesk_core::Cms;
use copydesk_core::access::Credential;
use copydesk_core::authors::AuthorInput;
use copydesk_core::content::ContentInput;
use copydesk_core::tags::TagInput;
use copydesk_tests::TestServer;

#[derive(Parser)]
#[command(about = "Benchmark full-text search over a large archive")]
struct Args {
    /// Stories to make.
    #[arg(long, default_value_t = 1_000_000)]
    stories: usize,
    /// Stories per transaction while making them.
    #[arg(long, default_value_t = 5_000)]
    batch: usize,
    /// Timed searches of each kind.
    #[arg(long, default_value_t = 400)]
    searches: usize,
    /// An archive kept between runs: when this directory holds one made by
    /// an earlier run, it is searched instead of making the stories again
    /// (a million take some twenty minutes); otherwise the stories made are
    /// hard-linked into it.
    #[arg(long)]
    archive: Option<std::path::PathBuf>,
    /// Draw the stories' words evenly from this many common words instead
    /// of the skewed vocabulary (400: one word in about 40% of stories, as
    /// "said", "council" or a city's name is in a local paper), with a rare
    /// word in one story in 2,000; then time each kind of search by
    /// relevance and newest first.
    #[arg(long, default_value_t = 0)]
    common_words: usize,
    /// Time the content lists as well.
    #[arg(long)]
    lists: bool,
    /// Import the archive into PostgreSQL and time everything again there.
    #[arg(long)]
    on_postgres: bool,
    /// With `--on-postgres`: the archive already imported into the
    /// PostgreSQL database at this URL (by an earlier run or by
    /// `copydesk-server import`), timed there without importing it again.
    #[arg(long)]
    imported: Option<String>,
}

/// The web UI's content lists, newest change first, a page of 20: what
/// a desk opens all day (`tags`, `authors`: UUIDs to filter by; `day`: the
/// start of the archive's last day of changes).
fn list_kinds<'a>(
    tags: &'a [String],
    authors: &'a [String],
    day: &'a str,
) -> Vec<(String, QueryMaker<'a>)> {
    let list =
        |filter: String| format!("/v3/content?per_page=20&order=modified_at&dir=desc{filter}");
    vec![
        (
            "list: all".into(),
            Box::new(move |_: &mut Dice| list(String::new())),
        ),
        (
            "list: type article".into(),
            Box::new(move |_: &mut Dice| list("&type=article".into())),
        ),
        (
            "list: type article, page 2,000".into(),
            Box::new(move |_: &mut Dice| list("&type=article&page=2000".into())),
        ),
        (
            "list: one author".into(),
            Box::new(move |dice: &mut Dice| {
                list(format!("&author={}", authors[dice.below(authors.len())]))
            }),
        ),
        (
            "list: one tag".into(),
            Box::new(move |dice: &mut Dice| list(format!("&tag={}", tags[dice.below(tags.len())]))),
        ),
        (
            "list: type article, changed in a day".into(),
            Box::new(move |_: &mut Dice| list(format!("&type=article&changed_from={day}"))),
        ),
    ]
}

/// Times `searches` requests of each kind (after 20 untimed) against
/// `server`, one at a time on one kept-alive connection, and prints p50,
/// p99 and the hits.
fn time_kinds(
    server: &TestServer,
    kinds: &[(String, QueryMaker)],
    dice: &mut Dice,
    searches: usize,
) -> Result<()> {
    // `ureq` reads the answer on the calling thread over a kept-alive
    // connection, as `wrk` does: what is timed is the server and the
    // loopback, not hand-overs to a client library's own threads.
    let client: ureq::Agent = ureq::Agent::config_builder()
        .http_status_as_error(false)
        .build()
        .into();
    // A token of its own: the admin's first one has expired after an hour of
    // making the archive.
    let authorization = format!("Bearer {}", server.admin.token());
    for (name, query) in kinds {
        let mut latencies = Vec::with_capacity(searches);
        let mut hits = Vec::with_capacity(searches);
        for i in 0..searches + 20 {
            // A search's query string, or a whole path of its own.
            let asked = query(dice);
            let path = if asked.starts_with('/') {
                asked
            } else {
                format!("/v3/search?type=content&{asked}")
            };
            // Timed from the request to the answer's last byte, as `wrk`
            // times it; the JSON is parsed afterwards, untimed.
            let sent = Instant::now();
            let mut response = client
                .get(server.url(&path))
                .header("Authorization", &authorization)
                .call()
                .context("the search answers")?;
            let body = response.body_mut().read_to_vec()?;
            let took = sent.elapsed();
            let status = response.status();
            ensure!(status == 200, "{path}: {status}");
            let answer: serde_json::Value = serde_json::from_slice(&body)?;
            if i >= 20 {
                latencies.push(took);
                hits.push(answer["total_items"].as_u64().unwrap_or(0));
            }
        }
        latencies.sort();
        hits.sort_unstable();
        println!(
            "{name:<38} p50 {:>7.2} ms  p99 {:>7.2} ms  hits: median {}, most {}",
            percentile(&latencies, 0.50),
            percentile(&latencies, 0.99),
            hits[hits.len() / 2],
            hits[hits.len() - 1]
        );
    }
    Ok(())
}

/// Imports `server`'s data directory into a fresh database of a durable
/// PostgreSQL cluster, timed; the cluster and a server on it.
fn on_postgres(server: &mut TestServer) -> Result<(copydesk_tests::postgres::Cluster, TestServer)> {
    let cluster = copydesk_tests::postgres::Cluster::start(&[
        "fsync=on",
        "synchronous_commit=on",
        "shared_buffers=512MB",
        "random_page_cost=1.1",
        "max_wal_size=4GB",
    ])?;
    cluster.create_database("archive")?;
    let url = cluster.url("archive");
    server.kill();
    let data = tempfile::tempdir()?;
    let started = Instant::now();
    let output = copydesk_tests::server_command()
        .arg("import")
        .arg("--from")
        .arg(server.dir.path())
        .arg("--database")
        .arg(&url)
        .arg("--data")
        .arg(data.path())
        .output()?;
    ensure!(
        output.status.success(),
        "import failed: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    println!(
        "imported into PostgreSQL in {:.0} s (its search index built after the copy included)",
        started.elapsed().as_secs_f64()
    );
    let on = TestServer::start_on_database(&url);
    Ok((cluster, on))
}

/// The words of the even corpus (`--common-words`): six letters and more,
/// so that a word typed whole and still open is looked up as the index's
/// words it starts.
fn common_words(words: &[String], count: usize) -> &[String] {
    &words[1_000..1_000 + count.min(2_000)]
}

/// The rare words of the even corpus, one in one story in 2,000.
fn rare_words(words: &[String]) -> &[String] {
    &words[20_000..20_050]
}

/// The searches over the skewed vocabulary: words as a reader searches for
/// them, neither the commonest nor the rarest (ranks 3,000 to 25,000 of the
/// vocabulary; each is in a few thousandths of a million stories), by
/// relevance.
fn skewed_kinds<'a>(words: &'a [String], tags: &'a [String]) -> Vec<(String, QueryMaker<'a>)> {
    let pick = move |dice: &mut Dice| words[3_000 + dice.below(22_000)].clone();
    vec![
        (
            "one word".into(),
            Box::new(move |dice: &mut Dice| format!("keywords={}", pick(dice))),
        ),
        (
            "one word, finished (a space after it)".into(),
            Box::new(move |dice: &mut Dice| format!("keywords={}%20", pick(dice))),
        ),
        (
            "three words, the last half typed".into(),
            Box::new(move |dice: &mut Dice| {
                let last = words[100 + dice.below(2_900)].clone();
                let half: String = last
                    .chars()
                    .take(3.max(last.chars().count() / 2 + 1))
                    .collect();
                let (first, second) = (
                    &words[100 + dice.below(2_900)],
                    &words[100 + dice.below(2_900)],
                );
                format!("keywords={first}%20{second}%20{half}")
            }),
        ),
        (
            "one word within a tag".into(),
            Box::new(move |dice: &mut Dice| {
                format!(
                    "keywords={}&tag={}",
                    pick(dice),
                    tags[dice.below(tags.len())]
                )
            }),
        ),
    ]
}

/// The searches over the even corpus, each by relevance and newest first:
/// a common word as typed (still open), three common words, the start of
/// one (four letters), a rare word, and a common word within a tag.
fn even_kinds<'a>(
    words: &'a [String],
    count: usize,
    tags: &'a [String],
) -> Vec<(String, QueryMaker<'a>)> {
    let common = common_words(words, count);
    let rare = rare_words(words);
    let one = move |dice: &mut Dice| common[dice.below(common.len())].clone();
    let searches: [(&str, QueryMaker<'a>); 5] = [
        (
            "a common word",
            Box::new(move |dice: &mut Dice| format!("keywords={}", one(dice))),
        ),
        (
            "three common words",
            Box::new(move |dice: &mut Dice| {
                format!("keywords={}%20{}%20{}", one(dice), one(dice), one(dice))
            }),
        ),
        (
            "a start (four letters)",
            Box::new(move |dice: &mut Dice| {
                let start: String = one(dice).chars().take(4).collect();
                format!("keywords={start}")
            }),
        ),
        (
            "a rare word",
            Box::new(move |dice: &mut Dice| format!("keywords={}", rare[dice.below(rare.len())])),
        ),
        (
            "a common word within a tag",
            Box::new(move |dice: &mut Dice| {
                format!(
                    "keywords={}&tag={}",
                    one(dice),
                    tags[dice.below(tags.len())]
                )
            }),
        ),
    ];
    let searches: Vec<(&str, std::rc::Rc<QueryMaker<'a>>)> = searches
        .into_iter()
        .map(|(name, make)| (name, std::rc::Rc::new(make)))
        .collect();
    let mut kinds: Vec<(String, QueryMaker<'a>)> = Vec::new();
    for (order, suffix) in [("relevance", ""), ("newest first", "&order=id")] {
        for (name, make) in &searches {
            let make = std::rc::Rc::clone(make);
            kinds.push((
                format!("{name}, {order}"),
                Box::new(move |dice: &mut Dice| format!("{}{suffix}", make(dice))),
            ));
        }
    }
    // The content list as the UI asks for it, narrowed to a type no story
    // of the archive has: every hit's row is checked until the stories of
    // that type are read instead.
    kinds.push((
        "a common word, list of a type none has".into(),
        Box::new(move |dice: &mut Dice| {
            format!(
                "/v3/content?keywords={}&type=media&order=relevance&per_page=50",
                one(dice)
            )
        }),
    ));
    kinds
}

/// A small fast deterministic generator (SplitMix64): the same archive every run.
struct Dice(u64);

impl Dice {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }

    /// An index in `0..n` where small ones are far likelier (roughly as
    /// word frequencies fall off in text).
    fn skewed(&mut self, n: usize) -> usize {
        let u = (self.next() >> 11) as f64 / (1u64 << 53) as f64;
        ((n as f64) * u.powi(4)) as usize
    }
}

const SYLLABLES: &[&str] = &[
    "ka", "lo", "mi", "ne", "ru", "ta", "vo", "zi", "ba", "de", "fu", "ge", "ho", "ji", "ku", "la",
    "me", "no", "pa", "ri", "so", "tu", "ve", "wa", "yo", "an", "el", "in", "or", "us",
];

/// A vocabulary of made-up words, some of them accented.
fn vocabulary(size: usize) -> Vec<String> {
    (0..size)
        .map(|i| {
            let mut word = String::new();
            let mut n = i + SYLLABLES.len();
            while n > 0 {
                word.push_str(SYLLABLES[n % SYLLABLES.len()]);
                n /= SYLLABLES.len();
            }
            if i % 9 == 4 {
                word = word.replacen('e', "é", 1);
            }
            word
        })
        .collect()
}

fn sentence(dice: &mut Dice, words: &[String], length: usize) -> String {
    (0..length)
        .map(|_| words[dice.skewed(words.len())].as_str())
        .collect::<Vec<_>>()
        .join(" ")
}

/// `length` words drawn evenly from `words`.
fn even_sentence(dice: &mut Dice, words: &[String], length: usize) -> String {
    (0..length)
        .map(|_| words[dice.below(words.len())].as_str())
        .collect::<Vec<_>>()
        .join(" ")
}

/// [`copydesk_tests::percentile`] in milliseconds.
fn percentile(sorted: &[Duration], q: f64) -> f64 {
    copydesk_tests::percentile(sorted, q).as_secs_f64() * 1e3
}

fn main() -> Result<()> {
    copydesk_tests::measuring();
    let args = Args::parse();
    ensure!(
        args.stories > 0 && args.batch > 0,
        "stories and batch must be positive"
    );
    // Checked before serving, as every start was until the check moved
    // beside serving on large files: the searches then meet a server that
    // has nothing else to do, and the start's time includes the check.
    let mut server = TestServer::start_with(&["--start-check", "before"]);
    server.kill();
    let words = vocabulary(30_000);
    let mut dice = Dice(20_261_123);
    let kept = args
        .archive
        .as_ref()
        .map(|dir| dir.join("copydesk.db"))
        .filter(|db| db.exists());
    let (tags, making) = match &kept {
        Some(db) => {
            for suffix in ["", "-wal", "-shm"] {
                let path = format!("{}{suffix}", server.db_path().display());
                if std::path::Path::new(&path).exists() {
                    std::fs::remove_file(&path)?;
                }
            }
            std::fs::hard_link(db, server.db_path()).context("using the kept archive")?;
            let admin = copydesk_tests::create_key(server.dir.path(), "bench", &["admin"], &[])?;
            server.use_admin(admin);
            let tags = rusqlite::Connection::open(server.db_path())?
                .prepare("SELECT uuid FROM tags WHERE name LIKE 'Desk %' ORDER BY id")?
                .query_map([], |row| row.get(0))?
                .collect::<Result<Vec<String>, _>>()?;
            ensure!(!tags.is_empty(), "the kept archive has no tags");
            println!("searching the archive kept in {}", db.display());
            (tags, None)
        }
        None => {
            let made = make_archive(&server, &args, &words, &mut dice)?;
            if let Some(dir) = &args.archive {
                std::fs::create_dir_all(dir)?;
                std::fs::hard_link(server.db_path(), dir.join("copydesk.db"))
                    .context("keeping the archive")?;
            }
            (made.0, Some(made.1))
        }
    };
    let bytes: u64 = std::fs::read_dir(server.dir.path())?
        .filter_map(|entry| entry.ok())
        .filter(|entry| {
            entry
                .file_name()
                .to_string_lossy()
                .starts_with("copydesk.db")
        })
        .filter_map(|entry| entry.metadata().ok())
        .map(|meta| meta.len())
        .sum();
    let starting = Instant::now();
    server.restart();
    let start = starting.elapsed();

    let kinds: Vec<(String, QueryMaker)> = if args.common_words > 0 {
        even_kinds(&words, args.common_words, &tags)
    } else {
        skewed_kinds(&words, &tags)
    };
    let stories: i64 = rusqlite::Connection::open(server.db_path())?.query_row(
        "SELECT count(*) FROM content",
        [],
        |row| row.get(0),
    )?;
    if let Some(making) = making {
        println!(
            "{stories} stories made in {:.0} s ({:.0} a second)",
            making.as_secs_f64(),
            stories as f64 / making.as_secs_f64(),
        );
    }
    println!(
        "{stories} stories; database {:.0} MiB, {:.0} bytes a story",
        bytes as f64 / 1_048_576.0,
        bytes as f64 / stories as f64
    );
    println!(
        "the server started on it in {:.2} s (its quick_check included)",
        start.as_secs_f64()
    );
    let (authors, day) = {
        let db = rusqlite::Connection::open(server.db_path())?;
        let authors = db
            .prepare("SELECT uuid FROM authors ORDER BY id")?
            .query_map([], |row| row.get(0))?
            .collect::<Result<Vec<String>, _>>()?;
        let day: String = db.query_row(
            "SELECT replace(datetime(max(modified_at), '-1 day'), ' ', 'T') || 'Z' FROM content",
            [],
            |row| row.get(0),
        )?;
        (authors, day)
    };
    let mut kinds = kinds;
    if args.lists {
        kinds.extend(list_kinds(&tags, &authors, &day));
    }
    println!("on SQLite:");
    time_kinds(&server, &kinds, &mut dice, args.searches)?;
    if args.on_postgres {
        let (_cluster, on) = match &args.imported {
            Some(url) => (None, TestServer::start_on_database(url)),
            None => {
                let (cluster, on) = on_postgres(&mut server)?;
                (Some(cluster), on)
            }
        };
        println!("on PostgreSQL:");
        time_kinds(&on, &kinds, &mut dice, args.searches)?;
    }
    Ok(())
}

/// Makes the stories through the core library, as the server keeps them;
/// the tags' UUIDs and how long it took.
fn make_archive(
    server: &TestServer,
    args: &Args,
    words: &[String],
    dice: &mut Dice,
) -> Result<(Vec<String>, Duration)> {
    let cms = Cms::open(server.dir.path(), "copydesk").context("opening the data directory")?;
    // Stories are kept rendered as the server would keep them.
    copydesk_api::keep_rendered_content(&cms);
    let who = cms
        .authenticate(Some(&Credential::PrivateKey(
            server.admin.private_key.clone(),
        )))
        .context("the admin key")?;

    let authors = (0..200)
        .map(|i| {
            let name = format!(
                "{} {}",
                capitalised(&words[500 + i]),
                capitalised(&words[900 + i])
            );
            cms.create_author(
                &who,
                AuthorInput {
                    name: Some(name),
                    ..AuthorInput::default()
                },
            )
            .map(|a| a.uuid)
        })
        .collect::<Result<Vec<_>, _>>()?;
    let tags = (0..50)
        .map(|i| {
            cms.create_tag(
                &who,
                TagInput {
                    name: Some(format!("Desk {}", words[1500 + i])),
                    slug: None,
                },
            )
            .map(|t| t.uuid)
        })
        .collect::<Result<Vec<_>, _>>()?;

    println!(
        "making {} stories in batches of {}",
        args.stories, args.batch
    );
    let even = (args.common_words > 0).then(|| common_words(words, args.common_words));
    let started = Instant::now();
    let mut made = 0;
    while made < args.stories {
        let n = args.batch.min(args.stories - made);
        let inputs = (0..n)
            .map(|_| {
                let mut paragraphs: Vec<String> = (0..4)
                    .map(|_| {
                        let length = 40 + dice.below(30);
                        let text = match even {
                            Some(common) => even_sentence(dice, common, length),
                            None => sentence(dice, words, length),
                        };
                        format!("<p>{text}.</p>")
                    })
                    .collect();
                if even.is_some() && dice.below(2_000) == 0 {
                    let rare = rare_words(words);
                    paragraphs.push(format!("<p>{}.</p>", rare[dice.below(rare.len())]));
                }
                let title_length = 6 + dice.below(5);
                let (title, standfirst) = match even {
                    Some(common) => (
                        even_sentence(dice, common, title_length),
                        even_sentence(dice, common, 20),
                    ),
                    None => (
                        sentence(dice, words, title_length),
                        sentence(dice, words, 20),
                    ),
                };
                ContentInput {
                    title: Some(capitalised(&title)),
                    content_type: Some("article".into()),
                    abstract_text: Some(standfirst),
                    body: Some(paragraphs.join("")),
                    authors: Some(vec![authors[dice.skewed(authors.len())].clone()]),
                    tags: Some(vec![tags[dice.below(tags.len())].clone()]),
                    ..ContentInput::default()
                }
            })
            .collect();
        made += cms.create_contents(&who, inputs)?;
        if made % 100_000 < args.batch {
            println!(
                "  {made} stories, {:.0} a second",
                made as f64 / started.elapsed().as_secs_f64()
            );
        }
    }
    let making = started.elapsed();
    cms.checkpoint().context("checkpointing")?;
    drop(cms);
    Ok((tags, making))
}

/// Makes the query string of one timed search.
type QueryMaker<'a> = Box<dyn Fn(&mut Dice) -> String + 'a>;

fn capitalised(text: &str) -> String {
    let mut chars = text.chars();
    match chars.next() {
        Some(first) => first.to_uppercase().chain(chars).collect(),
        None => String::new(),
    }
}
