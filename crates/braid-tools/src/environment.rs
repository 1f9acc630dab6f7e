//! The environment every child process of Braid starts from: `run_command`, MCP stdio servers
//! and anything later that runs a program (DESIGN.md "Security defaults").
//!
//! Braid's own environment holds its secrets (`BRAID_API_TOKEN`, provider keys, cloud
//! credentials). A child must not see them: a command the model runs could print them into the
//! conversation. So a child starts from an empty environment plus a short allow-list of
//! variables programs need to behave normally, and, for an MCP server, exactly the `env` its
//! configuration names. Nothing is inherited by default, so a new secret needs no new rule.

use std::collections::BTreeMap;
use std::ffi::{OsStr, OsString};

/// Variables a child inherits from Braid's environment when they are set.
pub const INHERITED_VARIABLES: [&str; 7] =
    ["PATH", "HOME", "LANG", "TERM", "TMPDIR", "USER", "SHELL"];

/// Prefix of the locale variables a child inherits (`LC_ALL`, `LC_CTYPE`...).
pub const INHERITED_PREFIX: &str = "LC_";

/// Whether a child inherits the variable `name` from Braid's environment.
pub fn is_inherited(name: &OsStr) -> bool {
    let Some(name) = name.to_str() else {
        return false;
    };
    INHERITED_VARIABLES.contains(&name)
        || name
            .strip_prefix(INHERITED_PREFIX)
            .is_some_and(|rest| !rest.is_empty())
}

/// The environment a child starts from: the allow-listed variables of Braid's own environment
/// plus `extra` (which wins over an inherited variable of the same name).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ChildEnvironment {
    variables: BTreeMap<OsString, OsString>,
}

impl ChildEnvironment {
    /// The allow-listed variables of this process's environment.
    pub fn inherited() -> Self {
        Self::from_parent(std::env::vars_os())
    }

    /// The allow-listed variables of `parent` (an environment given as name-value pairs).
    pub fn from_parent(parent: impl IntoIterator<Item = (OsString, OsString)>) -> Self {
        Self {
            variables: parent
                .into_iter()
                .filter(|(name, _)| is_inherited(name))
                .collect(),
        }
    }

    /// Adds variables the caller's configuration names (an MCP server's `env`).
    pub fn with(mut self, extra: &BTreeMap<String, String>) -> Self {
        for (name, value) in extra {
            self.variables.insert(name.into(), value.into());
        }
        self
    }

    /// The variable `name`, if the child gets it.
    pub fn get(&self, name: &str) -> Option<&OsStr> {
        self.variables
            .get(OsStr::new(name))
            .map(OsString::as_os_str)
    }

    /// Every variable the child gets, sorted by name.
    pub fn variables(&self) -> impl Iterator<Item = (&OsStr, &OsStr)> {
        self.variables
            .iter()
            .map(|(n, v)| (n.as_os_str(), v.as_os_str()))
    }

    /// Replaces `command`'s whole environment with this one.
    pub fn apply(&self, command: &mut tokio::process::Command) {
        command.env_clear().envs(&self.variables);
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
mod tests {
    use super::*;

    fn parent(pairs: &[(&str, &str)]) -> Vec<(OsString, OsString)> {
        pairs
            .iter()
            .map(|(n, v)| (OsString::from(n), OsString::from(v)))
            .collect()
    }

    #[test]
    fn only_allow_listed_variables_are_inherited() {
        let env = ChildEnvironment::from_parent(parent(&[
            ("PATH", "/usr/bin"),
            ("HOME", "/home/a"),
            ("LC_ALL", "C.UTF-8"),
            ("BRAID_API_TOKEN", "t"),
            ("OPENAI_API_KEY", "k"),
            ("ANTHROPIC_API_KEY", "k"),
            ("AWS_SECRET_ACCESS_KEY", "s"),
            ("CARGO_HOME", "/c"),
            ("LC_", "x"),
        ]));
        let names: Vec<&OsStr> = env.variables().map(|(n, _)| n).collect();
        assert_eq!(names, ["HOME", "LC_ALL", "PATH"]);
    }

    #[test]
    fn configured_variables_are_added_and_win() {
        let extra: BTreeMap<String, String> = [
            ("DEBUG".to_string(), "1".to_string()),
            ("PATH".to_string(), "/opt/bin".to_string()),
        ]
        .into();
        let env = ChildEnvironment::from_parent(parent(&[("PATH", "/usr/bin")])).with(&extra);
        assert_eq!(env.get("DEBUG"), Some(OsStr::new("1")));
        assert_eq!(env.get("PATH"), Some(OsStr::new("/opt/bin")));
    }

    #[tokio::test]
    async fn a_child_sees_nothing_but_its_environment() {
        let extra: BTreeMap<String, String> = [("ONLY_THIS".to_string(), "yes".to_string())].into();
        let env = ChildEnvironment::from_parent(parent(&[("PATH", "/usr/bin:/bin")])).with(&extra);
        let mut command = tokio::process::Command::new("/usr/bin/env");
        env.apply(&mut command);
        let out = command.output().await.unwrap();
        let text = String::from_utf8(out.stdout).unwrap();
        let mut lines: Vec<&str> = text.lines().collect();
        lines.sort_unstable();
        assert_eq!(lines, ["ONLY_THIS=yes", "PATH=/usr/bin:/bin"]);
    }
}
