//! `braid-load`: a load test of the API. Runs N contexts at once, each streaming a scripted
//! answer from the mock LLM through a real Braid server (SQLite store, HTTP, SSE), and compares
//! with N streams read from the mock directly: throughput (chunks per second) and how late each
//! chunk arrives relative to when the mock emits it.
//!
//! `cargo run --release -p braid-load -- --contexts 100`
//!
//! Contexts are created and their event streams opened first (the setup, reported apart); then
//! every send starts at once, and the streaming figures run from the sends. While they stream,
//! a reader on a thread of its own times `GET /v1/contexts` and `GET /v1/contexts/{id}` as a
//! browser would. Each phase also reports the CPU time the process used per chunk, which says
//! what a path costs once the machine is saturated, and (on Linux) the connections whose
//! handshakes a full listen queue dropped: each such connection waited a second, so a phase
//! that had any measured that second too.
//!
//! With `--store postgres://... --replicas 3`, three servers share the database (as three
//! replicas would) and the streams are spread across them: stream `i` creates its context on
//! replica `i % 3` (which owns it) and sends and streams through replica `(i + 1) % 3`, which
//! forwards the send to the owner and serves the events from the shared log.
//!
//! With `--server-process`, the servers are `braid serve` processes of their own (the `braid`
//! binary beside this one, or `--braid-bin`), and the report adds their own CPU per turn and per
//! chunk, read from `/proc/<pid>/stat` over the streaming phase: the server's cost alone, where
//! the in-process figure also holds the mock's and the client's.
//!
//! `RUST_LOG=braid_load=debug` logs each stream's send, its acceptance and its first chunk by
//! context id, to line up with the server's own debug logs (state changes, rounds committed)
//! when profiling where a turn's time goes.

mod child;

use std::path::PathBuf;
use std::time::{Duration, Instant};

use anyhow::{Context as _, bail};
use braid_context::EngineSettings;
use braid_llm::{Provider, ProviderConfig, RetryPolicy};
use braid_server::AppConfig;
use braid_server::serve::{ServeOptions, StoreLocation, start};
use braid_testkit::{Chunk, FinishKind, MockLlm, Script, StreamReply};
use child::{ChildOptions, ChildServer};
use clap::Parser;
use futures::StreamExt;
use serde_json::{Value, json};

/// The allocator `braid` itself uses, so that the figures are the server's.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

/// Load test of Braid's streaming path.
#[derive(Parser, Debug)]
struct Args {
    /// Concurrent contexts (and concurrent direct streams).
    #[arg(long, default_value_t = 100)]
    contexts: usize,
    /// Chunks per answer.
    #[arg(long, default_value_t = 20)]
    chunks: usize,
    /// Milliseconds the mock waits before each chunk.
    #[arg(long, default_value_t = 20)]
    chunk_delay_ms: u64,
    /// Give up after this many seconds.
    #[arg(long, default_value_t = 300)]
    timeout_secs: u64,
    /// A PostgreSQL URL to store contexts in instead of a temporary SQLite file.
    #[arg(long)]
    store: Option<String>,
    /// Servers sharing the store (more than one needs `--store`).
    #[arg(long, default_value_t = 1)]
    replicas: usize,
    /// Run each server as a `braid serve` process of its own and report its CPU apart.
    #[arg(long)]
    server_process: bool,
    /// The `braid` binary `--server-process` starts (default: the one beside braid-load).
    #[arg(long, requires = "server_process")]
    braid_bin: Option<PathBuf>,
}

/// The model name the servers are configured with.
const MODEL: &str = "mock-model";

/// The servers under load: in this process (sharing its CPU with the mock and the client), or
/// each a `braid serve` process of its own.
enum Servers {
    InProcess(Vec<braid_server::serve::Server>),
    Processes(Vec<ChildServer>),
}

impl Servers {
    fn urls(&self) -> Vec<String> {
        match self {
            Servers::InProcess(servers) => servers.iter().map(|s| s.url()).collect(),
            Servers::Processes(servers) => servers.iter().map(|s| s.url().to_owned()).collect(),
        }
    }

    /// The CPU the server processes used so far, summed; `None` in process (the process's own
    /// figure holds it) or when the platform does not tell.
    fn cpu(&self) -> Option<Duration> {
        match self {
            Servers::InProcess(_) => None,
            Servers::Processes(servers) => servers.iter().map(ChildServer::cpu).sum(),
        }
    }

    async fn stop(self) {
        match self {
            Servers::InProcess(servers) => {
                for server in servers {
                    server.stop().await;
                }
            }
            Servers::Processes(servers) => {
                for server in servers {
                    server.stop().await;
                }
            }
        }
    }
}

/// When each chunk of one stream arrived, from the request's start.
struct Timeline {
    arrivals: Vec<Duration>,
}

fn answer(chunks: usize, delay: Duration) -> StreamReply {
    let mut r = StreamReply::new();
    for i in 0..chunks {
        r = r.chunk(Chunk::Text {
            text: format!("tok{i} "),
        });
    }
    r.chunk(Chunk::Finish {
        reason: FinishKind::Stop,
    })
    .chunk_delay(delay)
}

fn script(n: usize, chunks: usize, delay: Duration) -> Script {
    (0..n).fold(Script::new(), |s, _| s.then(answer(chunks, delay)))
}

/// Splits complete SSE frames off the buffer.
fn frames(buf: &mut String) -> Vec<String> {
    let mut out = Vec::new();
    while let Some(end) = buf.find("\n\n") {
        out.push(buf[..end].to_owned());
        buf.drain(..end + 2);
    }
    out
}

async fn direct_stream(client: reqwest::Client, url: String) -> anyhow::Result<Timeline> {
    let started = Instant::now();
    let res = client
        .post(format!("{url}/chat/completions"))
        .header("content-type", "application/json")
        .body(
            json!({"model": "mock", "stream": true, "messages": [{"role": "user", "content": "hi"}]})
                .to_string(),
        )
        .send()
        .await?;
    if !res.status().is_success() {
        bail!("mock answered {}", res.status());
    }
    let mut body = res.bytes_stream();
    let mut buf = String::new();
    let mut arrivals = Vec::new();
    while let Some(bytes) = body.next().await {
        buf.push_str(&String::from_utf8_lossy(&bytes?));
        for frame in frames(&mut buf) {
            let Some(data) = frame.strip_prefix("data: ") else {
                continue;
            };
            if data == "[DONE]" {
                return Ok(Timeline { arrivals });
            }
            let v: Value = serde_json::from_str(data).unwrap_or(Value::Null);
            // The first frame carries only the role, with empty content: not a chunk.
            if v["choices"][0]["delta"]["content"]
                .as_str()
                .is_some_and(|t| !t.is_empty())
            {
                arrivals.push(started.elapsed());
            }
        }
    }
    Ok(Timeline { arrivals })
}

/// A context made ready for the streaming phase: created, with its event stream open.
struct Prepared {
    id: String,
    url: String,
    events: reqwest::Response,
}

/// Creates a context on `owner` and opens its event stream through `url` (the setup phase,
/// not part of the streaming figures).
async fn prepare(client: reqwest::Client, owner: String, url: String) -> anyhow::Result<Prepared> {
    let created: Value = client
        .post(format!("{owner}/v1/contexts"))
        .header("content-type", "application/json")
        .body(json!({"title": "load"}).to_string())
        .send()
        .await?
        .json()
        .await?;
    let id = created["id"]
        .as_str()
        .context("create answered no id")?
        .to_owned();
    let events = client
        .get(format!("{url}/v1/contexts/{id}/events"))
        .send()
        .await?;
    if !events.status().is_success() {
        bail!("events answered {}", events.status());
    }
    Ok(Prepared { id, url, events })
}

/// Sends one message to a prepared context and times its streamed answer from the send.
async fn server_stream(client: reqwest::Client, prepared: Prepared) -> anyhow::Result<Timeline> {
    let Prepared { id, url, events } = prepared;
    let started = Instant::now();
    tracing::debug!(context = %id, "send start");
    let sent = client
        .post(format!("{url}/v1/contexts/{id}/messages"))
        .header("content-type", "application/json")
        .body(json!({"payload": {"type": "text", "text": "go"}}).to_string())
        .send()
        .await?;
    if sent.status().as_u16() != 202 {
        bail!("send answered {}", sent.status());
    }
    tracing::debug!(context = %id, "accepted");
    let mut body = events.bytes_stream();
    let mut buf = String::new();
    let mut arrivals = Vec::new();
    while let Some(bytes) = body.next().await {
        buf.push_str(&String::from_utf8_lossy(&bytes?));
        for frame in frames(&mut buf) {
            if frame.contains("event: content_delta") {
                if arrivals.is_empty() {
                    tracing::debug!(context = %id, "first seen");
                }
                arrivals.push(started.elapsed());
            } else if frame.contains("event: content_final") {
                return Ok(Timeline { arrivals });
            } else if frame.contains("event: error") {
                bail!("error event: {frame}");
            }
        }
    }
    bail!("the event stream ended before content_final")
}

/// Starts [`probe_reads`] on a thread of its own, with its own runtime and connections, as a
/// person's browser is a process of its own: on the load's runtime, the probe's own task waited
/// behind a thousand streams' tasks to send each request and to read each answer, and the
/// figures counted that wait as the server's.
async fn spawn_probe(
    url: String,
    ids: Vec<String>,
    done: tokio_util::sync::CancellationToken,
) -> anyhow::Result<tokio::sync::oneshot::Receiver<anyhow::Result<ReadLatencies>>> {
    let (report, probe) = tokio::sync::oneshot::channel();
    let (ready, connected) = tokio::sync::oneshot::channel();
    let run = move || {
        let latencies = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .context("no runtime for the read probe")
            .and_then(|runtime| {
                runtime.block_on(probe_reads(reqwest::Client::new(), url, ids, ready, done))
            });
        let _ = report.send(latencies);
    };
    std::thread::Builder::new()
        .name("read-probe".into())
        .spawn(run)
        .context("the read probe's thread did not start")?;
    if connected.await.is_err() {
        // The probe stopped before its first read: its report says why.
        return Err(match probe.await {
            Ok(Err(error)) => error.context("the read probe's first read failed"),
            _ => anyhow::anyhow!("the read probe stopped before its first read"),
        });
    }
    Ok(probe)
}

/// Latencies of the reads a UI makes while the streams run, in ms.
#[derive(Default)]
struct ReadLatencies {
    list: Vec<f64>,
    get: Vec<f64>,
}

/// Reads `GET /v1/contexts` and `GET /v1/contexts/{id}` (of contexts in turn) one after the
/// other until `done`, as a person's browser would while the server is busy.
///
/// Its connection is opened by a first read, before `ready` is told (a browser has its
/// connection open from loading the page), so no figure includes connecting to a busy server.
async fn probe_reads(
    client: reqwest::Client,
    url: String,
    ids: Vec<String>,
    ready: tokio::sync::oneshot::Sender<()>,
    done: tokio_util::sync::CancellationToken,
) -> anyhow::Result<ReadLatencies> {
    client
        .get(format!("{url}/v1/contexts"))
        .send()
        .await?
        .error_for_status()?
        .bytes()
        .await?;
    let _ = ready.send(());
    let mut out = ReadLatencies::default();
    let mut i = 0usize;
    while !done.is_cancelled() {
        let started = Instant::now();
        let res = client.get(format!("{url}/v1/contexts")).send().await?;
        if !res.status().is_success() {
            bail!("GET /v1/contexts answered {}", res.status());
        }
        res.bytes().await?;
        out.list.push(started.elapsed().as_secs_f64() * 1e3);
        if let Some(id) = ids.get(i % ids.len().max(1)) {
            let started = Instant::now();
            let res = client.get(format!("{url}/v1/contexts/{id}")).send().await?;
            if !res.status().is_success() {
                bail!("GET /v1/contexts/{{id}} answered {}", res.status());
            }
            res.bytes().await?;
            out.get.push(started.elapsed().as_secs_f64() * 1e3);
        }
        i += 1;
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    out.list.sort_by(f64::total_cmp);
    out.get.sort_by(f64::total_cmp);
    Ok(out)
}

struct Report {
    wall: Duration,
    /// CPU time the whole process used during the phase (mock, servers and client share it,
    /// unless the servers are processes of their own), when the platform tells.
    cpu: Option<Duration>,
    /// CPU time the server processes used during the phase, with `--server-process`.
    server_cpu: Option<Duration>,
    /// Streams that ended (one turn each).
    turns: usize,
    /// The machine's dropped connections during the phase, when the platform tells.
    dropped: Option<Dropped>,
    chunks: usize,
    /// Per chunk: arrival minus when the mock was due to emit it, in ms.
    lateness_ms: Vec<f64>,
    first_chunk_ms: Vec<f64>,
    /// Per chunk after the first: its delay behind the stream's first chunk minus the mock's
    /// spacing, in ms (the streaming path's own cost, without the turn's start).
    spacing_ms: Vec<f64>,
}

/// The CPU time a phase used, as measured.
#[derive(Clone, Copy, Default)]
struct PhaseCpu {
    /// This process's.
    own: Option<Duration>,
    /// The server processes', with `--server-process`.
    servers: Option<Duration>,
}

fn report(
    timelines: &[Timeline],
    wall: Duration,
    cpu: PhaseCpu,
    dropped: Option<Dropped>,
    delay: Duration,
) -> Report {
    let mut lateness_ms = Vec::new();
    let mut first_chunk_ms = Vec::new();
    let mut spacing_ms = Vec::new();
    let mut chunks = 0;
    for t in timelines {
        if let Some(first) = t.arrivals.first() {
            for (i, a) in t.arrivals.iter().enumerate().skip(1) {
                let due = delay.as_secs_f64() * i as f64;
                spacing_ms.push(((*a - *first).as_secs_f64() - due) * 1e3);
            }
        }
        chunks += t.arrivals.len();
        if let Some(first) = t.arrivals.first() {
            first_chunk_ms.push(first.as_secs_f64() * 1e3);
        }
        for (i, a) in t.arrivals.iter().enumerate() {
            let due = delay.as_secs_f64() * (i as f64 + 1.0);
            lateness_ms.push((a.as_secs_f64() - due) * 1e3);
        }
    }
    lateness_ms.sort_by(f64::total_cmp);
    first_chunk_ms.sort_by(f64::total_cmp);
    spacing_ms.sort_by(f64::total_cmp);
    Report {
        spacing_ms,
        wall,
        cpu: cpu.own,
        server_cpu: cpu.servers,
        turns: timelines.len(),
        dropped,
        chunks,
        lateness_ms,
        first_chunk_ms,
    }
}

fn pct(sorted: &[f64], p: f64) -> f64 {
    if sorted.is_empty() {
        return f64::NAN;
    }
    let i = ((sorted.len() - 1) as f64 * p).round() as usize;
    sorted[i.min(sorted.len() - 1)]
}

fn print(name: &str, r: &Report) {
    let per_chunk = |cpu: Duration| cpu.as_secs_f64() * 1e6 / r.chunks.max(1) as f64;
    let mut cpu = match (r.cpu, r.server_cpu) {
        (Some(cpu), None) => format!(
            "; CPU {:.2} s = {:.0} µs per chunk",
            cpu.as_secs_f64(),
            per_chunk(cpu)
        ),
        (Some(cpu), Some(_)) => format!(
            "; braid-load's CPU (mock and client) {:.2} s = {:.0} µs per chunk",
            cpu.as_secs_f64(),
            per_chunk(cpu)
        ),
        (None, _) => String::new(),
    };
    if let Some(server) = r.server_cpu {
        cpu.push_str(&format!(
            "; braid serve's own CPU {:.2} s = {:.2} ms per turn, {:.0} µs per chunk",
            server.as_secs_f64(),
            server.as_secs_f64() * 1e3 / r.turns.max(1) as f64,
            per_chunk(server)
        ));
    }
    let dropped = match r.dropped {
        Some(d) => format!(
            "; handshakes dropped by full listen queues {}, SYNs sent again {} (machine-wide)",
            d.listen_overflows, d.syn_retransmits
        ),
        None => String::new(),
    };
    println!(
        "{name:>7}: {} chunks in {:.2} s = {:.0} chunks/s; first chunk p50 {:.1} ms p99 {:.1} ms; chunk lateness p50 {:.1} ms p99 {:.1} ms; behind the first chunk p50 {:.1} ms p99 {:.1} ms{cpu}{dropped}",
        r.chunks,
        r.wall.as_secs_f64(),
        r.chunks as f64 / r.wall.as_secs_f64(),
        pct(&r.first_chunk_ms, 0.5),
        pct(&r.first_chunk_ms, 0.99),
        pct(&r.lateness_ms, 0.5),
        pct(&r.lateness_ms, 0.99),
        pct(&r.spacing_ms, 0.5),
        pct(&r.spacing_ms, 0.99),
    );
}

async fn run_all<F, Fut>(n: usize, make: F) -> anyhow::Result<(Vec<Timeline>, Duration)>
where
    F: Fn() -> Fut,
    Fut: std::future::Future<Output = anyhow::Result<Timeline>> + Send + 'static,
{
    let started = Instant::now();
    let tasks: Vec<_> = (0..n).map(|_| tokio::spawn(make())).collect();
    let mut out = Vec::with_capacity(n);
    for t in tasks {
        out.push(t.await??);
    }
    Ok((out, started.elapsed()))
}

async fn run(args: Args) -> anyhow::Result<()> {
    let delay = Duration::from_millis(args.chunk_delay_ms);
    let client = reqwest::Client::builder()
        .pool_max_idle_per_host(args.contexts * 2)
        .build()?;
    println!(
        "braid-load: {} concurrent streams of {} chunks, {} ms apart, {} replica(s) on {}",
        args.contexts,
        args.chunks,
        args.chunk_delay_ms,
        args.replicas.max(1),
        if args.store.is_some() {
            "PostgreSQL"
        } else {
            "SQLite"
        }
    );

    let direct_mock = MockLlm::start(script(args.contexts, args.chunks, delay)).await?;
    let direct_url = direct_mock.openai_base_url();
    let direct_cpu = CpuClock::start();
    let direct_dropped = DropCounter::start();
    let (direct, direct_wall) = run_all(args.contexts, || {
        direct_stream(client.clone(), direct_url.clone())
    })
    .await?;
    let direct_cpu = PhaseCpu {
        own: direct_cpu.elapsed(),
        servers: None,
    };
    let direct = report(
        &direct,
        direct_wall,
        direct_cpu,
        direct_dropped.elapsed(),
        delay,
    );
    print("direct", &direct);

    let mock = MockLlm::start(script(args.contexts, args.chunks, delay)).await?;
    let dir = tempfile_dir()?;
    let mut provider = ProviderConfig::new(Provider::OpenAi);
    provider.base_url = mock.openai_base_url();
    provider.model = MODEL.into();
    provider.retry = RetryPolicy::none();
    if args.replicas > 1 && args.store.is_none() {
        bail!("--replicas above 1 needs --store postgres://...");
    }
    let store = match &args.store {
        Some(url) => StoreLocation::Postgres(url.clone()),
        None => StoreLocation::Sqlite(dir.join("braid.db")),
    };
    let servers = if args.server_process {
        let binary = match &args.braid_bin {
            Some(path) => path.clone(),
            None => child::braid_beside_this_program()?,
        };
        let store = match store {
            StoreLocation::Postgres(url) => url,
            StoreLocation::Sqlite(file) => file.to_string_lossy().into_owned(),
        };
        let mut servers = Vec::new();
        for i in 0..args.replicas.max(1) {
            servers.push(
                ChildServer::start(ChildOptions {
                    binary: &binary,
                    store: store.clone(),
                    data_dir: dir.join(format!("server-{i}")),
                    llm_base_url: mock.openai_base_url(),
                    model: MODEL,
                })
                .await?,
            );
        }
        Servers::Processes(servers)
    } else {
        let mut servers = Vec::new();
        for _ in 0..args.replicas.max(1) {
            servers.push(
                start(ServeOptions {
                    bind: "127.0.0.1:0".parse()?,
                    store: store.clone(),
                    llm: Some(provider.clone()),
                    app: AppConfig {
                        web_dir: dir.join("no-ui"),
                        ..AppConfig::default()
                    },
                    engine: EngineSettings {
                        default_model: MODEL.into(),
                        ..EngineSettings::default()
                    },
                    unload_every: Duration::from_secs(3600),
                    mcp_config: None,
                    advertise_url: None,
                })
                .await?,
            );
        }
        Servers::InProcess(servers)
    };
    let urls = servers.urls();
    // Setup: every context is created and its event stream opened before any send, so the
    // streaming figures compare the relay with the direct streams and nothing else.
    let setup_started = Instant::now();
    let setups: Vec<_> = (0..args.contexts)
        .map(|i| {
            let owner = urls[i % urls.len()].clone();
            let via = urls[(i + 1) % urls.len()].clone();
            tokio::spawn(prepare(client.clone(), owner, via))
        })
        .collect();
    let mut prepared = Vec::with_capacity(args.contexts);
    for s in setups {
        prepared.push(s.await??);
    }
    println!(
        "  setup: {} contexts created and subscribed in {:.2} s",
        prepared.len(),
        setup_started.elapsed().as_secs_f64()
    );
    let ids: Vec<String> = prepared.iter().map(|p| p.id.clone()).collect();
    let done = tokio_util::sync::CancellationToken::new();
    let probe = spawn_probe(urls[0].clone(), ids, done.clone()).await?;
    let started = Instant::now();
    let cpu = CpuClock::start();
    let servers_cpu = servers.cpu();
    let dropped = DropCounter::start();
    let tasks: Vec<_> = prepared
        .into_iter()
        .map(|p| tokio::spawn(server_stream(client.clone(), p)))
        .collect();
    let mut through = Vec::with_capacity(args.contexts);
    for t in tasks {
        through.push(t.await??);
    }
    let wall = started.elapsed();
    let cpu = PhaseCpu {
        own: cpu.elapsed(),
        servers: servers
            .cpu()
            .zip(servers_cpu)
            .map(|(now, then)| now.saturating_sub(then)),
    };
    let dropped = dropped.elapsed();
    done.cancel();
    let reads = probe
        .await
        .context("the read probe stopped without a report")??;
    let through = report(&through, wall, cpu, dropped, delay);
    print("braid", &through);
    println!(
        "  added: first chunk p50 {:+.1} ms; per chunk after the first p50 {:+.1} ms, p99 {:+.1} ms; per chunk overall p50 {:+.1} ms, p99 {:+.1} ms; throughput {:.0}% of direct",
        pct(&through.first_chunk_ms, 0.5) - pct(&direct.first_chunk_ms, 0.5),
        pct(&through.spacing_ms, 0.5) - pct(&direct.spacing_ms, 0.5),
        pct(&through.spacing_ms, 0.99) - pct(&direct.spacing_ms, 0.99),
        pct(&through.lateness_ms, 0.5) - pct(&direct.lateness_ms, 0.5),
        pct(&through.lateness_ms, 0.99) - pct(&direct.lateness_ms, 0.99),
        100.0 * (through.chunks as f64 / through.wall.as_secs_f64())
            / (direct.chunks as f64 / direct.wall.as_secs_f64()),
    );
    println!(
        "  reads while streaming: GET /v1/contexts p50 {:.1} ms p99 {:.1} ms ({} reads); GET /v1/contexts/{{id}} p50 {:.1} ms p99 {:.1} ms ({} reads)",
        pct(&reads.list, 0.5),
        pct(&reads.list, 0.99),
        reads.list.len(),
        pct(&reads.get, 0.5),
        pct(&reads.get, 0.99),
        reads.get.len(),
    );
    servers.stop().await;
    let _ = std::fs::remove_dir_all(&dir);
    Ok(())
}

/// The process's CPU time from a start: on 2 cores the mock, the servers and the client compete
/// for the same CPU, so a phase's CPU per chunk says what each path costs when the wall clock
/// only says that the machine was saturated.
struct CpuClock(Option<Duration>);

impl CpuClock {
    fn start() -> Self {
        Self(process_cpu())
    }

    fn elapsed(&self) -> Option<Duration> {
        Some(process_cpu()?.saturating_sub(self.0?))
    }
}

/// User and system time of every thread of this process so far.
#[cfg(unix)]
fn process_cpu() -> Option<Duration> {
    use nix::sys::resource::{UsageWho, getrusage};
    let usage = getrusage(UsageWho::RUSAGE_SELF).ok()?;
    let time = |t: nix::sys::time::TimeVal| {
        Duration::from_secs(u64::try_from(t.tv_sec()).unwrap_or(0))
            + Duration::from_micros(u64::try_from(t.tv_usec()).unwrap_or(0))
    };
    Some(time(usage.user_time()) + time(usage.system_time()))
}

#[cfg(not(unix))]
fn process_cpu() -> Option<Duration> {
    None
}

/// Connections the kernel dropped or made wait: a handshake that finds the listen queue full is
/// dropped, and the client sends its SYN again a second later. Counted so that a run whose
/// figures hold such seconds says so (the mock's queue once did this to every direct phase at a
/// thousand streams, and its baseline swung between 13,600 and 20,100 chunks/s).
#[derive(Clone, Copy, Debug, Default)]
struct Dropped {
    listen_overflows: u64,
    syn_retransmits: u64,
}

/// [`Dropped`] from a start.
struct DropCounter(Option<Dropped>);

impl DropCounter {
    fn start() -> Self {
        Self(tcp_drops())
    }

    fn elapsed(&self) -> Option<Dropped> {
        let (now, then) = (tcp_drops()?, self.0?);
        Some(Dropped {
            listen_overflows: now.listen_overflows.saturating_sub(then.listen_overflows),
            syn_retransmits: now.syn_retransmits.saturating_sub(then.syn_retransmits),
        })
    }
}

/// The machine's TCP counters so far, from `/proc/net/netstat`.
#[cfg(target_os = "linux")]
fn tcp_drops() -> Option<Dropped> {
    parse_netstat(&std::fs::read_to_string("/proc/net/netstat").ok()?)
}

/// The counters [`Dropped`] holds, from the text of `/proc/net/netstat`: its `TcpExt:` lines,
/// names then values.
#[cfg_attr(not(target_os = "linux"), allow(dead_code))]
fn parse_netstat(text: &str) -> Option<Dropped> {
    let mut lines = text.lines().filter(|l| l.starts_with("TcpExt:"));
    let (names, values) = (lines.next()?, lines.next()?);
    let mut dropped = Dropped::default();
    for (name, value) in names.split_whitespace().zip(values.split_whitespace()) {
        match name {
            "ListenOverflows" => dropped.listen_overflows = value.parse().ok()?,
            "TCPSynRetrans" => dropped.syn_retransmits = value.parse().ok()?,
            _ => {}
        }
    }
    Some(dropped)
}

#[cfg(not(target_os = "linux"))]
fn tcp_drops() -> Option<Dropped> {
    None
}

fn tempfile_dir() -> anyhow::Result<std::path::PathBuf> {
    let dir = std::env::temp_dir().join(format!("braid-load-{}", std::process::id()));
    std::fs::create_dir_all(&dir).with_context(|| format!("cannot create {}", dir.display()))?;
    Ok(dir)
}

fn main() -> std::process::ExitCode {
    let args = Args::parse();
    // The servers' own logs (warnings by default; `RUST_LOG` to see more), so a run that goes
    // wrong says why.
    tracing_subscriber::fmt()
        .with_env_filter(
            tracing_subscriber::EnvFilter::try_from_default_env()
                .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("warn")),
        )
        .with_writer(std::io::stderr)
        .with_ansi(false)
        .init();
    let runtime = match tokio::runtime::Runtime::new() {
        Ok(r) => r,
        Err(e) => {
            eprintln!("error: {e}");
            return std::process::ExitCode::from(2);
        }
    };
    let timeout = Duration::from_secs(args.timeout_secs);
    match runtime.block_on(async { tokio::time::timeout(timeout, run(args)).await }) {
        Ok(Ok(())) => std::process::ExitCode::SUCCESS,
        Ok(Err(e)) => {
            eprintln!("error: {e:#}");
            std::process::ExitCode::from(1)
        }
        Err(_) => {
            eprintln!("error: the run took longer than --timeout-secs");
            std::process::ExitCode::from(1)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dropped_handshakes_are_read_from_the_kernels_tcp_counters() {
        let text = "TcpExt: SyncookiesSent ListenOverflows ListenDrops TCPSynRetrans\n\
                    TcpExt: 3 1407 1407 1086\n\
                    IpExt: InNoRoutes InTruncatedPkts\n\
                    IpExt: 0 0\n";
        let dropped = parse_netstat(text).unwrap();
        assert_eq!(dropped.listen_overflows, 1407);
        assert_eq!(dropped.syn_retransmits, 1086);
        assert!(
            parse_netstat("IpExt: InNoRoutes\nIpExt: 0\n").is_none(),
            "no TCP lines, no counts"
        );
    }
}
