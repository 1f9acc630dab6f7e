//! The files a request's frame is built from (issue 19): the workspace's instructions file and
//! the workflow definitions of the workspace and of the person, offered as tools. Every summary
//! and every request needs them, and reading them costs dozens of system calls, so on Linux what
//! was read is kept, with inotify watches on every directory and regular file it came from, and
//! read again as soon as the kernel reports a change to any of them.
//!
//! Why a kept read cannot be stale: the kernel queues an inotify event in the same system call
//! that changes a watched directory (an entry created, deleted, renamed) or a watched file
//! (written, truncated, its attributes changed, deleted, moved), and every check first drains
//! the queue; the watches are set before the files are read, so a change made while they are
//! read shows on the next check. What a watch cannot see is not kept but read every time: a
//! symbolic link among the files or folders (a change in the directories of its target is not
//! reported), a file system whose changes may come from elsewhere (only local ones are trusted:
//! ext2/3/4, XFS, Btrfs, tmpfs, overlay, F2FS, ZFS), a folder of more definition files than are
//! read. A workspace or folder moved away and another put at its path is a different inode: each
//! check compares the inodes the paths name. An overflowing event queue drops everything kept.

use std::path::Path;
use std::sync::Arc;

use braid_llm::ToolDefinition;
use braid_tools::Workspace;

use crate::instructions::WorkspaceInstructions;
use crate::workflow::Catalog;
use crate::workflow::catalog::Parsing;

/// What the frame of a request reads from the disk.
#[derive(Debug, Default, PartialEq)]
pub(crate) struct WorkspaceFiles {
    /// The workspace's instructions file.
    pub instructions: Option<WorkspaceInstructions>,
    /// The runnable workflows, as tools.
    pub workflow_tools: Vec<ToolDefinition>,
}

impl WorkspaceFiles {
    /// Reads them now, parsing the workflow files as `parsing` says.
    fn read(workspace: Option<&Workspace>, user_folder: Option<&Path>, parsing: Parsing) -> Self {
        let root = workspace.map(|w| w.root());
        let catalog = Catalog::discover_with(root, user_folder, parsing);
        Self {
            instructions: workspace.and_then(crate::instructions::read),
            workflow_tools: catalog
                .definitions()
                .map(|d| ToolDefinition {
                    name: d.tool_name(),
                    description: format!("Run the workflow `{}`: {}", d.name, d.description),
                    parameters: d.parameters.clone(),
                })
                .collect(),
        }
    }
}

/// The files of `workspace` and of the person's `user_folder` as they are now: the kept read
/// while no watch reported a change, else a new one.
pub(crate) fn current(
    workspace: Option<&Workspace>,
    user_folder: Option<&Path>,
) -> Arc<WorkspaceFiles> {
    #[cfg(target_os = "linux")]
    {
        watched::current(workspace, user_folder)
    }
    #[cfg(not(target_os = "linux"))]
    {
        Arc::new(WorkspaceFiles::read(
            workspace,
            user_folder,
            Parsing::Remembered,
        ))
    }
}

#[cfg(target_os = "linux")]
mod watched {
    use std::collections::HashMap;
    use std::os::unix::fs::MetadataExt;
    use std::path::{Path, PathBuf};
    use std::sync::{Arc, LazyLock, Mutex};

    use braid_tools::Workspace;
    use nix::errno::Errno;
    use nix::sys::inotify::{AddWatchFlags, InitFlags, Inotify, WatchDescriptor};
    use nix::sys::statfs;

    use super::{Parsing, WorkspaceFiles};
    use crate::instructions::INSTRUCTION_FILES;
    use crate::workflow::catalog::{MAX_DEFINITIONS_PER_FOLDER, WORKSPACE_FOLDER};

    /// The most watches held at once; past it every watch is dropped (and everything kept with
    /// them) and set again as reads need them.
    pub const MAX_WATCHES: usize = 4096;
    /// The most reads kept (one per workspace and person's folder); past it they are dropped.
    pub const MAX_KEPT: usize = 256;

    /// What changes a watched directory or file: everything but reading it.
    const CHANGES: AddWatchFlags = AddWatchFlags::IN_MODIFY
        .union(AddWatchFlags::IN_ATTRIB)
        .union(AddWatchFlags::IN_CLOSE_WRITE)
        .union(AddWatchFlags::IN_MOVED_FROM)
        .union(AddWatchFlags::IN_MOVED_TO)
        .union(AddWatchFlags::IN_CREATE)
        .union(AddWatchFlags::IN_DELETE)
        .union(AddWatchFlags::IN_DELETE_SELF)
        .union(AddWatchFlags::IN_MOVE_SELF);

    /// File systems whose every change goes through this kernel, so a watch sees it.
    const LOCAL: [statfs::FsType; 9] = [
        statfs::EXT2_SUPER_MAGIC,
        statfs::EXT3_SUPER_MAGIC,
        statfs::EXT4_SUPER_MAGIC,
        statfs::XFS_SUPER_MAGIC,
        statfs::BTRFS_SUPER_MAGIC,
        statfs::TMPFS_MAGIC,
        statfs::OVERLAYFS_SUPER_MAGIC,
        statfs::F2FS_SUPER_MAGIC,
        // ZFS (no constant in `nix`).
        statfs::FsType(0x2fc1_2fc1),
    ];

    /// The process's watches and what they keep; `None` when inotify cannot be used here (then
    /// every read goes to the disk).
    static WATCHER: LazyLock<Mutex<Option<Watcher>>> = LazyLock::new(|| {
        Mutex::new(match Watcher::new() {
            Ok(watcher) => Some(watcher),
            Err(error) => {
                tracing::warn!(%error, "no inotify: workspace instructions and workflows are read from the disk for every request");
                None
            }
        })
    });

    /// Which pair of folders a read is of.
    #[derive(Clone, Debug, Hash, PartialEq, Eq)]
    struct Key {
        root: Option<PathBuf>,
        user_folder: Option<PathBuf>,
    }

    /// The device and inode each path of a [`Key`] names (`None` when nothing is there).
    #[derive(Clone, Copy, Debug, PartialEq, Eq)]
    struct Identity {
        root: Option<(u64, u64)>,
        user_folder: Option<(u64, u64)>,
    }

    impl Identity {
        fn of(key: &Key) -> Self {
            let inode = |path: &Option<PathBuf>| {
                path.as_ref()
                    .and_then(|p| std::fs::metadata(p).ok())
                    .map(|m| (m.dev(), m.ino()))
            };
            Self {
                root: inode(&key.root),
                user_folder: inode(&key.user_folder),
            }
        }
    }

    /// One kept read and the state of the watches it depends on when it was made.
    struct Kept {
        files: Arc<WorkspaceFiles>,
        /// The inotify instance its watches belong to (a new instance numbers watches anew).
        instance: u64,
        watches: Vec<(WatchDescriptor, u64)>,
        overflows: u64,
        identity: Identity,
    }

    struct Watcher {
        inotify: Inotify,
        /// Counts the instances opened, this one included.
        instance: u64,
        /// Events seen per watch since it was set.
        events: HashMap<WatchDescriptor, u64>,
        /// Times events were lost (the queue overflowed, or it could not be read).
        overflows: u64,
        kept: HashMap<Key, Kept>,
    }

    impl Watcher {
        fn new() -> nix::Result<Self> {
            Ok(Self {
                inotify: Inotify::init(InitFlags::IN_NONBLOCK | InitFlags::IN_CLOEXEC)?,
                instance: 1,
                events: HashMap::new(),
                overflows: 0,
                kept: HashMap::new(),
            })
        }

        /// Counts every event queued so far.
        fn drain(&mut self) {
            loop {
                match self.inotify.read_events() {
                    Ok(events) if events.is_empty() => return,
                    Ok(events) => {
                        for event in events {
                            if event.mask.contains(AddWatchFlags::IN_Q_OVERFLOW) {
                                self.overflows += 1;
                            } else {
                                *self.events.entry(event.wd).or_default() += 1;
                            }
                        }
                    }
                    Err(Errno::EAGAIN) => return,
                    Err(Errno::EINTR) => {}
                    Err(error) => {
                        tracing::warn!(%error, "inotify events could not be read: kept workspace files are read again");
                        self.overflows += 1;
                        return;
                    }
                }
            }
        }

        /// The kept read of `key`, if nothing it depends on changed.
        fn kept(&self, key: &Key, identity: &Identity) -> Option<Arc<WorkspaceFiles>> {
            let kept = self.kept.get(key)?;
            let unchanged = kept.instance == self.instance
                && kept.overflows == self.overflows
                && kept.identity == *identity
                && kept
                    .watches
                    .iter()
                    .all(|(wd, seen)| self.events.get(wd) == Some(seen));
            unchanged.then(|| kept.files.clone())
        }

        /// Watches every directory and regular file a read of `key` depends on, and returns
        /// them with their event counts now; `None` when the read cannot be watched whole.
        fn watch(&mut self, key: &Key) -> Option<Vec<(WatchDescriptor, u64)>> {
            if self.events.len() >= MAX_WATCHES {
                // Start anew: closing the instance drops its watches.
                let instance = self.instance + 1;
                *self = Self::new().ok()?;
                self.instance = instance;
            }
            let mut set = Vec::new();
            if let Some(root) = &key.root {
                self.add(root, &mut set)?;
                for name in INSTRUCTION_FILES {
                    self.entry(&root.join(name), &mut set)?;
                }
                let braid = root.join(".braid");
                if self.entry(&braid, &mut set)? == Entry::Directory {
                    self.add(&braid, &mut set)?;
                    self.folder(&root.join(WORKSPACE_FOLDER), &mut set)?;
                }
            }
            if let Some(folder) = &key.user_folder {
                // The folder itself may be reached through links: each check compares the
                // inode its path names.
                if std::fs::metadata(folder).is_ok_and(|m| m.is_dir()) {
                    self.add(folder, &mut set)?;
                    self.definitions(folder, &mut set)?;
                }
            }
            Some(set)
        }

        /// A workflow folder inside the workspace: watched with its definition files when it
        /// is a directory (its creation shows in the watch of its parent).
        fn folder(&mut self, folder: &Path, set: &mut Vec<(WatchDescriptor, u64)>) -> Option<()> {
            if self.entry(folder, set)? == Entry::Directory {
                self.add(folder, set)?;
                self.definitions(folder, set)?;
            }
            Some(())
        }

        /// The definition files of a watched folder.
        fn definitions(
            &mut self,
            folder: &Path,
            set: &mut Vec<(WatchDescriptor, u64)>,
        ) -> Option<()> {
            let files: Vec<PathBuf> = std::fs::read_dir(folder)
                .ok()?
                .filter_map(Result::ok)
                .map(|e| e.path())
                .filter(|p| p.extension().is_some_and(|e| e == "yaml" || e == "yml"))
                .collect();
            if files.len() > MAX_DEFINITIONS_PER_FOLDER {
                return None;
            }
            for file in files {
                self.entry(&file, set)?;
            }
            Some(())
        }

        /// Looks at one directory entry of a watched directory: a regular file is watched
        /// itself (a write through another hard link is reported only there); a link cannot be
        /// watched whole.
        fn entry(&mut self, path: &Path, set: &mut Vec<(WatchDescriptor, u64)>) -> Option<Entry> {
            match std::fs::symlink_metadata(path) {
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => Some(Entry::Absent),
                Err(_) => None,
                Ok(m) if m.file_type().is_symlink() => None,
                Ok(m) if m.is_file() => {
                    self.add(path, set)?;
                    Some(Entry::File)
                }
                Ok(m) if m.is_dir() => Some(Entry::Directory),
                Ok(_) => Some(Entry::Other),
            }
        }

        /// Watches `path` (on a local file system) and notes its event count.
        fn add(&mut self, path: &Path, set: &mut Vec<(WatchDescriptor, u64)>) -> Option<()> {
            let fs = statfs::statfs(path).ok()?.filesystem_type();
            if !LOCAL.contains(&fs) {
                return None;
            }
            let wd = self.inotify.add_watch(path, CHANGES).ok()?;
            let seen = *self.events.entry(wd).or_default();
            set.push((wd, seen));
            Some(())
        }
    }

    /// What a directory entry is.
    #[derive(Clone, Copy, Debug, PartialEq, Eq)]
    enum Entry {
        Absent,
        File,
        Directory,
        Other,
    }

    pub(super) fn current(
        workspace: Option<&Workspace>,
        user_folder: Option<&Path>,
    ) -> Arc<WorkspaceFiles> {
        let key = Key {
            root: workspace.map(|w| w.root().to_path_buf()),
            user_folder: user_folder.map(Path::to_path_buf),
        };
        let identity = Identity::of(&key);
        let lock = || WATCHER.lock().unwrap_or_else(|e| e.into_inner());
        let watched = {
            let mut guard = lock();
            let Some(watcher) = guard.as_mut() else {
                return Arc::new(WorkspaceFiles::read(
                    workspace,
                    user_folder,
                    Parsing::Remembered,
                ));
            };
            watcher.drain();
            if let Some(files) = watcher.kept(&key, &identity) {
                return files;
            }
            watcher
                .watch(&key)
                .map(|set| (set, watcher.instance, watcher.overflows))
        };
        // Read outside the lock: a slow disk holds up no other context.
        let Some((watches, instance, overflows)) = watched else {
            return Arc::new(WorkspaceFiles::read(
                workspace,
                user_folder,
                Parsing::Remembered,
            ));
        };
        let files = Arc::new(WorkspaceFiles::read(workspace, user_folder, Parsing::Fresh));
        if let Some(watcher) = lock().as_mut() {
            if watcher.kept.len() >= MAX_KEPT {
                watcher.kept.clear();
            }
            watcher.kept.insert(
                key,
                Kept {
                    files: files.clone(),
                    instance,
                    watches,
                    overflows,
                    identity,
                },
            );
        }
        files
    }
}

#[cfg(all(test, target_os = "linux"))]
#[allow(clippy::unwrap_used, clippy::expect_used)]
mod tests {
    use super::*;

    const GREET: &str = "name: greet\ndescription: Greets someone\nparameters:\n  type: object\n  properties: { name: { type: string } }\nsteps:\n  - name: hello\n    prompt: 'Say hello'\n";

    fn text(files: &WorkspaceFiles) -> Option<&str> {
        files.instructions.as_ref().map(|i| i.text.as_str())
    }

    #[test]
    fn a_read_is_kept_until_a_watched_file_changes_even_to_the_same_length() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("AGENTS.md"), "Run make test.").unwrap();
        let ws = Workspace::new(dir.path()).unwrap();
        let first = current(Some(&ws), None);
        assert_eq!(text(&first), Some("Run make test."));
        assert!(
            Arc::ptr_eq(&first, &current(Some(&ws), None)),
            "nothing changed: the read is kept"
        );
        std::fs::write(dir.path().join("AGENTS.md"), "Run make lint.").unwrap();
        assert_eq!(text(&current(Some(&ws), None)), Some("Run make lint."));
        // A file later in the order appears: the first still wins, until it goes.
        std::fs::write(dir.path().join("CLAUDE.md"), "Claude's.").unwrap();
        assert_eq!(text(&current(Some(&ws), None)), Some("Run make lint."));
        std::fs::remove_file(dir.path().join("AGENTS.md")).unwrap();
        assert_eq!(text(&current(Some(&ws), None)), Some("Claude's."));
    }

    #[test]
    fn workflow_folders_made_after_the_first_read_and_their_files_are_read() {
        let dir = tempfile::tempdir().unwrap();
        let person = tempfile::tempdir().unwrap();
        let person_folder = person.path().join("workflows");
        let ws = Workspace::new(dir.path()).unwrap();
        let read = || current(Some(&ws), Some(&person_folder));
        assert!(read().workflow_tools.is_empty());
        // `.braid`, then `.braid/workflows`, then a file: each a level the watches must follow.
        let own = dir.path().join(".braid/workflows");
        std::fs::create_dir_all(&own).unwrap();
        std::fs::write(own.join("greet.yaml"), GREET).unwrap();
        let names = |f: &WorkspaceFiles| -> Vec<String> {
            f.workflow_tools.iter().map(|t| t.name.clone()).collect()
        };
        assert_eq!(names(&read()), ["workflow__greet"]);
        std::fs::write(own.join("greet.yaml"), GREET.replace("someone", "a friend")).unwrap();
        assert!(read().workflow_tools[0].description.contains("a friend"));
        // The person's folder did not exist either.
        std::fs::create_dir_all(&person_folder).unwrap();
        std::fs::write(
            person_folder.join("wave.yml"),
            GREET.replace("name: greet", "name: wave"),
        )
        .unwrap();
        assert_eq!(names(&read()), ["workflow__greet", "workflow__wave"]);
        std::fs::remove_file(own.join("greet.yaml")).unwrap();
        assert_eq!(names(&read()), ["workflow__wave"]);
    }

    #[test]
    fn a_workspace_moved_away_with_another_put_at_its_path_is_read_again() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().join("a/ws");
        std::fs::create_dir_all(&root).unwrap();
        std::fs::write(root.join("AGENTS.md"), "The first.").unwrap();
        let ws = Workspace::new(&root).unwrap();
        assert_eq!(text(&current(Some(&ws), None)), Some("The first."));
        // Moving a parent is not reported to the workspace's own watch.
        std::fs::rename(dir.path().join("a"), dir.path().join("b")).unwrap();
        std::fs::create_dir_all(&root).unwrap();
        std::fs::write(root.join("AGENTS.md"), "The other.").unwrap();
        let ws = Workspace::new(&root).unwrap();
        assert_eq!(text(&current(Some(&ws), None)), Some("The other."));
    }

    #[test]
    fn a_file_written_through_another_hard_link_is_read_again() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().join("ws");
        std::fs::create_dir_all(&root).unwrap();
        std::fs::write(root.join("AGENTS.md"), "Before.").unwrap();
        std::fs::hard_link(root.join("AGENTS.md"), dir.path().join("elsewhere.md")).unwrap();
        let ws = Workspace::new(&root).unwrap();
        assert_eq!(text(&current(Some(&ws), None)), Some("Before."));
        std::fs::write(dir.path().join("elsewhere.md"), "After!!").unwrap();
        assert_eq!(text(&current(Some(&ws), None)), Some("After!!"));
    }

    #[test]
    fn a_linked_instructions_file_is_read_every_time() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(dir.path().join("docs")).unwrap();
        std::fs::write(dir.path().join("docs/agents.md"), "Linked.").unwrap();
        std::os::unix::fs::symlink("docs/agents.md", dir.path().join("AGENTS.md")).unwrap();
        let ws = Workspace::new(dir.path()).unwrap();
        let first = current(Some(&ws), None);
        assert_eq!(text(&first), Some("Linked."));
        assert!(!Arc::ptr_eq(&first, &current(Some(&ws), None)), "not kept");
        // The link's target moves and another file takes its place.
        std::fs::rename(dir.path().join("docs"), dir.path().join("old")).unwrap();
        std::fs::create_dir_all(dir.path().join("docs")).unwrap();
        std::fs::write(dir.path().join("docs/agents.md"), "Moved.").unwrap();
        assert_eq!(text(&current(Some(&ws), None)), Some("Moved."));
    }
}
