//! The process group of a child Braid starts, so stopping the child stops everything it
//! spawned too (`sh -c "server & sleep 300"`, `npx` running node as a grandchild).
//!
//! A child started with [`ProcessGroup::prepare`] leads a new group; [`ProcessGroup::kill`]
//! sends `SIGKILL` to every member, and dropping an unkilled guard does the same, so a call
//! that is timed out, interrupted or abandoned leaves no process behind.

use nix::sys::signal::{Signal, killpg};
use nix::unistd::Pid;

/// The group a spawned child leads; kills the group when dropped unless already killed.
#[derive(Debug)]
pub struct ProcessGroup {
    pgid: Pid,
    killed: bool,
}

impl ProcessGroup {
    /// Makes the child `command` starts the leader of a new process group.
    pub fn prepare(command: &mut tokio::process::Command) {
        command.process_group(0);
    }

    /// The group led by the child with process id `pid` (started after [`Self::prepare`]);
    /// `None` when the id is unknown (the child was already reaped) or out of range.
    pub fn led_by(pid: Option<u32>) -> Option<Self> {
        let raw = i32::try_from(pid?).ok().filter(|p| *p > 1)?;
        Some(Self {
            pgid: Pid::from_raw(raw),
            killed: false,
        })
    }

    /// The group's id (the leader's process id).
    pub fn id(&self) -> u32 {
        self.pgid.as_raw().unsigned_abs()
    }

    /// Sends `SIGKILL` to every process of the group; later calls do nothing. A group whose
    /// processes are all gone already is not an error.
    pub fn kill(&mut self) {
        if self.killed {
            return;
        }
        self.killed = true;
        match killpg(self.pgid, Signal::SIGKILL) {
            Ok(()) | Err(nix::errno::Errno::ESRCH) => {}
            Err(e) => {
                tracing::warn!(pgid = self.pgid.as_raw(), error = %e, "cannot kill process group")
            }
        }
    }
}

impl Drop for ProcessGroup {
    fn drop(&mut self) {
        self.kill();
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
mod tests {
    use super::*;

    /// Live (not zombie) processes whose process group is `pgid`, from /proc.
    fn members(pgid: u32) -> usize {
        std::fs::read_dir("/proc")
            .unwrap()
            .flatten()
            .filter_map(|e| std::fs::read_to_string(e.path().join("stat")).ok())
            .filter(|stat| {
                // After the parenthesised name come state, ppid and pgrp.
                let rest = stat.rsplit_once(") ").map(|(_, r)| r).unwrap_or("");
                let fields: Vec<&str> = rest.split(' ').collect();
                fields.len() > 2 && fields[0] != "Z" && fields[2].parse::<u32>().ok() == Some(pgid)
            })
            .count()
    }

    /// Waits (up to two seconds) until the group has `count` live members; answers whether it did.
    async fn settles_at(pgid: u32, count: usize) -> bool {
        for _ in 0..100 {
            if members(pgid) == count {
                return true;
            }
            tokio::time::sleep(std::time::Duration::from_millis(20)).await;
        }
        false
    }

    /// `sh` running a background `sleep` in a new group, once both run.
    async fn shell_with_a_grandchild() -> (tokio::process::Child, ProcessGroup) {
        let mut command = tokio::process::Command::new("sh");
        command.args(["-c", "sleep 300 & wait"]);
        ProcessGroup::prepare(&mut command);
        let child = command.spawn().unwrap();
        let group = ProcessGroup::led_by(child.id()).unwrap();
        assert!(
            settles_at(group.id(), 2).await,
            "sh and its background sleep"
        );
        (child, group)
    }

    #[tokio::test]
    async fn killing_the_group_stops_a_grandchild() {
        let (mut child, mut group) = shell_with_a_grandchild().await;
        group.kill();
        child.wait().await.unwrap();
        assert!(
            settles_at(group.id(), 0).await,
            "processes of the group survived the kill"
        );
    }

    #[tokio::test]
    async fn dropping_the_guard_kills_the_group() {
        let (mut child, group) = shell_with_a_grandchild().await;
        let pgid = group.id();
        drop(group);
        child.wait().await.unwrap();
        assert!(
            settles_at(pgid, 0).await,
            "processes of the group survived the guard"
        );
    }
}
