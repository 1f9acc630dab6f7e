//! Codebase tools over the Braid repository itself and over a larger generated source tree:
//! `codebase_search`, `find_references` (which syncs the index first), the initial index build,
//! and the sync after one file changed.
#![allow(missing_docs, clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::hint::black_box;
use std::path::{Path, PathBuf};
use std::time::Duration;

use braid_tools::Workspace;
use braid_tools::codebase::{CodebaseIndex, SearchOptions, search_workspace};
use criterion::{Criterion, criterion_group, criterion_main};

fn braid_repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../..")
        .canonicalize()
        .unwrap()
}

/// `modules` Rust files of about 60 lines each, spread over 20 directories, calling each other.
fn generate_tree(root: &Path, modules: usize) {
    for i in 0..modules {
        let dir = root.join(format!("src/group{}", i % 20));
        std::fs::create_dir_all(&dir).unwrap();
        let mut text = format!("//! Module {i}.\n\nuse crate::shared::Helper;\n\n");
        for f in 0..8 {
            text.push_str(&format!(
                "/// Function {f} of module {i}.\npub fn module{i}_function{f}(input: &Helper) -> u64 {{\n    let value = input.compute({f});\n    shared_total(value) + {i}\n}}\n\n"
            ));
        }
        text.push_str(&format!(
            "pub struct Module{i}State {{\n    pub count: u64,\n}}\n"
        ));
        std::fs::write(dir.join(format!("module{i}.rs")), text).unwrap();
    }
    std::fs::write(
        root.join("src/shared.rs"),
        "pub struct Helper;\npub fn shared_total(v: u64) -> u64 { v }\n",
    )
    .unwrap();
}

fn bench_repo(c: &mut Criterion) {
    let ws = Workspace::new(braid_repo()).unwrap();
    let mut group = c.benchmark_group("braid_repo");
    group
        .sample_size(20)
        .measurement_time(Duration::from_secs(8));
    group.bench_function("codebase_search_literal", |b| {
        b.iter(|| black_box(search_workspace(&ws, "ToolError", &SearchOptions::default()).unwrap()))
    });
    let regex = SearchOptions {
        mode: braid_tools::codebase::search::QueryMode::Regex,
        ..SearchOptions::default()
    };
    group.bench_function("codebase_search_regex", |b| {
        b.iter(|| black_box(search_workspace(&ws, r"fn \w+_message\(", &regex).unwrap()))
    });
    group.bench_function("index_initial_build", |b| {
        b.iter(|| black_box(CodebaseIndex::build_now(ws.clone())))
    });
    let index = CodebaseIndex::build_now(ws.clone());
    eprintln!("braid repo index: {:?}", index.stats());
    group.bench_function("find_references_Workspace", |b| {
        b.iter(|| black_box(index.uses("Workspace")))
    });
    group.finish();
}

fn bench_generated(c: &mut Criterion) {
    let dir = tempfile::tempdir().unwrap();
    generate_tree(dir.path(), 2000);
    let ws = Workspace::new(dir.path()).unwrap();
    let mut group = c.benchmark_group("generated_2000_files");
    group
        .sample_size(10)
        .measurement_time(Duration::from_secs(15));
    group.bench_function("codebase_search_literal", |b| {
        b.iter(|| {
            black_box(search_workspace(&ws, "shared_total", &SearchOptions::default()).unwrap())
        })
    });
    group.bench_function("index_initial_build", |b| {
        b.iter(|| black_box(CodebaseIndex::build_now(ws.clone())))
    });
    let index = CodebaseIndex::build_now(ws.clone());
    eprintln!("generated index: {:?}", index.stats());
    group.bench_function("find_references_shared_total", |b| {
        b.iter(|| black_box(index.uses("shared_total")))
    });
    let target = dir.path().join("src/group7/module7.rs");
    let original = std::fs::read_to_string(&target).unwrap();
    let mut round = 0u64;
    group.bench_function("sync_after_one_file_changed", |b| {
        b.iter(|| {
            round += 1;
            // A different length each round, so the change is seen even within one mtime tick.
            let edited = format!("{original}pub fn added_{round}() {{}}\n");
            std::fs::write(&target, edited).unwrap();
            let parsed = index.sync();
            assert_eq!(parsed, 1);
        })
    });
    group.bench_function("sync_with_nothing_changed", |b| {
        b.iter(|| assert_eq!(index.sync(), 0))
    });
    group.finish();
}

criterion_group!(benches, bench_repo, bench_generated);
criterion_main!(benches);
