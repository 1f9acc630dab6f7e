//! What reading workflow definitions costs: the catalog is read from disk each time a context
//! lists, offers (every model request in act mode) or runs workflows, so its cost bounds what a
//! turn pays for them. Measured on 3 and 30 definition files, and the parsing of one.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::hint::black_box;
use std::path::Path;

use braid_context::workflow::{Catalog, definition::parse};
use criterion::{Criterion, criterion_group, criterion_main};

fn example(name: &str) -> String {
    std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../../examples/workflows")
            .join(format!("{name}.yaml")),
    )
    .unwrap()
}

fn folder_with(files: usize) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let texts = [
        example("review-changes"),
        example("test-and-summarize"),
        example("commit-message"),
    ];
    for i in 0..files {
        let text = texts[i % 3].replacen("name: ", &format!("name: w{i}-"), 1);
        std::fs::write(dir.path().join(format!("w{i}.yaml")), text).unwrap();
    }
    dir
}

fn workflows(c: &mut Criterion) {
    let mut group = c.benchmark_group("workflows");
    let review = example("review-changes");
    group.bench_function("parse_one_definition", |b| {
        b.iter(|| parse(black_box(&review)).unwrap())
    });
    for files in [3, 30] {
        let dir = folder_with(files);
        group.bench_function(format!("discover_{files}_files"), |b| {
            b.iter(|| {
                let catalog = Catalog::discover(None, Some(dir.path()));
                assert_eq!(catalog.definitions().count(), files);
                catalog
            })
        });
    }
    group.finish();
}

criterion_group!(benches, workflows);
criterion_main!(benches);
