//! The crash campaign (issue 14): a real `braid serve` drives many contexts at once through
//! streamed answers, tool loops with manual approvals and queued sends, and is killed with
//! SIGKILL at instants drawn from a seeded generator, then started again on the same data.
//! After every restart the campaign checks that nothing accepted or reported was lost: see
//! [`Campaign::check_after_restart`] and [`Campaign::check_settled`].
//!
//! Knobs: `BRAID_CHAOS_KILLS` (default 20), `BRAID_CHAOS_SEED` (default: drawn and printed),
//! `BRAID_CHAOS_CONTEXTS` (default 6).
#![allow(dead_code)]

pub mod ledger;
pub mod model;
pub mod process;

use std::path::PathBuf;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use futures::StreamExt;
use serde_json::{Value, json};
use tokio::task::JoinHandle;

use ledger::{Accepted, Connection, ContextRecord, Figures, Ledger, Problem, Seen};
use model::Ask;
use process::{Braid, StoreKind};

/// The campaign's size and seed.
#[derive(Clone, Copy, Debug)]
pub struct Knobs {
    pub kills: u32,
    pub seed: u64,
    pub contexts: usize,
}

impl Knobs {
    /// From `BRAID_CHAOS_KILLS`, `BRAID_CHAOS_SEED` and `BRAID_CHAOS_CONTEXTS`.
    pub fn from_env() -> Knobs {
        let number = |name: &str| {
            std::env::var(name).ok().map(|v| {
                v.trim()
                    .parse::<u64>()
                    .unwrap_or_else(|_| panic!("{name}={v} is not a whole number"))
            })
        };
        Knobs {
            kills: number("BRAID_CHAOS_KILLS").unwrap_or(20) as u32,
            seed: number("BRAID_CHAOS_SEED").unwrap_or_else(|| fastrand::u64(..)),
            contexts: number("BRAID_CHAOS_CONTEXTS").unwrap_or(6).max(1) as usize,
        }
    }
}

/// A context with more messages than this is no longer driven (its checks stay cheap); it is
/// checked again at the end.
const RETIRE_AFTER_MESSAGES: usize = 120;
/// How long every context gets to come to rest after a restart.
const SETTLE_TIMEOUT: Duration = Duration::from_secs(40);
/// How long a client may take to catch up with the log once the server rests.
const CATCH_UP_TIMEOUT: Duration = Duration::from_secs(5);
/// Silence that ends reading the log.
const LOG_QUIET: Duration = Duration::from_millis(400);
/// Every request but the event streams.
const REQUEST_TIMEOUT: Duration = Duration::from_secs(15);

/// Runs a whole campaign; answers its figures (and prints them, and the first problems).
pub async fn run(store: StoreKind, knobs: Knobs) -> (Figures, Vec<String>) {
    eprintln!(
        "chaos: store={} kills={} contexts={} seed={} (reproduce with BRAID_CHAOS_SEED={})",
        store.name(),
        knobs.kills,
        knobs.contexts,
        knobs.seed,
        knobs.seed
    );
    let dir = tempfile::tempdir().unwrap();
    let mut campaign = Campaign::new(store, knobs, dir.path().to_owned()).await;
    campaign.run().await;
    let ledger = campaign.ledger.lock().unwrap();
    let figures = ledger.figures.clone();
    let problems = ledger.problems.clone();
    drop(ledger);
    eprintln!("{figures}");
    (figures, problems)
}

struct Campaign {
    store: StoreKind,
    knobs: Knobs,
    root: PathBuf,
    workspace: PathBuf,
    rng: fastrand::Rng,
    mock: braid_testkit::MockLlm,
    http: reqwest::Client,
    ledger: Arc<Mutex<Ledger>>,
    server: Option<Braid>,
    generation: u32,
    followers: Vec<JoinHandle<()>>,
}

/// Where the next kill lands.
#[derive(Clone, Copy, Debug)]
enum KillPoint {
    /// While the contexts are driven.
    Working(Duration),
    /// While the restarted server recovers and resumes (a crash during recovery).
    Recovering(Duration),
}

impl Campaign {
    async fn new(store: StoreKind, knobs: Knobs, root: PathBuf) -> Campaign {
        let workspace = root.join("workspace");
        std::fs::create_dir_all(workspace.join("runs")).unwrap();
        let mock = model::start(&format!("call-{}", knobs.seed)).await;
        let ledger = Ledger {
            figures: Figures {
                store: store.name(),
                seed: knobs.seed,
                ..Figures::default()
            },
            ..Ledger::default()
        };
        Campaign {
            store,
            knobs,
            root,
            workspace,
            rng: fastrand::Rng::with_seed(knobs.seed),
            mock,
            http: reqwest::Client::builder()
                .timeout(REQUEST_TIMEOUT)
                .build()
                .unwrap(),
            ledger: Arc::new(Mutex::new(ledger)),
            server: None,
            generation: 0,
            followers: Vec::new(),
        }
    }

    fn url(&self) -> String {
        self.server
            .as_ref()
            .map(|s| s.url.clone())
            .unwrap_or_default()
    }

    fn start_server(&mut self) {
        self.generation += 1;
        let server = Braid::start(
            &self.root,
            &self.store,
            &self.mock.openai_base_url(),
            self.generation,
        );
        self.server = Some(server);
        // The mock keeps no record the campaign needs.
        self.mock.take_requests();
    }

    fn kill_server(&mut self) {
        if let Some(mut server) = self.server.take() {
            server.kill();
        }
        for f in self.followers.drain(..) {
            f.abort();
        }
    }

    async fn run(&mut self) {
        let started = std::time::Instant::now();
        self.start_server();
        for _ in 0..self.knobs.contexts {
            self.new_context().await;
        }
        self.follow_all();
        for kill in 0..self.knobs.kills {
            if kill > 0 {
                self.check_after_restart().await;
            }
            let point = if self.rng.u32(0..4) == 0 {
                KillPoint::Recovering(Duration::from_millis(self.rng.u64(20..600)))
            } else {
                KillPoint::Working(Duration::from_millis(self.rng.u64(150..1800)))
            };
            match point {
                KillPoint::Recovering(after) => {
                    let settling = self.spawn_settle_all();
                    tokio::time::sleep(after).await;
                    self.kill_server();
                    for s in settling {
                        s.abort();
                    }
                }
                KillPoint::Working(after) => {
                    self.settle_all().await;
                    self.check_settled().await;
                    self.retire_and_replace().await;
                    let drivers = self.spawn_drivers();
                    tokio::time::sleep(after).await;
                    self.kill_server();
                    for d in drivers {
                        d.abort();
                    }
                }
            }
            self.ledger.lock().unwrap().figures.kills += 1;
            eprintln!(
                "chaos: kill {} ({point:?}) at {:.1} s",
                kill + 1,
                started.elapsed().as_secs_f64()
            );
            self.start_server();
            self.follow_all();
        }
        // The end: every context, retired ones too, checked once more.
        for record in self.ledger.lock().unwrap().contexts.iter_mut() {
            record.retired = false;
        }
        self.check_after_restart().await;
        self.settle_all().await;
        self.check_settled().await;
        let problems = self.ledger.lock().unwrap().problems.len();
        if problems > 0
            && let Some(server) = &self.server
        {
            eprintln!("chaos: the last server's log:\n{}", server.log_tail());
        }
        self.kill_server();
    }

    async fn new_context(&mut self) {
        let config = json!({
            "workspace": self.workspace.display().to_string(),
            "approval_policy": {"type": "manual"},
            "mode": "act",
            "agent_role": "actor",
            "context_window": 1_000_000,
        });
        let (status, body) = call(
            &self.http,
            &self.url(),
            "POST",
            "/v1/contexts",
            Some(json!({"title": "chaos", "config": config})),
        )
        .await
        .unwrap();
        assert_eq!(status, 201, "creating a context: {body}");
        let id = body["id"].as_str().unwrap().to_owned();
        let mut ledger = self.ledger.lock().unwrap();
        ledger.contexts.push(ContextRecord {
            id,
            ..ContextRecord::default()
        });
        ledger.figures.contexts = ledger.contexts.len();
    }

    /// Starts a client per driven context, resuming from the last id it saw.
    fn follow_all(&mut self) {
        for (ctx, _) in self.driven() {
            self.follow_one(ctx);
        }
    }

    fn driven(&self) -> Vec<(usize, String)> {
        let ledger = self.ledger.lock().unwrap();
        ledger
            .contexts
            .iter()
            .enumerate()
            .filter(|(_, c)| !c.retired)
            .map(|(i, c)| (i, c.id.clone()))
            .collect()
    }

    fn spawn_settle_all(&self) -> Vec<JoinHandle<()>> {
        self.driven()
            .into_iter()
            .map(|(_, id)| {
                let http = self.http.clone();
                let url = self.url();
                tokio::spawn(async move {
                    let _ = settle(&http, &url, &id).await;
                })
            })
            .collect()
    }

    /// Resumes what the crash interrupted and approves what waits, until every context rests.
    async fn settle_all(&mut self) {
        let url = self.url();
        let jobs = self.driven().into_iter().map(|(_, id)| {
            let http = self.http.clone();
            let url = url.clone();
            async move { (id.clone(), settle(&http, &url, &id).await) }
        });
        for (id, outcome) in futures::future::join_all(jobs).await {
            if let Err(why) = outcome {
                self.ledger
                    .lock()
                    .unwrap()
                    .problem(Problem::Unsettled, format!("context {id}: {why}"));
            }
        }
    }

    /// Right after a restart, before anything is resumed: every context loads, and every
    /// message ever reported complete is there, complete and unchanged.
    async fn check_after_restart(&mut self) {
        let url = self.url();
        for (ctx, id) in self.driven() {
            let (status, body) =
                match call(&self.http, &url, "GET", &format!("/v1/contexts/{id}"), None).await {
                    Ok(answer) => answer,
                    Err(e) => (0, json!(e)),
                };
            if status != 200 {
                self.ledger.lock().unwrap().problem(
                    Problem::LoadFailure,
                    format!("GET /v1/contexts/{id} answered {status}: {body}"),
                );
                continue;
            }
            self.check_messages(ctx, &id, false).await;
        }
    }

    /// Once every context rests: the checks above, plus no message left mid-operation, every
    /// accepted send stored, every client caught up with the log without gap or duplicate, and
    /// no tool call run twice.
    async fn check_settled(&mut self) {
        let url = self.url();
        let driven = self.driven();
        for (ctx, id) in &driven {
            self.check_messages(*ctx, id, true).await;
        }
        // Reading a log ends with a quiet spell: read them all at once.
        futures::future::join_all(
            driven
                .iter()
                .map(|(ctx, id)| self.check_log(*ctx, id, &url)),
        )
        .await;
        self.check_tool_runs();
    }

    async fn check_messages(&self, ctx: usize, id: &str, settled: bool) {
        let messages = match all_messages(&self.http, &self.url(), id).await {
            Ok(m) => m,
            Err(why) => {
                self.ledger
                    .lock()
                    .unwrap()
                    .problem(Problem::LoadFailure, format!("messages of {id}: {why}"));
                return;
            }
        };
        let mut ledger = self.ledger.lock().unwrap();
        let mut problems: Vec<(Problem, String)> = Vec::new();
        let record = &mut ledger.contexts[ctx];
        let by_id: std::collections::HashMap<String, &Value> = messages
            .iter()
            .filter_map(|m| Some((m["id"].as_str()?.to_owned(), m)))
            .collect();
        // Each loss counts once: what was reported is forgotten.
        let mut lost: Vec<String> = Vec::new();
        for (mid, before) in &record.complete {
            match by_id.get(mid) {
                None => problems.push((
                    Problem::LostMessage,
                    format!("context {id}: complete message {mid} vanished: {before}"),
                )),
                Some(now) if ledger::normalize(now) != *before => problems.push((
                    Problem::LostMessage,
                    format!("context {id}: complete message {mid} changed from {before} to {now}"),
                )),
                Some(_) => continue,
            }
            lost.push(mid.clone());
        }
        for mid in &record.reported_complete {
            match by_id.get(mid) {
                Some(m) if m["status"] == "complete" => continue,
                other => problems.push((
                    Problem::LostMessage,
                    format!(
                        "context {id}: message {mid} was reported complete by an event but is {}",
                        other.map_or("missing".to_owned(), |m| m.to_string())
                    ),
                )),
            }
            lost.push(mid.clone());
        }
        for mid in &lost {
            record.complete.remove(mid);
            record.reported_complete.remove(mid);
        }
        for m in &messages {
            let Some(mid) = m["id"].as_str() else {
                continue;
            };
            if m["status"] == "complete" {
                record
                    .complete
                    .entry(mid.to_owned())
                    .or_insert_with(|| ledger::normalize(m));
                // A streamed answer holds exactly the pieces its client was sent.
                if let Some(pieces) = record.deltas.get(mid)
                    && record.reported_complete.contains(mid)
                    && !record.restreamed.contains(mid)
                    && pieces.keys().copied().eq(1..=pieces.len() as u64)
                {
                    let streamed: String = pieces.values().map(String::as_str).collect();
                    let stored = ledger::text_of(m);
                    if streamed != stored {
                        problems.push((
                            Problem::LostMessage,
                            format!("context {id}: message {mid} was streamed as {streamed:?} but is stored as {stored:?}"),
                        ));
                    }
                }
            }
            if settled
                && ["pending", "streaming", "processing"]
                    .contains(&m["status"].as_str().unwrap_or(""))
            {
                problems.push((
                    Problem::Unsettled,
                    format!(
                        "context {id}: message {mid} left {} after the server settled",
                        m["status"]
                    ),
                ));
            }
        }
        if settled {
            record.accepted.retain(|Accepted { message_id, text }| {
                match by_id.get(message_id) {
                    None => problems.push((
                        Problem::LostMessage,
                        format!("context {id}: send {text:?} was answered 202 with message {message_id}, which does not exist"),
                    )),
                    Some(m) if ledger::text_of(m) != *text => problems.push((
                        Problem::LostMessage,
                        format!("context {id}: accepted message {message_id} should say {text:?}: {m}"),
                    )),
                    Some(_) => return true,
                }
                false
            });
        }
        if messages.len() > RETIRE_AFTER_MESSAGES && settled {
            record.retired = true;
        }
        for (kind, detail) in problems {
            ledger.problem(kind, detail);
        }
    }

    /// Reads the context's log from the oldest unchecked resume point and checks every client
    /// connection against it: each got exactly the log's events after the id it resumed from,
    /// in order, and the last one caught up with the end of the log.
    async fn check_log(&self, ctx: usize, id: &str, url: &str) {
        let (from, caught_up_to) = {
            let ledger = self.ledger.lock().unwrap();
            let r = &ledger.contexts[ctx];
            let from = r
                .connections
                .iter()
                .filter(|c| !c.done)
                .map(|c| c.after)
                .chain([r.log_checked])
                .min()
                .unwrap_or(0);
            (from, r.last_seen)
        };
        let log = read_log(url, id, from, caught_up_to).await;
        let log_end = log.last().map(|(i, _)| *i).unwrap_or(from);
        // Give the client the same chance to reach the end of the log.
        let deadline = tokio::time::Instant::now() + CATCH_UP_TIMEOUT;
        while self.ledger.lock().unwrap().contexts[ctx].last_seen < log_end
            && tokio::time::Instant::now() < deadline
        {
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
        let mut ledger = self.ledger.lock().unwrap();
        let mut previous = from;
        let mut problems = Vec::new();
        for (event_id, _) in &log {
            if *event_id <= previous {
                problems.push((
                    Problem::DuplicatedId,
                    format!("context {id}: the log holds id {event_id} after {previous}"),
                ));
            }
            previous = *event_id;
        }
        for (event_id, seen) in log.iter().cloned() {
            ledger.sighting(ctx, event_id, seen);
        }
        let in_log: Vec<u64> = log.iter().map(|(i, _)| *i).collect();
        let generation = self.generation;
        let record = &mut ledger.contexts[ctx];
        for c in record.connections.iter_mut().filter(|c| !c.done) {
            let last = c.last;
            let expected: Vec<u64> = in_log
                .iter()
                .copied()
                .filter(|i| *i > c.after && *i <= last)
                .collect();
            let missing: Vec<u64> = expected
                .iter()
                .filter(|i| !c.ids.contains(i))
                .copied()
                .collect();
            let foreign: Vec<u64> = c
                .ids
                .iter()
                .filter(|i| !in_log.contains(i))
                .copied()
                .collect();
            if !missing.is_empty() {
                problems.push((
                    Problem::Gap,
                    format!("context {id}: a client reading after {} (server {}) never got ids {missing:?}", c.after, c.generation),
                ));
            }
            if !foreign.is_empty() {
                problems.push((
                    Problem::Gap,
                    format!("context {id}: a client reading after {} (server {}) got ids {foreign:?} that the log does not hold (log {from}..={log_end})", c.after, c.generation),
                ));
            }
            if c.generation == generation && last < log_end {
                problems.push((
                    Problem::Gap,
                    format!("context {id}: the client reading after {} stopped at {last}; the log goes on to {log_end}", c.after),
                ));
            }
            c.after = last;
            c.ids.clear();
            c.done = c.generation != generation;
        }
        record.log_checked = log_end;
        for (kind, detail) in problems {
            ledger.problem(kind, detail);
        }
    }

    /// Counts the side-effect lines of every tool call: one per call at most.
    fn check_tool_runs(&mut self) {
        let runs = self.workspace.join("runs");
        let mut ledger = self.ledger.lock().unwrap();
        for entry in std::fs::read_dir(&runs).unwrap().flatten() {
            let name = entry.file_name().to_string_lossy().into_owned();
            let count = std::fs::read_to_string(entry.path())
                .unwrap_or_default()
                .lines()
                .count();
            if count > 1 && ledger.tool_runs_reported.insert(name.clone()) {
                ledger.problem(
                    Problem::DuplicatedToolRun,
                    format!(
                        "tool call {} ran {count} times",
                        name.trim_end_matches(".log")
                    ),
                );
            }
        }
    }

    /// Contexts with many messages stop being driven; new ones take their place.
    async fn retire_and_replace(&mut self) {
        let retired: Vec<usize> = {
            let ledger = self.ledger.lock().unwrap();
            ledger
                .contexts
                .iter()
                .enumerate()
                .filter(|(_, c)| c.retired && !c.replaced)
                .map(|(i, _)| i)
                .collect()
        };
        for ctx in retired {
            {
                let mut ledger = self.ledger.lock().unwrap();
                let record = &mut ledger.contexts[ctx];
                record.replaced = true;
                for c in &mut record.connections {
                    c.done = true;
                }
            }
            self.new_context().await;
            let last = self.ledger.lock().unwrap().contexts.len() - 1;
            self.follow_one(last);
        }
    }

    fn follow_one(&mut self, ctx: usize) {
        let url = self.url();
        let generation = self.generation;
        let (id, after, conn) = {
            let mut ledger = self.ledger.lock().unwrap();
            let r = &mut ledger.contexts[ctx];
            r.connections.push(Connection::new(r.last_seen, generation));
            (r.id.clone(), r.last_seen, r.connections.len() - 1)
        };
        let ledger = self.ledger.clone();
        self.followers.push(tokio::spawn(async move {
            follow(&url, &id, after, |event_id, seen| {
                ledger.lock().unwrap().received(ctx, conn, event_id, seen);
            })
            .await;
        }));
    }

    /// One driver per context: sends, approves, resumes, at random, until killed.
    fn spawn_drivers(&mut self) -> Vec<JoinHandle<()>> {
        self.driven()
            .into_iter()
            .map(|(ctx, id)| {
                let http = self.http.clone();
                let url = self.url();
                let ledger = self.ledger.clone();
                let rng = fastrand::Rng::with_seed(self.rng.u64(..));
                tokio::spawn(async move {
                    let _ = drive(&http, &url, &id, ctx, &ledger, rng).await;
                })
            })
            .collect()
    }
}

/// An HTTP failure (the server was killed, most often).
type Failed = String;

pub async fn call(
    http: &reqwest::Client,
    url: &str,
    method: &str,
    path: &str,
    body: Option<Value>,
) -> Result<(u16, Value), Failed> {
    let mut r = http.request(method.parse().unwrap(), format!("{url}{path}"));
    if let Some(b) = body {
        r = r
            .header("content-type", "application/json")
            .body(b.to_string());
    }
    let res = r.send().await.map_err(|e| e.to_string())?;
    let status = res.status().as_u16();
    let text = res.text().await.map_err(|e| e.to_string())?;
    Ok((status, serde_json::from_str(&text).unwrap_or(Value::Null)))
}

pub async fn all_messages(
    http: &reqwest::Client,
    url: &str,
    id: &str,
) -> Result<Vec<Value>, Failed> {
    let mut out = Vec::new();
    let mut after: Option<String> = None;
    loop {
        let path = match &after {
            Some(a) => format!("/v1/contexts/{id}/messages?limit=500&after={a}"),
            None => format!("/v1/contexts/{id}/messages?limit=500"),
        };
        let (status, body) = call(http, url, "GET", &path, None).await?;
        if status != 200 {
            return Err(format!("GET {path} answered {status}: {body}"));
        }
        out.extend(body["messages"].as_array().cloned().unwrap_or_default());
        match body["next_after"].as_str() {
            Some(next) => after = Some(next.to_owned()),
            None => return Ok(out),
        }
    }
}

/// Follows a context's events from `after` (sent as `Last-Event-ID`), handing each logged
/// event to `got`, until the stream breaks.
pub async fn follow(url: &str, id: &str, after: u64, mut got: impl FnMut(u64, Seen)) {
    let Ok(res) = reqwest::Client::new()
        .get(format!("{url}/v1/contexts/{id}/events"))
        .header("Last-Event-ID", after.to_string())
        .send()
        .await
    else {
        return;
    };
    if res.status().as_u16() != 200 {
        return;
    }
    let mut stream = res.bytes_stream();
    let mut buf = String::new();
    while let Some(Ok(bytes)) = stream.next().await {
        buf.push_str(&String::from_utf8_lossy(&bytes));
        while let Some(end) = buf.find("\n\n") {
            let frame: String = buf[..end].to_owned();
            buf.drain(..end + 2);
            if let Some((event_id, seen)) = parse_frame(&frame) {
                got(event_id, seen);
            }
        }
    }
}

/// An SSE frame with an `id:` (heartbeats and notices have none).
fn parse_frame(frame: &str) -> Option<(u64, Seen)> {
    let mut event = "message".to_owned();
    let mut id = None;
    let mut data = String::new();
    for line in frame.lines() {
        if let Some(v) = line.strip_prefix("event:") {
            event = v.trim().to_owned();
        } else if let Some(v) = line.strip_prefix("id:") {
            id = v.trim().parse().ok();
        } else if let Some(v) = line.strip_prefix("data:") {
            data.push_str(v.strip_prefix(' ').unwrap_or(v));
        }
    }
    Some((
        id?,
        Seen {
            event,
            data: serde_json::from_str(&data).unwrap_or(Value::String(data)),
        },
    ))
}

/// The context's logged events after `after`, read as a replay until it has passed
/// `at_least` and then stays quiet.
pub async fn read_log(url: &str, id: &str, after: u64, at_least: u64) -> Vec<(u64, Seen)> {
    let Ok(res) = reqwest::Client::new()
        .get(format!("{url}/v1/contexts/{id}/events?after={after}"))
        .send()
        .await
    else {
        return Vec::new();
    };
    let mut stream = res.bytes_stream();
    let mut buf = String::new();
    let mut out: Vec<(u64, Seen)> = Vec::new();
    let deadline = tokio::time::Instant::now() + Duration::from_secs(30);
    loop {
        let reached = out.last().map_or(after, |(i, _)| *i) >= at_least;
        let wait = if reached {
            LOG_QUIET
        } else {
            Duration::from_secs(3)
        };
        if tokio::time::Instant::now() > deadline {
            return out;
        }
        match tokio::time::timeout(wait, stream.next()).await {
            Ok(Some(Ok(bytes))) => {
                buf.push_str(&String::from_utf8_lossy(&bytes));
                while let Some(end) = buf.find("\n\n") {
                    let frame: String = buf[..end].to_owned();
                    buf.drain(..end + 2);
                    if let Some(e) = parse_frame(&frame) {
                        out.push(e);
                    }
                }
            }
            _ => return out,
        }
    }
}

/// Brings one context to rest: resumes an interrupted or paused turn, approves waiting calls,
/// and waits while it works. Answers why not when it does not rest in time.
async fn settle(http: &reqwest::Client, url: &str, id: &str) -> Result<(), String> {
    let deadline = tokio::time::Instant::now() + SETTLE_TIMEOUT;
    let mut idle_seen = 0;
    let mut last = Value::Null;
    while tokio::time::Instant::now() < deadline {
        let (status, body) =
            call(http, url, "GET", &format!("/v1/contexts/{id}/state"), None).await?;
        if status != 200 {
            return Err(format!("GET state answered {status}: {body}"));
        }
        let state = body["state"].clone();
        match state["type"].as_str().unwrap_or("") {
            "idle" => {
                idle_seen += 1;
                if idle_seen >= 3 {
                    return Ok(());
                }
            }
            "awaiting_tool_approval" => {
                idle_seen = 0;
                if let Err(why) = approve(http, url, id, &state).await
                    && last == state
                {
                    return Err(format!("stuck in {state}: {why}"));
                }
            }
            "failed" | "paused" => {
                idle_seen = 0;
                let (status, body) = call(
                    http,
                    url,
                    "POST",
                    &format!("/v1/contexts/{id}/resume"),
                    None,
                )
                .await?;
                if status == 409 && state["type"] == "failed" && state["recoverable"] == false {
                    return Ok(());
                }
                // A read made while an earlier resume's move to rest is being stored shows
                // the state last committed; the refusal then names the state the context is
                // really in, and the next read shows it. Only a refusal naming the state read
                // twice is a context that cannot be resumed.
                let refused_in = body["error"]["message"].as_str().unwrap_or("");
                let named = format!("`{}`", state["type"].as_str().unwrap_or(""));
                if status == 409 && last == state && refused_in.contains(&named) {
                    return Err(format!("{state} cannot be resumed: {body}"));
                }
            }
            _ => idle_seen = 0,
        }
        last = state;
        tokio::time::sleep(Duration::from_millis(60)).await;
    }
    Err(format!("still {last} after {SETTLE_TIMEOUT:?}"))
}

async fn approve(http: &reqwest::Client, url: &str, id: &str, state: &Value) -> Result<(), Failed> {
    let decisions: Vec<Value> = state["pending_requests"]
        .as_array()
        .cloned()
        .unwrap_or_default()
        .into_iter()
        .map(|call_id| json!({"call_id": call_id, "decision": "approve"}))
        .collect();
    if decisions.is_empty() {
        return Ok(());
    }
    let (status, body) = call(
        http,
        url,
        "POST",
        &format!("/v1/contexts/{id}/approvals"),
        Some(json!({ "decisions": decisions })),
    )
    .await?;
    if status >= 400 {
        return Err(format!("approving {decisions:?} answered {status}: {body}"));
    }
    Ok(())
}

/// Drives one context until the server dies: at rest it sends (a streamed answer, a tool loop,
/// or two sends back to back), waiting calls are approved, stopped turns resumed.
async fn drive(
    http: &reqwest::Client,
    url: &str,
    id: &str,
    ctx: usize,
    ledger: &Mutex<Ledger>,
    mut rng: fastrand::Rng,
) -> Result<(), Failed> {
    let mut turn = 0u32;
    loop {
        let (_, body) = call(http, url, "GET", &format!("/v1/contexts/{id}/state"), None).await?;
        let state = body["state"].clone();
        match state["type"].as_str().unwrap_or("") {
            "idle" => {
                turn += 1;
                let asks: Vec<Ask> = match rng.u32(0..3) {
                    0 => vec![Ask::Stream(rng.u32(5..40))],
                    1 => vec![Ask::Tools(rng.u32(1..3))],
                    _ => vec![Ask::Stream(rng.u32(5..25)), Ask::Stream(rng.u32(5..25))],
                };
                for (i, ask) in asks.into_iter().enumerate() {
                    let text = ask.text(&format!("{ctx}.{turn}.{i}"));
                    let (status, body) = call(
                        http,
                        url,
                        "POST",
                        &format!("/v1/contexts/{id}/messages"),
                        Some(json!({"payload": {"type": "text", "text": text}})),
                    )
                    .await?;
                    if status == 202
                        && let Some(message_id) = body["message_id"].as_str()
                    {
                        ledger.lock().unwrap().contexts[ctx]
                            .accepted
                            .push(Accepted {
                                message_id: message_id.to_owned(),
                                text,
                            });
                    }
                }
                tokio::time::sleep(Duration::from_millis(100)).await;
            }
            "awaiting_tool_approval" => {
                tokio::time::sleep(Duration::from_millis(rng.u64(0..150))).await;
                // A refusal is for the settled checks to report.
                let _ = approve(http, url, id, &state).await;
            }
            "failed" | "paused" => {
                call(
                    http,
                    url,
                    "POST",
                    &format!("/v1/contexts/{id}/resume"),
                    None,
                )
                .await?;
            }
            _ => {}
        }
        tokio::time::sleep(Duration::from_millis(40)).await;
    }
}
