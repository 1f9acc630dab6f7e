//! `braid serve` as a child process on the campaign's data: started, waited for, and killed
//! with SIGKILL.

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// Where the campaign's server keeps its contexts.
#[derive(Clone, Debug)]
pub enum StoreKind {
    /// `<data dir>/braid.db`.
    Sqlite,
    /// A PostgreSQL database, by URL.
    Postgres(String),
}

impl StoreKind {
    /// `sqlite` or `postgres`, for the report.
    pub fn name(&self) -> &'static str {
        match self {
            StoreKind::Sqlite => "sqlite",
            StoreKind::Postgres(_) => "postgres",
        }
    }
}

/// A running `braid serve`.
pub struct Braid {
    child: Child,
    /// `http://127.0.0.1:PORT`.
    pub url: String,
    log: PathBuf,
}

/// How long a server may take to say where it listens.
const START_TIMEOUT: Duration = Duration::from_secs(60);

impl Braid {
    /// Starts generation `generation` of the server on the campaign's data, its log in
    /// `<root>/server-<generation>.log`, and waits until it listens.
    pub fn start(root: &Path, store: &StoreKind, model_url: &str, generation: u32) -> Braid {
        let log = root.join(format!("server-{generation}.log"));
        let file = std::fs::File::create(&log).unwrap();
        // A killed server cannot remove its commands' private temporary directories: they go
        // under the campaign's root, removed with it, not into the machine's temp directory.
        let temp = root.join("tmp");
        std::fs::create_dir_all(&temp).unwrap();
        let mut command = Command::new(env!("CARGO_BIN_EXE_braid"));
        command
            .args(["serve", "--bind", "127.0.0.1:0", "--titles", "off"])
            .arg("--data-dir")
            .arg(root.join("data"))
            .arg("--web-dir")
            .arg(root.join("no-ui"))
            .current_dir(root)
            .env("BRAID_LLM_PROVIDER", "openai")
            .env("BRAID_LLM_BASE_URL", model_url)
            .env("BRAID_LLM_API_KEY", "test-key")
            .env("BRAID_MODEL", "mock-model")
            .env("RUST_LOG", "info")
            .env("NO_COLOR", "1")
            .env("TMPDIR", &temp)
            .env_remove("BRAID_API_TOKEN")
            .env_remove("BRAID_BIND")
            .env_remove("BRAID_STORE")
            .env_remove("BRAID_DATA_DIR")
            .env_remove("BRAID_MCP_CONFIG")
            .stdout(Stdio::null())
            .stderr(Stdio::from(file));
        if let StoreKind::Postgres(url) = store {
            command.arg("--store").arg(url);
        }
        let mut child = command.spawn().unwrap();
        let deadline = Instant::now() + START_TIMEOUT;
        loop {
            let text = std::fs::read_to_string(&log).unwrap_or_default();
            if let Some(url) = text
                .lines()
                .filter(|l| l.contains("braid is listening"))
                .find_map(|l| l.split(" url=").nth(1))
                .and_then(|rest| rest.split_whitespace().next())
            {
                return Braid {
                    child,
                    url: url.to_owned(),
                    log,
                };
            }
            if let Some(status) = child.try_wait().unwrap() {
                panic!(
                    "braid serve (generation {generation}) exited with {status} before listening:\n{}",
                    tail(&text)
                );
            }
            assert!(
                Instant::now() < deadline,
                "braid serve (generation {generation}) did not listen within {START_TIMEOUT:?}:\n{}",
                tail(&text)
            );
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    /// SIGKILL, then waits for the process to be gone.
    pub fn kill(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }

    /// The last lines of this server's log.
    pub fn log_tail(&self) -> String {
        tail(&std::fs::read_to_string(&self.log).unwrap_or_default())
    }
}

impl Drop for Braid {
    fn drop(&mut self) {
        self.kill();
    }
}

fn tail(text: &str) -> String {
    let lines: Vec<&str> = text.lines().collect();
    lines[lines.len().saturating_sub(40)..].join("\n")
}
