//! `braid serve` as a child process of the load tool (`--server-process`): the server's CPU is
//! then its own, read from `/proc/<pid>/stat`, instead of a share of one process where the mock
//! model and the client run too.

use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::time::Duration;

use anyhow::{Context as _, bail};
use tokio::io::{AsyncBufReadExt, BufReader};
use tokio::process::{Child, Command};

/// How long a started server has to say where it listens.
const LISTEN_TIMEOUT: Duration = Duration::from_secs(60);
/// How long a server asked to stop has before it is killed.
const STOP_TIMEOUT: Duration = Duration::from_secs(10);
/// What the server logs once it accepts connections, followed by ` url=http://...`.
const LISTENING: &str = "braid is listening";

/// How one `braid serve` child is started.
pub struct ChildOptions<'a> {
    /// The `braid` binary.
    pub binary: &'a Path,
    /// `--store`: a PostgreSQL URL or a SQLite file.
    pub store: String,
    /// The child's data directory and working directory (no MCP file or workspace of the
    /// caller's is picked up).
    pub data_dir: PathBuf,
    /// The mock model's OpenAI-compatible base URL.
    pub llm_base_url: String,
    /// The model name the contexts use.
    pub model: &'a str,
}

/// A running `braid serve` process; killed if dropped without [`ChildServer::stop`].
pub struct ChildServer {
    child: Child,
    pid: u32,
    url: String,
}

impl ChildServer {
    /// Starts `braid serve` on a free loopback port and waits until it says where it listens.
    /// Its log lines go on to this process's standard error, prefixed with its pid.
    pub async fn start(options: ChildOptions<'_>) -> anyhow::Result<Self> {
        std::fs::create_dir_all(&options.data_dir)
            .with_context(|| format!("cannot create {}", options.data_dir.display()))?;
        // The listening line is logged at info; everything else only from warnings on, unless
        // the caller asked for more with RUST_LOG.
        let filter = std::env::var("RUST_LOG").unwrap_or_else(|_| "warn".into());
        let mut child = Command::new(options.binary)
            .args(["serve", "--bind", "127.0.0.1:0", "--titles", "off"])
            .arg("--store")
            .arg(&options.store)
            .arg("--data-dir")
            .arg(&options.data_dir)
            .arg("--web-dir")
            .arg(options.data_dir.join("no-ui"))
            .current_dir(&options.data_dir)
            .env("BRAID_LLM_PROVIDER", "openai")
            .env("BRAID_LLM_BASE_URL", &options.llm_base_url)
            .env("BRAID_LLM_API_KEY", "load")
            .env("BRAID_MODEL", options.model)
            .env("RUST_LOG", format!("{filter},braid_server::serve=info"))
            .env("NO_COLOR", "1")
            .env_remove("BRAID_API_TOKEN")
            .env_remove("BRAID_BIND")
            .env_remove("BRAID_STORE")
            .env_remove("BRAID_DATA_DIR")
            .env_remove("BRAID_WEB_DIR")
            .env_remove("BRAID_MCP_CONFIG")
            .env_remove("BRAID_WORKSPACE_ROOTS")
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .kill_on_drop(true)
            .spawn()
            .with_context(|| format!("cannot start {}", options.binary.display()))?;
        let pid = child.id().context("the server exited as it started")?;
        let stderr = child
            .stderr
            .take()
            .context("the server's standard error is not piped")?;
        let (found, listening) = tokio::sync::oneshot::channel();
        // Reads the log to its end: a pipe nobody reads would stop the server once full.
        tokio::spawn(async move {
            let mut found = Some(found);
            let mut lines = BufReader::new(stderr).lines();
            while let Ok(Some(line)) = lines.next_line().await {
                if let Some(url) = listening_url(&line)
                    && let Some(found) = found.take()
                {
                    let _ = found.send(url.to_owned());
                    continue;
                }
                eprintln!("braid serve [{pid}]: {line}");
            }
        });
        let url = match tokio::time::timeout(LISTEN_TIMEOUT, listening).await {
            Ok(Ok(url)) => url,
            Ok(Err(_)) => {
                let status = child.wait().await.ok();
                bail!(
                    "{} exited before listening ({}); its log is above",
                    options.binary.display(),
                    status.map_or_else(|| "status unknown".into(), |s| s.to_string())
                )
            }
            Err(_) => bail!(
                "{} did not say where it listens within {} s",
                options.binary.display(),
                LISTEN_TIMEOUT.as_secs()
            ),
        };
        Ok(Self { child, pid, url })
    }

    /// Where it listens (`http://127.0.0.1:port`).
    pub fn url(&self) -> &str {
        &self.url
    }

    /// User and system time of all its threads so far, when the platform tells.
    pub fn cpu(&self) -> Option<Duration> {
        process_cpu_of(self.pid)
    }

    /// Asks it to stop (SIGTERM, as an operator would), killing it if it has not within
    /// [`STOP_TIMEOUT`].
    pub async fn stop(mut self) {
        #[cfg(unix)]
        {
            use nix::sys::signal::{Signal, kill};
            use nix::unistd::Pid;
            if let Ok(pid) = i32::try_from(self.pid)
                && kill(Pid::from_raw(pid), Signal::SIGTERM).is_ok()
                && tokio::time::timeout(STOP_TIMEOUT, self.child.wait())
                    .await
                    .is_ok()
            {
                return;
            }
        }
        let _ = self.child.kill().await;
    }
}

/// The URL of a log line saying that the server listens (`... braid is listening url=http://...`).
fn listening_url(line: &str) -> Option<&str> {
    if !line.contains(LISTENING) {
        return None;
    }
    line.split(" url=").nth(1)?.split_whitespace().next()
}

/// The binary `--server-process` starts by default: `braid` beside this program, as cargo
/// builds both into the same directory.
pub fn braid_beside_this_program() -> anyhow::Result<PathBuf> {
    let this = std::env::current_exe().context("cannot tell where braid-load is")?;
    let braid = this.with_file_name(format!("braid{}", std::env::consts::EXE_SUFFIX));
    if !braid.is_file() {
        bail!(
            "no braid binary at {}: build it (cargo build --release -p braid-server) or name one with --braid-bin",
            braid.display()
        );
    }
    Ok(braid)
}

/// A process's user and system time so far (all its threads), from `/proc/<pid>/stat`.
#[cfg(target_os = "linux")]
fn process_cpu_of(pid: u32) -> Option<Duration> {
    use nix::unistd::{SysconfVar, sysconf};
    let ticks = parse_stat_cpu_ticks(&std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?)?;
    let per_second = u64::try_from(sysconf(SysconfVar::CLK_TCK).ok()??).ok()?;
    if per_second == 0 {
        return None;
    }
    Some(Duration::from_nanos(
        u64::try_from(u128::from(ticks) * 1_000_000_000 / u128::from(per_second)).ok()?,
    ))
}

#[cfg(not(target_os = "linux"))]
fn process_cpu_of(_pid: u32) -> Option<Duration> {
    None
}

/// `utime + stime` (fields 14 and 15, in clock ticks) from the text of `/proc/<pid>/stat`. The
/// command name (field 2) is in parentheses and may itself hold spaces and parentheses, so the
/// fields are counted from the last `)`.
#[cfg_attr(not(target_os = "linux"), allow(dead_code))]
fn parse_stat_cpu_ticks(text: &str) -> Option<u64> {
    let rest = &text[text.rfind(')')? + 1..];
    // After the name, the fields start at 3 (the state): utime, field 14, is the 12th.
    let mut fields = rest.split_whitespace().skip(11);
    let utime: u64 = fields.next()?.parse().ok()?;
    let stime: u64 = fields.next()?.parse().ok()?;
    utime.checked_add(stime)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cpu_ticks_are_user_plus_system_time_of_proc_stat() {
        let stat = "4242 (braid) S 1 4242 4242 0 -1 4194560 2175 0 0 0 731 152 0 0 20 0 9 0 \
                    123456 1048576000 5000 18446744073709551615 1 1 0 0 0 0 0 4096 17664 0 0 0 \
                    17 1 0 0 0 0 0\n";
        assert_eq!(parse_stat_cpu_ticks(stat), Some(731 + 152));
    }

    #[test]
    fn a_command_name_with_spaces_and_parentheses_does_not_shift_the_fields() {
        let stat = "7 (tokio (rt) worker 1) R 1 7 7 0 -1 0 0 0 0 0 40 2 0 0 20 0 4 0 99\n";
        assert_eq!(parse_stat_cpu_ticks(stat), Some(42));
    }

    #[test]
    fn a_cut_or_garbled_stat_line_gives_no_figure() {
        assert_eq!(parse_stat_cpu_ticks("12 (braid) S 1 12 12"), None);
        assert_eq!(parse_stat_cpu_ticks("no parenthesis here"), None);
        assert_eq!(
            parse_stat_cpu_ticks("1 (x) S 1 1 1 0 -1 0 0 0 0 0 lots 2 0"),
            None
        );
    }

    #[cfg(target_os = "linux")]
    #[test]
    fn this_process_cpu_grows_while_it_works() {
        let pid = std::process::id();
        let before = process_cpu_of(pid).unwrap();
        // Spins until the figure moves by 50 ms of CPU; on a busy machine that takes longer than
        // 50 ms of wall time, so the bound is wide.
        let deadline = std::time::Instant::now() + Duration::from_secs(30);
        let mut x = 0u64;
        let mut after = before;
        while after < before + Duration::from_millis(50) && std::time::Instant::now() < deadline {
            for _ in 0..1_000_000 {
                x = std::hint::black_box(x.wrapping_mul(31).wrapping_add(7));
            }
            after = process_cpu_of(pid).unwrap();
        }
        assert!(
            after >= before + Duration::from_millis(50),
            "{before:?} -> {after:?}"
        );
    }

    #[test]
    fn the_listening_line_gives_the_url() {
        let line = "2026-11-27T15:00:00Z  INFO braid_server::serve: braid is listening url=http://127.0.0.1:41234";
        assert_eq!(listening_url(line), Some("http://127.0.0.1:41234"));
        assert_eq!(listening_url("INFO something else url=http://x"), None);
    }
}
