//! The codebase index: the definitions and identifier uses of every source file of a workspace,
//! for `find_definition` and `find_references` (seed 001 "Codebase index freshness").
//!
//! The first build runs on a background thread. A file watcher (notify) re-reads files as they
//! change, in the background. Before answering, every query *syncs*: it walks the workspace
//! (with the same ignore rules as every tool) and compares each file's size and modification
//! time with what was indexed, re-reading what differs. So a query never answers from stale
//! data, even when the watcher has not delivered an event yet or cannot watch at all; the
//! watcher only means the sync usually finds nothing left to parse.
//!
//! All updates (build, watcher, sync) take one lock that also owns the parsers, so two updates
//! of a file can never interleave and leave the older content in the index.

use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::SystemTime;

use notify::{RecommendedWatcher, RecursiveMode, Watcher};
use serde::Serialize;

use super::symbols::{Definition, FileSymbols, SourceLanguage, SymbolReader};
use crate::excerpt::read_to_limit;
use crate::walker::{EXCLUDED_DIRS, walker};
use crate::workspace::Workspace;

/// What identifies a version of a file without reading it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Stamp {
    modified: Option<SystemTime>,
    len: u64,
}

impl Stamp {
    fn of(path: &Path) -> Option<Stamp> {
        let meta = std::fs::metadata(path).ok()?;
        meta.is_file().then(|| Stamp {
            modified: meta.modified().ok(),
            len: meta.len(),
        })
    }
}

#[derive(Debug)]
struct IndexedFile {
    stamp: Stamp,
    language: SourceLanguage,
    symbols: FileSymbols,
}

/// Below this many files to parse, one thread does it.
const PARALLEL_THRESHOLD: usize = 32;

/// Files larger than this are not parsed (generated or minified code).
pub(crate) const MAX_FILE_BYTES: u64 = 2 * 1024 * 1024;

/// How the index is doing, for logs and benchmarks.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct IndexStats {
    /// Source files indexed.
    pub files: usize,
    /// Definitions known.
    pub definitions: usize,
    /// Files parsed by the last sync (0 when everything was already fresh).
    pub last_sync_parsed: usize,
    /// Whether the file watcher is running.
    pub watching: bool,
    /// Files the watcher re-read in the background since the index started.
    pub watcher_updates: u64,
}

/// A definition together with where it is.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Located<T> {
    /// Path relative to the workspace root.
    pub path: String,
    /// Language of the file.
    pub language: SourceLanguage,
    /// The item.
    #[serde(flatten)]
    pub item: T,
}

/// Uses of a name in one file.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct FileUses {
    /// Path relative to the workspace root.
    pub path: String,
    /// 1-based (line, column) of each use, in file order.
    pub positions: Vec<(u32, u32)>,
    /// 1-based lines where the name is defined in this file.
    pub definition_lines: Vec<u32>,
}

struct Shared {
    workspace: Workspace,
    files: Mutex<HashMap<PathBuf, IndexedFile>>,
    /// The update lock: whoever changes `files` holds it from reading a file until storing it.
    updater: Mutex<Updater>,
}

struct Updater {
    reader: SymbolReader,
    last_sync_parsed: usize,
    watcher_updates: u64,
}

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    // The data behind these locks is replaced in whole entries, so it stays usable after a
    // panic elsewhere.
    m.lock().unwrap_or_else(|p| p.into_inner())
}

/// The index of one workspace.
pub struct CodebaseIndex {
    shared: Arc<Shared>,
    watcher: Mutex<Option<RecommendedWatcher>>,
}

impl std::fmt::Debug for CodebaseIndex {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("CodebaseIndex")
            .field("root", &self.shared.workspace.root())
            .finish()
    }
}

fn is_excluded(root: &Path, path: &Path) -> bool {
    path.strip_prefix(root)
        .map(|rel| {
            rel.components()
                .any(|c| EXCLUDED_DIRS.iter().any(|d| c.as_os_str() == *d))
        })
        .unwrap_or(true)
}

impl Shared {
    fn read_file(
        reader: &mut SymbolReader,
        path: &Path,
        language: SourceLanguage,
    ) -> Option<IndexedFile> {
        let stamp = Stamp::of(path)?;
        if stamp.len > MAX_FILE_BYTES {
            return None;
        }
        // The file may have grown since its stamp was taken.
        let source = read_to_limit(path, MAX_FILE_BYTES).ok()?;
        match reader.read(language, &source) {
            Ok(symbols) => Some(IndexedFile {
                stamp,
                language,
                symbols,
            }),
            Err(e) => {
                tracing::warn!(path = %path.display(), error = %e, "file not indexed");
                None
            }
        }
    }

    /// Reads `stale` files: on the calling thread when there are few, else split over the
    /// machine's cores (a first build of a large tree is mostly parsing).
    fn read_files(
        reader: &mut SymbolReader,
        stale: Vec<(PathBuf, SourceLanguage)>,
    ) -> Vec<(PathBuf, Option<IndexedFile>)> {
        let threads = std::thread::available_parallelism()
            .map_or(1, usize::from)
            .min(8);
        if stale.len() < PARALLEL_THRESHOLD || threads < 2 {
            return stale
                .into_iter()
                .map(|(path, language)| {
                    let file = Self::read_file(reader, &path, language);
                    (path, file)
                })
                .collect();
        }
        let chunk = stale.len().div_ceil(threads);
        std::thread::scope(|scope| {
            let workers: Vec<_> = stale
                .chunks(chunk)
                .map(|part| {
                    scope.spawn(move || {
                        let mut reader = SymbolReader::new();
                        part.iter()
                            .map(|(path, language)| {
                                (path.clone(), Self::read_file(&mut reader, path, *language))
                            })
                            .collect::<Vec<_>>()
                    })
                })
                .collect();
            workers
                .into_iter()
                .flat_map(|w| w.join().unwrap_or_default())
                .collect()
        })
    }

    /// Brings the index up to date with the disk; returns how many files were parsed.
    fn sync(&self) -> usize {
        let mut updater = lock(&self.updater);
        let mut seen = Vec::new();
        for entry in walker(self.workspace.root()).build().flatten() {
            if !entry.file_type().is_some_and(|t| t.is_file()) {
                continue;
            }
            if let Some(language) = SourceLanguage::of(entry.path())
                && let Some(stamp) = Stamp::of(entry.path())
            {
                seen.push((entry.into_path(), language, stamp));
            }
        }
        let (stale, removed): (Vec<_>, Vec<_>) = {
            let files = lock(&self.files);
            let present: HashSet<&PathBuf> = seen.iter().map(|(p, _, _)| p).collect();
            let stale = seen
                .iter()
                .filter(|(p, _, stamp)| files.get(p).is_none_or(|f| f.stamp != *stamp))
                .map(|(p, l, _)| (p.clone(), *l))
                .collect();
            let removed = files
                .keys()
                .filter(|p| !present.contains(p))
                .cloned()
                .collect();
            (stale, removed)
        };
        let parsed = Self::read_files(&mut updater.reader, stale);
        let count = parsed.len();
        let mut files = lock(&self.files);
        for path in removed {
            files.remove(&path);
        }
        for (path, file) in parsed {
            match file {
                Some(f) => files.insert(path, f),
                None => files.remove(&path),
            };
        }
        updater.last_sync_parsed = count;
        count
    }

    /// Re-reads files the watcher reported, if they are already indexed (new files are found by
    /// the next sync, which applies the ignore rules).
    fn refresh(&self, paths: Vec<PathBuf>) {
        let mut updater = lock(&self.updater);
        for path in paths {
            let Some((language, stamp)) = ({
                let files = lock(&self.files);
                files.get(&path).map(|f| (f.language, f.stamp))
            }) else {
                continue;
            };
            match Stamp::of(&path) {
                Some(now) if now == stamp => {}
                Some(_) => {
                    updater.watcher_updates += 1;
                    let file = Self::read_file(&mut updater.reader, &path, language);
                    let mut files = lock(&self.files);
                    match file {
                        Some(f) => files.insert(path, f),
                        None => files.remove(&path),
                    };
                }
                None => {
                    lock(&self.files).remove(&path);
                }
            }
        }
    }
}

impl CodebaseIndex {
    /// Starts indexing `workspace`: the build runs on a background thread, and a file watcher
    /// keeps the index fresh. Queries made before the build ends wait for it.
    pub fn start(workspace: Workspace) -> Arc<Self> {
        let shared = Arc::new(Shared {
            workspace,
            files: Mutex::new(HashMap::new()),
            updater: Mutex::new(Updater {
                reader: SymbolReader::new(),
                last_sync_parsed: 0,
                watcher_updates: 0,
            }),
        });
        let index = Arc::new(Self {
            shared: shared.clone(),
            watcher: Mutex::new(None),
        });
        // Whoever takes the update lock first builds: usually this thread, but a query that
        // arrives earlier builds the index itself, and the thread then finds nothing to do.
        let builder = shared.clone();
        let spawned = std::thread::Builder::new()
            .name("braid-index".into())
            .spawn(move || {
                let started = std::time::Instant::now();
                let parsed = builder.sync();
                tracing::info!(
                    root = %builder.workspace.root().display(),
                    files = parsed,
                    elapsed_ms = started.elapsed().as_millis() as u64,
                    "codebase index built"
                );
            });
        if let Err(e) = spawned {
            tracing::warn!(error = %e, "index thread could not start; the first query builds the index");
        }
        index.start_watching();
        index
    }

    /// Builds the index of `workspace` on the calling thread, without a watcher (for tools that
    /// need a one-off answer, and for benchmarks).
    pub fn build_now(workspace: Workspace) -> Self {
        let index = Self {
            shared: Arc::new(Shared {
                workspace,
                files: Mutex::new(HashMap::new()),
                updater: Mutex::new(Updater {
                    reader: SymbolReader::new(),
                    last_sync_parsed: 0,
                    watcher_updates: 0,
                }),
            }),
            watcher: Mutex::new(None),
        };
        index.shared.sync();
        index
    }

    fn start_watching(&self) {
        let shared = Arc::downgrade(&self.shared);
        let root = self.shared.workspace.root().to_path_buf();
        let handler_root = root.clone();
        let handler = move |event: notify::Result<notify::Event>| {
            let Ok(event) = event else { return };
            let Some(shared) = shared.upgrade() else {
                return;
            };
            let paths: Vec<PathBuf> = event
                .paths
                .into_iter()
                .filter(|p| SourceLanguage::of(p).is_some() && !is_excluded(&handler_root, p))
                .collect();
            if !paths.is_empty() {
                shared.refresh(paths);
            }
        };
        let mut watcher = match notify::recommended_watcher(handler) {
            Ok(w) => w,
            Err(e) => {
                tracing::warn!(root = %root.display(), error = %e, "file watcher unavailable; queries still sync");
                return;
            }
        };
        // Watch each directory the walk visits, not the root recursively: ignored trees such as
        // `target` or `node_modules` can hold more directories than the system allows watches.
        for entry in walker(&root).build().flatten() {
            if entry.file_type().is_some_and(|t| t.is_dir())
                && let Err(e) = watcher.watch(entry.path(), RecursiveMode::NonRecursive)
            {
                tracing::warn!(path = %entry.path().display(), error = %e, "directory not watched");
                break;
            }
        }
        *lock(&self.watcher) = Some(watcher);
    }

    /// The workspace this index covers.
    pub fn workspace(&self) -> &Workspace {
        &self.shared.workspace
    }

    /// Brings the index up to date with the disk (waiting for a running build or update), and
    /// returns how many files had to be parsed.
    pub fn sync(&self) -> usize {
        self.shared.sync()
    }

    /// Counters describing the index (without syncing).
    pub fn stats(&self) -> IndexStats {
        let (last_sync_parsed, watcher_updates) = {
            let updater = lock(&self.shared.updater);
            (updater.last_sync_parsed, updater.watcher_updates)
        };
        let files = lock(&self.shared.files);
        IndexStats {
            files: files.len(),
            definitions: files.values().map(|f| f.symbols.definitions.len()).sum(),
            last_sync_parsed,
            watching: lock(&self.watcher).is_some(),
            watcher_updates,
        }
    }

    /// Every definition of `name`, fresh, sorted by path and line.
    pub fn definitions(&self, name: &str) -> Vec<Located<Definition>> {
        self.sync();
        let files = lock(&self.shared.files);
        let mut found: Vec<Located<Definition>> = files
            .iter()
            .flat_map(|(path, file)| {
                file.symbols
                    .definitions
                    .iter()
                    .filter(|d| d.name == name)
                    .map(|d| Located {
                        path: self.shared.workspace.relative(path),
                        language: file.language,
                        item: d.clone(),
                    })
            })
            .collect();
        found.sort_by(|a, b| a.path.cmp(&b.path).then(a.item.line.cmp(&b.item.line)));
        found
    }

    /// Every use of `name` as an identifier, fresh, grouped by file (sorted by path).
    pub fn uses(&self, name: &str) -> Vec<FileUses> {
        self.sync();
        let files = lock(&self.shared.files);
        let mut found: Vec<FileUses> = files
            .iter()
            .filter_map(|(path, file)| {
                let positions = file.symbols.identifiers.get(name)?;
                Some(FileUses {
                    path: self.shared.workspace.relative(path),
                    positions: positions.clone(),
                    definition_lines: file
                        .symbols
                        .definitions
                        .iter()
                        .filter(|d| d.name == name)
                        .map(|d| d.line)
                        .collect(),
                })
            })
            .collect();
        found.sort_by(|a, b| a.path.cmp(&b.path));
        found
    }

    /// Names similar to `name` among the definitions (for "did you mean"), best first. Does not
    /// sync: it is called right after a query that did.
    pub fn similar_names(&self, name: &str, limit: usize) -> Vec<String> {
        let files = lock(&self.shared.files);
        let wanted = name.to_lowercase();
        let mut scored: Vec<(usize, String)> = Vec::new();
        let mut seen = HashSet::new();
        for def in files.values().flat_map(|f| f.symbols.definitions.iter()) {
            if !seen.insert(def.name.as_str()) {
                continue;
            }
            let candidate = def.name.to_lowercase();
            let distance = edit_distance(&wanted, &candidate);
            let close = distance <= (wanted.chars().count() / 3).max(2);
            let contains = candidate.contains(&wanted)
                || (candidate.len() >= 3 && wanted.contains(&candidate));
            if close || contains {
                scored.push((
                    if contains { distance.min(1) } else { distance },
                    def.name.clone(),
                ));
            }
        }
        scored.sort();
        scored.into_iter().take(limit).map(|(_, n)| n).collect()
    }
}

/// Levenshtein distance over characters.
fn edit_distance(a: &str, b: &str) -> usize {
    let a: Vec<char> = a.chars().collect();
    let b: Vec<char> = b.chars().collect();
    let mut prev: Vec<usize> = (0..=b.len()).collect();
    let mut cur = vec![0; b.len() + 1];
    for (i, ca) in a.iter().enumerate() {
        cur[0] = i + 1;
        for (j, cb) in b.iter().enumerate() {
            let cost = usize::from(ca != cb);
            cur[j + 1] = (prev[j] + cost).min(prev[j + 1] + 1).min(cur[j] + 1);
        }
        std::mem::swap(&mut prev, &mut cur);
    }
    prev[b.len()]
}

/// One index per workspace, shared by the codebase tools of every context.
#[derive(Default)]
pub struct CodebaseIndexes {
    indexes: Mutex<HashMap<PathBuf, Arc<CodebaseIndex>>>,
}

impl std::fmt::Debug for CodebaseIndexes {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("CodebaseIndexes")
            .field("workspaces", &lock(&self.indexes).len())
            .finish()
    }
}

impl CodebaseIndexes {
    /// The index of `workspace`, started on first use.
    pub fn index_for(&self, workspace: &Workspace) -> Arc<CodebaseIndex> {
        lock(&self.indexes)
            .entry(workspace.root().to_path_buf())
            .or_insert_with(|| CodebaseIndex::start(workspace.clone()))
            .clone()
    }

    /// The roots of the workspaces indexed now.
    pub fn roots(&self) -> Vec<PathBuf> {
        lock(&self.indexes).keys().cloned().collect()
    }

    /// Drops the index (and with it the file watcher) of every workspace not in `in_use`, once
    /// the queries running on it end. Answers how many were released.
    pub fn release_unused(&self, in_use: &std::collections::HashSet<PathBuf>) -> usize {
        let mut indexes = lock(&self.indexes);
        let before = indexes.len();
        indexes.retain(|root, _| in_use.contains(root));
        before - indexes.len()
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
mod tests {
    use super::*;

    #[test]
    fn edit_distance_counts_edits() {
        assert_eq!(edit_distance("kitten", "sitting"), 3);
        assert_eq!(edit_distance("", "ab"), 2);
        assert_eq!(edit_distance("same", "same"), 0);
    }

    #[test]
    fn index_sees_edits_made_just_before_a_query() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("a.rs"), "fn alpha() {}\n").unwrap();
        let index = CodebaseIndex::start(Workspace::new(dir.path()).unwrap());
        assert_eq!(index.definitions("alpha").len(), 1);
        std::fs::write(
            dir.path().join("a.rs"),
            "fn beta() {}\nfn gamma() { beta() }\n",
        )
        .unwrap();
        assert!(index.definitions("alpha").is_empty());
        assert_eq!(index.definitions("beta")[0].item.line, 1);
        std::fs::write(dir.path().join("b.rs"), "fn delta() { beta(); }\n").unwrap();
        let uses = index.uses("beta");
        assert_eq!(
            uses.iter().map(|u| u.path.as_str()).collect::<Vec<_>>(),
            ["a.rs", "b.rs"]
        );
        std::fs::remove_file(dir.path().join("b.rs")).unwrap();
        assert_eq!(index.uses("beta").len(), 1);
    }

    #[test]
    fn the_watcher_updates_the_index_in_the_background() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("a.rs"), "fn alpha() {}\n").unwrap();
        let index = CodebaseIndex::start(Workspace::new(dir.path()).unwrap());
        index.sync();
        assert!(index.stats().watching);
        // Written aside and renamed into place, so the watcher sees one complete change (a plain
        // write can be seen half-done, truncated, and then need a second read).
        std::fs::write(dir.path().join("a.tmp"), "fn alpha() {}\nfn omega() {}\n").unwrap();
        std::fs::rename(dir.path().join("a.tmp"), dir.path().join("a.rs")).unwrap();
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
        while index.stats().watcher_updates == 0 {
            assert!(
                std::time::Instant::now() < deadline,
                "the watcher never re-read a.rs"
            );
            std::thread::sleep(std::time::Duration::from_millis(20));
        }
        // The watcher already did the work: the query's sync finds nothing left to parse.
        assert_eq!(index.sync(), 0);
        assert_eq!(index.definitions("omega").len(), 1);
    }

    #[test]
    fn similar_names_are_suggested() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(
            dir.path().join("a.rs"),
            "fn parse_config() {}\nfn parse_args() {}\nfn unrelated() {}\n",
        )
        .unwrap();
        let index = CodebaseIndex::build_now(Workspace::new(dir.path()).unwrap());
        let names = index.similar_names("parse_confg", 5);
        assert_eq!(names.first().map(String::as_str), Some("parse_config"));
        assert!(!names.contains(&"unrelated".to_string()));
    }
}
