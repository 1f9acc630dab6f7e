//! The sandbox every command Braid starts runs in (DESIGN.md "Security defaults"):
//! `run_command`, workflow command steps, and MCP stdio servers whose configuration names a
//! mode. An approval says a command may run; the sandbox bounds what it can then do.
//!
//! - [`SandboxMode::WorkspaceWrite`] (the default): read anywhere except the protected paths
//!   (Braid's data directory and store files, `~/.ssh`, `~/.aws`, `~/.config/gcloud`), write
//!   only inside the workspace and a private temporary directory, no network;
//! - [`SandboxMode::ReadOnly`]: the same without writes to the workspace;
//! - [`SandboxMode::Off`]: Braid's own rights, only when the operator allowed it
//!   ([`Unsandboxed::Allowed`], `braid serve --allow-unsandboxed`).
//!
//! On Linux the files are confined with Landlock and the network with Landlock's TCP rules plus,
//! where Braid may create one (as root), a new empty network namespace. Landlock confines root
//! too. The restriction is applied in a short-lived thread made for one spawn: Landlock and the
//! network namespace hold for the calling thread and everything it then starts, so the child
//! inherits them from its first instruction, nothing runs between `fork` and `exec` but the
//! standard library's own code, and Braid's other threads keep their rights. Where the kernel
//! lacks Landlock a sandboxed command is refused unless the operator allowed unsandboxed
//! commands; it never runs unconfined silently.

use std::collections::BTreeSet;
use std::fmt;
use std::path::{Component, Path, PathBuf};

pub use braid_protocol::SandboxMode;
use landlock::{
    ABI, Access, AccessFs, AccessNet, BitFlags, CompatLevel, Compatible, LandlockStatus,
    PathBeneath, PathFd, Ruleset, RulesetAttr, RulesetCreated, RulesetCreatedAttr, RulesetStatus,
    Scope,
};

/// The newest Landlock ABI whose rights the sandbox asks for: files (with truncation and
/// device ioctls), TCP bind and connect, and the abstract-socket and signal scopes. An older
/// kernel enforces what it knows (best effort), and the network then relies on the namespace.
const SANDBOX_ABI: ABI = ABI::V6;

/// Devices any program may write to (and `>` truncate) without that being a write anywhere.
const WRITABLE_DEVICES: [&str; 6] = [
    "/dev/null",
    "/dev/zero",
    "/dev/full",
    "/dev/random",
    "/dev/urandom",
    "/dev/tty",
];

/// The secrets under the home directory Braid knows of, always protected.
pub const KNOWN_SECRETS: [&str; 3] = [".ssh", ".aws", ".config/gcloud"];

/// The most denials one command's result names.
const MAX_DENIALS: usize = 10;

/// Whether the operator lets commands run without a sandbox (mode `off`, or a kernel without
/// Landlock).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Unsandboxed {
    /// Mode `off` is refused, and so is every command on a kernel without Landlock.
    #[default]
    Refused,
    /// The operator allowed it (`--allow-unsandboxed`).
    Allowed,
}

/// Whether a sandboxed program may use the network.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Network {
    /// No TCP connections or listeners, and (where possible) no network interface at all.
    #[default]
    Denied,
    /// The network as Braid has it (an MCP server whose configuration allows it).
    Allowed,
}

/// Why a command cannot start in its sandbox.
#[derive(Debug, thiserror::Error)]
pub enum SandboxError {
    /// Mode `off` without the operator's permission.
    #[error(
        "sandbox mode `off` needs the operator's permission (start the server with --allow-unsandboxed or BRAID_ALLOW_UNSANDBOXED=1)"
    )]
    OffNotAllowed,
    /// A person approved running a call outside the sandbox, but the operator does not allow
    /// unsandboxed commands.
    #[error(
        "running outside the sandbox needs the operator's permission as well as the person's approval (start the server with --allow-unsandboxed or BRAID_ALLOW_UNSANDBOXED=1)"
    )]
    EscalationNotAllowed,
    /// The kernel cannot confine the command, and the operator did not allow running it
    /// unconfined.
    #[error(
        "the command was not run: the kernel cannot enforce the `{mode}` sandbox ({reason}); Linux 5.13 or newer with Landlock enabled is required, or the operator may allow unsandboxed commands (--allow-unsandboxed)"
    )]
    Unsupported {
        /// The mode asked for.
        mode: SandboxMode,
        /// What the kernel lacks.
        reason: String,
    },
    /// Preparing the rules failed.
    #[error("cannot prepare the sandbox: {0}")]
    Rules(String),
    /// The private temporary directory could not be made.
    #[error("cannot create the command's private temporary directory: {0}")]
    TempDir(std::io::Error),
    /// The program could not be started.
    #[error("cannot start `{program}`: {source}")]
    Spawn {
        /// The program.
        program: String,
        /// Why.
        source: std::io::Error,
    },
}

/// The operator's sandbox settings, for every context of a server.
#[derive(Clone, Debug)]
pub struct SandboxSettings {
    /// The mode of contexts whose configuration names none.
    pub default_mode: SandboxMode,
    /// Whether commands may run unconfined.
    pub unsandboxed: Unsandboxed,
    /// Paths no sandboxed command may read or write (beside the workspace).
    pub protected: Vec<PathBuf>,
}

impl Default for SandboxSettings {
    fn default() -> Self {
        Self {
            default_mode: SandboxMode::WorkspaceWrite,
            unsandboxed: Unsandboxed::Refused,
            protected: known_secrets(std::env::var_os("HOME").map(PathBuf::from).as_deref()),
        }
    }
}

/// `~/.ssh`, `~/.aws` and `~/.config/gcloud` under `home`.
pub fn known_secrets(home: Option<&Path>) -> Vec<PathBuf> {
    home.map(|h| KNOWN_SECRETS.iter().map(|s| h.join(s)).collect())
        .unwrap_or_default()
}

impl SandboxSettings {
    /// Settings with `default_mode` that protect the known secrets; mode `off` as default needs
    /// [`Unsandboxed::Allowed`].
    pub fn new(default_mode: SandboxMode, unsandboxed: Unsandboxed) -> Result<Self, SandboxError> {
        if default_mode == SandboxMode::Off && unsandboxed == Unsandboxed::Refused {
            return Err(SandboxError::OffNotAllowed);
        }
        Ok(Self {
            default_mode,
            unsandboxed,
            ..Self::default()
        })
    }

    /// Also protects `paths` (the data directory, the store's files).
    pub fn protecting(mut self, paths: impl IntoIterator<Item = PathBuf>) -> Self {
        self.protected.extend(paths);
        self
    }

    /// The mode a context's configuration (`requested`, `None` for the default) gets.
    pub fn mode(&self, requested: Option<SandboxMode>) -> Result<SandboxMode, SandboxError> {
        let mode = requested.unwrap_or(self.default_mode);
        if mode == SandboxMode::Off && self.unsandboxed == Unsandboxed::Refused {
            return Err(SandboxError::OffNotAllowed);
        }
        Ok(mode)
    }

    /// No sandbox, for a call a person approved to run outside it: refused unless the operator
    /// allows unsandboxed commands.
    pub fn outside(&self) -> Result<Sandbox, SandboxError> {
        if self.unsandboxed == Unsandboxed::Refused {
            return Err(SandboxError::EscalationNotAllowed);
        }
        self.sandbox(Some(SandboxMode::Off), None)
    }

    /// The sandbox for one command (or one MCP server's life) of a context whose configuration
    /// asks for `requested`, writing in `workspace` when the mode allows.
    pub fn sandbox(
        &self,
        requested: Option<SandboxMode>,
        workspace: Option<&Path>,
    ) -> Result<Sandbox, SandboxError> {
        let mode = self.mode(requested)?;
        let temp = match mode {
            SandboxMode::Off => None,
            _ => Some(
                tempfile::Builder::new()
                    .prefix("braid-command-")
                    .tempdir()
                    .map_err(SandboxError::TempDir)?,
            ),
        };
        let workspace = workspace.map(|w| w.canonicalize().unwrap_or_else(|_| w.to_path_buf()));
        Ok(Sandbox {
            mode,
            workspace,
            protected: self
                .protected
                .iter()
                // A protected path that does not exist yet cannot be named to the kernel; its
                // nearest existing parent stays readable, which is what it was.
                .filter_map(|p| p.canonicalize().ok())
                .collect(),
            network: Network::Denied,
            unsandboxed: self.unsandboxed,
            temp,
        })
    }
}

/// How a spawned command was confined.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Confinement {
    /// Mode `off`: Braid's own rights.
    Off,
    /// Landlock confines files (and TCP, if the kernel knows it); `network_namespace` says
    /// whether the command also has a network namespace of its own.
    Landlock {
        /// The Landlock ABI the kernel enforced.
        abi: i32,
        /// Whether the command runs in its own, empty network namespace.
        network_namespace: bool,
    },
    /// The kernel could not confine the command and the operator allowed that.
    Unconfined {
        /// What the kernel lacks.
        reason: String,
    },
}

impl fmt::Display for Confinement {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Confinement::Off => f.write_str("off"),
            Confinement::Landlock {
                abi,
                network_namespace,
            } => write!(
                f,
                "landlock abi {abi}{}",
                if *network_namespace {
                    ", own network namespace"
                } else {
                    ""
                }
            ),
            Confinement::Unconfined { reason } => write!(f, "unconfined ({reason})"),
        }
    }
}

/// The sandbox one command runs in. Keep it as long as the command runs: dropping it removes
/// the command's private temporary directory.
#[derive(Debug)]
pub struct Sandbox {
    mode: SandboxMode,
    workspace: Option<PathBuf>,
    protected: Vec<PathBuf>,
    network: Network,
    unsandboxed: Unsandboxed,
    temp: Option<tempfile::TempDir>,
}

impl Sandbox {
    /// Lets the command use the network (an MCP server configured so).
    pub fn with_network(mut self, network: Network) -> Self {
        self.network = network;
        self
    }

    /// The mode.
    pub fn mode(&self) -> SandboxMode {
        self.mode
    }

    /// The command's private temporary directory (its `TMPDIR`), when sandboxed.
    pub fn temp_dir(&self) -> Option<&Path> {
        self.temp.as_ref().map(tempfile::TempDir::path)
    }

    /// Where the command may write.
    fn writable(&self) -> Vec<&Path> {
        let mut roots: Vec<&Path> = self.temp_dir().into_iter().collect();
        if self.mode == SandboxMode::WorkspaceWrite
            && let Some(w) = &self.workspace
        {
            roots.push(w);
        }
        roots
    }

    /// Starts `command` in the sandbox (its environment gets `TMPDIR`; the rest of it is the
    /// caller's, normally [`crate::ChildEnvironment`]).
    pub async fn spawn(
        &self,
        mut command: tokio::process::Command,
    ) -> Result<(tokio::process::Child, Confinement), SandboxError> {
        let program = command
            .as_std()
            .get_program()
            .to_string_lossy()
            .into_owned();
        let spawn_error = move |source| SandboxError::Spawn { program, source };
        if let Some(temp) = self.temp_dir() {
            command.env("TMPDIR", temp);
        }
        if self.mode == SandboxMode::Off {
            return Ok((command.spawn().map_err(spawn_error)?, Confinement::Off));
        }
        // Everything that may allocate, open or fail is done here, before the spawning thread
        // restricts itself.
        let ruleset = self.ruleset()?;
        let network = self.network;
        let mode = self.mode;
        let unsandboxed = self.unsandboxed;
        let runtime = tokio::runtime::Handle::current();
        let (sender, receiver) = tokio::sync::oneshot::channel();
        // A new thread per spawn, never a pooled one: the restriction cannot be lifted and
        // must not outlive this one command.
        std::thread::Builder::new()
            .name("braid-sandbox-spawn".into())
            .spawn(move || {
                let _runtime = runtime.enter();
                let result = confine_this_thread(ruleset, network, mode, unsandboxed).and_then(
                    |confinement| {
                        command
                            .spawn()
                            .map(|child| (child, confinement))
                            .map_err(spawn_error)
                    },
                );
                // The receiver is gone only when the call was abandoned; the child (killed on
                // drop) goes with the result.
                let _ = sender.send(result);
            })
            .map_err(|e| SandboxError::Rules(format!("cannot start the spawning thread: {e}")))?;
        receiver.await.map_err(|_| {
            SandboxError::Rules("the spawning thread ended without an answer".into())
        })?
    }

    /// The Landlock rules of this sandbox, ready to enforce.
    fn ruleset(&self) -> Result<RulesetCreated, SandboxError> {
        let rules_error = |e: landlock::RulesetError| SandboxError::Rules(e.to_string());
        let all = AccessFs::from_all(SANDBOX_ABI);
        let read = AccessFs::from_read(SANDBOX_ABI);
        let mut ruleset = Ruleset::default()
            .set_compatibility(CompatLevel::BestEffort)
            .handle_access(all)
            .map_err(rules_error)?
            .scope(Scope::from_all(SANDBOX_ABI))
            .map_err(rules_error)?;
        if self.network == Network::Denied {
            // Handled with no rule allowing any port: every TCP bind and connect is refused.
            ruleset = ruleset
                .handle_access(AccessNet::from_all(SANDBOX_ABI))
                .map_err(rules_error)?;
        }
        let mut created = ruleset.create().map_err(rules_error)?;
        let mut grants: Vec<(PathBuf, BitFlags<AccessFs>)> = Vec::new();
        read_everywhere_but(Path::new("/"), &self.protected, read, &mut grants);
        for root in self.writable() {
            read_everywhere_but(root, &self.protected, all, &mut grants);
        }
        for device in WRITABLE_DEVICES {
            grants.push((PathBuf::from(device), all));
        }
        for (path, access) in grants {
            // Something that vanished since it was listed needs no rule.
            let Ok(metadata) = std::fs::metadata(&path) else {
                continue;
            };
            let Ok(fd) = PathFd::new(&path) else {
                continue;
            };
            let access = if metadata.is_dir() {
                access
            } else {
                access & AccessFs::from_file(SANDBOX_ABI)
            };
            created = created
                .add_rule(PathBeneath::new(fd, access))
                .map_err(rules_error)?;
        }
        Ok(created)
    }

    /// What the sandbox refused, as far as a finished command's output (`output`, run in
    /// `cwd`) tells: lines reporting a permission error, read for the path they name.
    pub fn denials(&self, output: &str, cwd: &Path) -> Vec<SandboxDenial> {
        if self.mode == SandboxMode::Off {
            return Vec::new();
        }
        let network_words = ["connect", "socket", "network", "bind", "tcp"];
        let mentions_network = {
            let lower = output.to_ascii_lowercase();
            network_words.iter().any(|w| lower.contains(w))
        };
        let mut seen = BTreeSet::new();
        let mut denials = Vec::new();
        for line in output.lines() {
            if !is_permission_error(line) {
                continue;
            }
            let paths = paths_in(line);
            let mut found = false;
            for path in &paths {
                let Some(denial) = self.denial_for(path, cwd) else {
                    continue;
                };
                found = true;
                if seen.insert(denial.clone()) {
                    denials.push(denial);
                }
            }
            if !found
                && paths.is_empty()
                && self.network == Network::Denied
                && (mentions_network || line.to_ascii_lowercase().contains("unreachable"))
            {
                let denial = SandboxDenial {
                    rule: DenialRule::Network,
                    path: None,
                };
                if seen.insert(denial.clone()) {
                    denials.push(denial);
                }
            }
            if denials.len() >= MAX_DENIALS {
                break;
            }
        }
        denials
    }

    fn denial_for(&self, path: &str, cwd: &Path) -> Option<SandboxDenial> {
        if path.starts_with("/dev/tcp/") || path.starts_with("/dev/udp/") {
            return (self.network == Network::Denied).then(|| SandboxDenial {
                rule: DenialRule::Network,
                path: Some(path.to_owned()),
            });
        }
        let full = normalize(&cwd.join(path));
        let rule = if self.protected.iter().any(|p| full.starts_with(p)) {
            DenialRule::ProtectedPath
        } else if self.writable().iter().any(|w| full.starts_with(w)) {
            // Inside where the command may write: an ordinary permission error, not the
            // sandbox's.
            return None;
        } else if self.mode == SandboxMode::ReadOnly {
            DenialRule::ReadOnly
        } else {
            DenialRule::WriteOutsideWorkspace
        };
        Some(SandboxDenial {
            rule,
            path: Some(full.to_string_lossy().into_owned()),
        })
    }
}

/// Restricts the calling thread (and so what it spawns next) to `ruleset`, in a network
/// namespace of its own when it may make one.
fn confine_this_thread(
    ruleset: RulesetCreated,
    network: Network,
    mode: SandboxMode,
    unsandboxed: Unsandboxed,
) -> Result<Confinement, SandboxError> {
    // Creating a network namespace needs CAP_SYS_ADMIN (root); elsewhere Landlock's TCP rules
    // are the network barrier.
    let network_namespace = network == Network::Denied
        && nix::sched::unshare(nix::sched::CloneFlags::CLONE_NEWNET).is_ok();
    let status = ruleset
        .restrict_self()
        .map_err(|e| SandboxError::Rules(e.to_string()))?;
    judge(
        &status.ruleset,
        status.landlock,
        network,
        network_namespace,
        mode,
        unsandboxed,
    )
}

/// How a command is confined, given what the kernel enforced; an error when it cannot be
/// confined as `mode` asks and the operator did not allow unconfined commands.
fn judge(
    ruleset: &RulesetStatus,
    landlock: LandlockStatus,
    network: Network,
    network_namespace: bool,
    mode: SandboxMode,
    unsandboxed: Unsandboxed,
) -> Result<Confinement, SandboxError> {
    let abi = match landlock {
        LandlockStatus::Available { effective_abi, .. } => effective_abi as i32,
        _ => 0,
    };
    let lacking = match ruleset {
        RulesetStatus::NotEnforced => Some(match landlock {
            LandlockStatus::NotEnabled => "Landlock is built in but not enabled".to_owned(),
            LandlockStatus::NotImplemented => "the kernel has no Landlock".to_owned(),
            LandlockStatus::Available { .. } => "Landlock refused the rules".to_owned(),
        }),
        // TCP rules arrived with ABI 4.
        _ if network == Network::Denied && !network_namespace && abi < 4 => Some(format!(
            "Landlock ABI {abi} has no TCP rules and no network namespace could be made"
        )),
        _ => None,
    };
    match lacking {
        None => Ok(Confinement::Landlock {
            abi,
            network_namespace,
        }),
        Some(reason) if unsandboxed == Unsandboxed::Allowed => {
            tracing::warn!(%reason, mode = %mode, "running a command unconfined: the operator allowed unsandboxed commands");
            Ok(Confinement::Unconfined { reason })
        }
        Some(reason) => Err(SandboxError::Unsupported { mode, reason }),
    }
}

/// Adds rules giving `access` to everything under `root` except the `protected` paths: a
/// directory holding no protected path gets one rule for its whole tree; one that holds some
/// is opened up entry by entry (so it cannot be listed itself, but all else in it is reached).
fn read_everywhere_but(
    root: &Path,
    protected: &[PathBuf],
    access: BitFlags<AccessFs>,
    grants: &mut Vec<(PathBuf, BitFlags<AccessFs>)>,
) {
    if protected.iter().any(|p| root.starts_with(p)) {
        return;
    }
    if !protected.iter().any(|p| p.starts_with(root)) {
        grants.push((root.to_path_buf(), access));
        return;
    }
    let Ok(entries) = std::fs::read_dir(root) else {
        return;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        let is_link = entry.file_type().is_ok_and(|t| t.is_symlink());
        if is_link {
            // A rule on a link is a rule on its target: never one that leads into a protected
            // path.
            match path.canonicalize() {
                Ok(target)
                    if !protected
                        .iter()
                        .any(|p| target.starts_with(p) || p.starts_with(&target)) =>
                {
                    grants.push((target, access));
                }
                _ => {}
            }
            continue;
        }
        read_everywhere_but(&path, protected, access, grants);
    }
}

/// Whether an output line reports a permission error.
fn is_permission_error(line: &str) -> bool {
    [
        "Permission denied",
        "Operation not permitted",
        "EACCES",
        "EPERM",
        "Errno 13",
        "Network is unreachable",
        "Read-only file system",
    ]
    .iter()
    .any(|m| line.contains(m))
}

/// The paths a line names: quoted strings and words starting with `/`, `./` or `../`.
fn paths_in(line: &str) -> Vec<String> {
    let mut paths = Vec::new();
    for quote in ['\'', '"', '`', '\u{2018}', '\u{2019}'] {
        for (i, part) in line.split(quote).enumerate() {
            if i % 2 == 1 && looks_like_path(part) {
                paths.push(part.to_owned());
            }
        }
    }
    for word in
        line.split(|c: char| c.is_whitespace() || "'\"`,;()[]<>\u{2018}\u{2019}".contains(c))
    {
        let word = word.trim_end_matches([':', '.']);
        if (word.starts_with('/') || word.starts_with("./") || word.starts_with("../"))
            && word.len() > 1
            && !paths.iter().any(|p| p == word)
        {
            paths.push(word.to_owned());
        }
    }
    paths
}

/// Whether a quoted part of a permission error may be the file concerned (`touch: cannot
/// touch 'made'`): one word.
fn looks_like_path(text: &str) -> bool {
    !text.is_empty() && !text.contains(char::is_whitespace)
}

/// `path` with `.` and `..` resolved by name (the file may not exist, so no canonicalize).
fn normalize(path: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for component in path.components() {
        match component {
            Component::ParentDir => {
                out.pop();
            }
            Component::CurDir => {}
            other => out.push(other),
        }
    }
    out
}

/// Which sandbox rule refused something.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum DenialRule {
    /// A write outside the workspace and the private temporary directory.
    WriteOutsideWorkspace,
    /// A write in mode `read_only`.
    ReadOnly,
    /// A read or write under a protected path (data directory, store, known secrets).
    ProtectedPath,
    /// A network connection or listener.
    Network,
}

impl fmt::Display for DenialRule {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            DenialRule::WriteOutsideWorkspace => "write outside the workspace",
            DenialRule::ReadOnly => "write in a read-only sandbox",
            DenialRule::ProtectedPath => "access to a protected path",
            DenialRule::Network => "network access",
        })
    }
}

/// One refusal by the sandbox, as a command's output reported it.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct SandboxDenial {
    /// The rule.
    pub rule: DenialRule,
    /// The path concerned, when the output named one.
    pub path: Option<String>,
}

impl fmt::Display for SandboxDenial {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "denied by the sandbox: {}", self.rule)?;
        if let Some(path) = &self.path {
            write!(f, ": {path}")?;
        }
        Ok(())
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
mod tests {
    use super::*;

    #[test]
    fn off_needs_the_operators_permission() {
        assert!(matches!(
            SandboxSettings::new(SandboxMode::Off, Unsandboxed::Refused),
            Err(SandboxError::OffNotAllowed)
        ));
        let settings = SandboxSettings::default();
        assert!(matches!(
            settings.mode(Some(SandboxMode::Off)),
            Err(SandboxError::OffNotAllowed)
        ));
        assert_eq!(settings.mode(None).unwrap(), SandboxMode::WorkspaceWrite);
        let allowed = SandboxSettings::new(SandboxMode::ReadOnly, Unsandboxed::Allowed).unwrap();
        assert_eq!(allowed.mode(None).unwrap(), SandboxMode::ReadOnly);
        assert_eq!(
            allowed.mode(Some(SandboxMode::Off)).unwrap(),
            SandboxMode::Off
        );
    }

    #[test]
    fn a_kernel_that_cannot_confine_refuses_unless_the_operator_allows() {
        let judge_on = |ruleset, landlock, namespace, unsandboxed| {
            judge(
                &ruleset,
                landlock,
                Network::Denied,
                namespace,
                SandboxMode::WorkspaceWrite,
                unsandboxed,
            )
        };
        let refused = judge_on(
            RulesetStatus::NotEnforced,
            LandlockStatus::NotImplemented,
            false,
            Unsandboxed::Refused,
        )
        .unwrap_err();
        assert!(
            refused.to_string().contains("the kernel has no Landlock"),
            "{refused}"
        );
        assert!(refused.to_string().contains("--allow-unsandboxed"));
        assert_eq!(
            judge_on(
                RulesetStatus::NotEnforced,
                LandlockStatus::NotEnabled,
                false,
                Unsandboxed::Allowed
            )
            .unwrap(),
            Confinement::Unconfined {
                reason: "Landlock is built in but not enabled".into()
            }
        );
        let old = LandlockStatus::Available {
            effective_abi: ABI::V3,
            kernel_abi: None,
        };
        assert!(
            judge_on(
                RulesetStatus::PartiallyEnforced,
                old,
                false,
                Unsandboxed::Refused
            )
            .unwrap_err()
            .to_string()
            .contains("no TCP rules"),
            "files confined but the network open is refused too"
        );
        assert_eq!(
            judge_on(
                RulesetStatus::PartiallyEnforced,
                old,
                true,
                Unsandboxed::Refused
            )
            .unwrap(),
            Confinement::Landlock {
                abi: 3,
                network_namespace: true
            }
        );
    }

    #[test]
    fn the_known_secrets_live_under_home() {
        assert_eq!(
            known_secrets(Some(Path::new("/home/a"))),
            [
                PathBuf::from("/home/a/.ssh"),
                PathBuf::from("/home/a/.aws"),
                PathBuf::from("/home/a/.config/gcloud")
            ]
        );
        assert!(known_secrets(None).is_empty());
    }

    #[test]
    fn reading_everywhere_skips_the_protected_paths_and_their_links() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().canonicalize().unwrap();
        std::fs::create_dir_all(root.join("home/.ssh")).unwrap();
        std::fs::create_dir_all(root.join("home/project")).unwrap();
        std::fs::write(root.join("home/notes"), "x").unwrap();
        std::fs::create_dir_all(root.join("usr")).unwrap();
        std::os::unix::fs::symlink(root.join("home/.ssh"), root.join("home/keys")).unwrap();
        let protected = [root.join("home/.ssh")];
        let mut grants = Vec::new();
        read_everywhere_but(&root, &protected, AccessFs::from_read(ABI::V6), &mut grants);
        let mut granted: Vec<String> = grants
            .iter()
            .map(|(p, _)| {
                p.strip_prefix(&root)
                    .unwrap()
                    .to_string_lossy()
                    .into_owned()
            })
            .collect();
        granted.sort();
        assert_eq!(granted, ["home/notes", "home/project", "usr"]);
    }

    #[test]
    fn denials_name_the_rule_and_the_path() {
        let settings = SandboxSettings::default();
        let dir = tempfile::tempdir().unwrap();
        let ws = dir.path().canonicalize().unwrap();
        let mut sandbox = settings.sandbox(None, Some(&ws)).unwrap();
        sandbox.protected = vec![PathBuf::from("/root/.ssh")];
        let output = "touch: cannot touch '/etc/hosts': Permission denied\n\
            cat: /root/.ssh/id_ed25519: Permission denied\n\
            bash: connect: Permission denied\n\
            bash: line 1: /dev/tcp/127.0.0.1/8080: Permission denied\n\
            mkdir: cannot create directory 'out': Permission denied\n\
            all good\n";
        let denials: Vec<String> = sandbox
            .denials(output, &ws)
            .iter()
            .map(ToString::to_string)
            .collect();
        assert_eq!(
            denials,
            [
                "denied by the sandbox: write outside the workspace: /etc/hosts",
                "denied by the sandbox: access to a protected path: /root/.ssh/id_ed25519",
                "denied by the sandbox: network access",
                "denied by the sandbox: network access: /dev/tcp/127.0.0.1/8080",
            ]
        );
        let mut read_only = settings
            .sandbox(Some(SandboxMode::ReadOnly), Some(&ws))
            .unwrap();
        read_only.protected.clear();
        let out = ws.join("out");
        assert_eq!(
            read_only.denials(
                &format!("cannot write {}: Read-only file system", out.display()),
                &ws
            )[0]
            .to_string(),
            format!(
                "denied by the sandbox: write in a read-only sandbox: {}",
                out.display()
            )
        );
    }
}
