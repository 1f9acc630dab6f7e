//! Crash safety: a child process writes messages to a SQLite store in a loop and reports each
//! commit on stdout; the parent kills it with SIGKILL at random moments, reopens the database
//! and checks that every reported message is intact and nothing is half-written.
//!
//! This test has its own `main` (`harness = false`): run with `BRAID_CRASH_WRITER=<db path>`,
//! the same binary is the child writer.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::collections::HashMap;
use std::io::{BufRead as _, BufReader, Write as _};
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use braid_protocol::{BranchName, Message, MessageId, MessageKind, MessageStatus, TextMessage};
use braid_store::{ContextChanges, ContextRecord, MessageRange, SqliteStore, Store};

const WRITER_ENV: &str = "BRAID_CRASH_WRITER";
const CONTEXT_ENV: &str = "BRAID_CRASH_CONTEXT";
const KILLS: usize = 25;

fn main() {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    if let Ok(path) = std::env::var(WRITER_ENV) {
        runtime.block_on(write_until_killed(Path::new(&path)));
        return;
    }
    print!("test messages_reported_committed_survive_sigkill ... ");
    runtime.block_on(messages_reported_committed_survive_sigkill());
    println!("ok\n\ntest result: ok. 1 passed; 0 failed");
}

/// The child: streams messages forever, announcing each commit.
async fn write_until_killed(path: &Path) {
    let context = std::env::var(CONTEXT_ENV).unwrap().parse().unwrap();
    let store = SqliteStore::open(path).await.unwrap();
    let main = BranchName::main();
    let mut out = std::io::stdout().lock();
    for n in 0.. {
        // Start a streamed answer, then complete it, as the engine does.
        let mut message = Message::assistant_text("").with_status(MessageStatus::Streaming);
        if let MessageKind::Text(text) = &mut message.kind {
            text.push_text("partial ");
        }
        store
            .save_changes(
                context,
                &ContextChanges::new().add_message(&main, message.clone()),
            )
            .await
            .unwrap();
        writeln!(out, "S {}", message.id).unwrap();
        let text = format!("answer number {n} {}", "lorem ipsum ".repeat(n % 50));
        message.kind = MessageKind::Text(TextMessage::plain(text.clone()));
        message.status = MessageStatus::Complete;
        message.updated_at = chrono::Utc::now();
        store
            .save_changes(
                context,
                &ContextChanges::new().update_message(message.clone()),
            )
            .await
            .unwrap();
        writeln!(out, "C {} {text}", message.id).unwrap();
        out.flush().unwrap();
    }
}

/// A small xorshift generator: the kill moments only need to vary, not be unpredictable.
struct Dice(u64);

impl Dice {
    fn below(&mut self, n: u64) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0 % n
    }
}

async fn messages_reported_committed_survive_sigkill() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("crash").join("braid.db");
    let record = ContextRecord::new("crash", Default::default());
    {
        let store = SqliteStore::open(&path).await.unwrap();
        store.create_context(&record).await.unwrap();
        store.close().await.unwrap();
    }
    let seed = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .unwrap()
        .as_nanos() as u64
        | 1;
    let mut dice = Dice(seed);
    // Every message the children said was committed: its final text, when it reached it.
    let mut reported: HashMap<MessageId, Option<String>> = HashMap::new();
    let started = Instant::now();
    for round in 0..KILLS {
        let mut child = Command::new(std::env::current_exe().unwrap())
            .env(WRITER_ENV, &path)
            .env(CONTEXT_ENV, record.id.to_string())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .unwrap();
        let stdout = child.stdout.take().unwrap();
        let reader = std::thread::spawn(move || {
            BufReader::new(stdout)
                .lines()
                .map_while(Result::ok)
                .collect::<Vec<String>>()
        });
        // Sometimes before the store is even open, mostly mid-write.
        let wait = match dice.below(4) {
            0 => dice.below(20),
            _ => 20 + dice.below(150),
        };
        std::thread::sleep(Duration::from_millis(wait));
        child.kill().unwrap(); // SIGKILL on Unix
        child.wait().unwrap();
        let lines = reader.join().unwrap();
        for line in &lines {
            // A line cut by the kill was never fully reported: ignore it.
            let mut parts = line.splitn(3, ' ');
            let (Some(tag), Some(id)) = (parts.next(), parts.next()) else {
                continue;
            };
            let Ok(id) = id.parse::<MessageId>() else {
                continue;
            };
            match (tag, parts.next()) {
                ("S", None) => {
                    reported.entry(id).or_insert(None);
                }
                ("C", Some(text)) => {
                    reported.insert(id, Some(text.to_owned()));
                }
                _ => {}
            }
        }
        check_database(&path, &record, &reported, round).await;
    }
    assert!(
        reported.len() > KILLS,
        "the children committed too little to test anything ({} messages)",
        reported.len()
    );
    eprintln!(
        "{KILLS} kills, {} messages reported committed, {:?}",
        reported.len(),
        started.elapsed()
    );
}

async fn check_database(
    path: &Path,
    record: &ContextRecord,
    reported: &HashMap<MessageId, Option<String>>,
    round: usize,
) {
    let store = SqliteStore::open(path)
        .await
        .unwrap_or_else(|e| panic!("reopening after kill {round} failed: {e}"));
    let branch = store
        .load_messages(record.id, &BranchName::main(), MessageRange::All)
        .await
        .unwrap();
    let pool = store.all_messages(record.id).await.unwrap();
    // Each message and its place on the branch are written together, or not at all.
    assert_eq!(
        branch.len(),
        pool.len(),
        "after kill {round}: a message is in the pool but not on its branch"
    );
    let mut by_id = HashMap::new();
    for message in &branch {
        match &message.kind {
            MessageKind::Text(text) => {
                let text = text.text();
                match message.status {
                    MessageStatus::Complete => assert!(text.starts_with("answer number")),
                    MessageStatus::Streaming => assert_eq!(text, "partial "),
                    other => panic!("after kill {round}: unexpected status {other:?}"),
                }
                by_id.insert(message.id, (message.status, text));
            }
            other => panic!("after kill {round}: half-written message read as {other:?}"),
        }
    }
    for (id, final_text) in reported {
        let Some((status, text)) = by_id.get(id) else {
            panic!("after kill {round}: committed message {id} is missing");
        };
        if let Some(expected) = final_text {
            assert_eq!(*status, MessageStatus::Complete, "message {id}");
            assert_eq!(text, expected, "message {id}");
        }
    }
    let raw =
        sqlx::SqlitePool::connect_with(sqlx::sqlite::SqliteConnectOptions::new().filename(path))
            .await
            .unwrap();
    let integrity: String = sqlx::query_scalar("PRAGMA integrity_check")
        .fetch_one(&raw)
        .await
        .unwrap();
    raw.close().await;
    assert_eq!(integrity, "ok", "after kill {round}");
    store.close().await.unwrap();
}
