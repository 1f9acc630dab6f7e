//! OCR speed: Tesseract (the real program, as Braid runs it) reading a 1,000 x 600 PNG that
//! looks like a screenshot of build output.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod pictures;

use braid_vision::{OcrSettings, read_text};
use criterion::{Criterion, criterion_group, criterion_main};

const LINES: &[&str] = &[
    "Compiling braid-parser v0.4.2 (/work/braid/parser)",
    "warning: unused variable: `token`",
    "error[E0425]: cannot find value `cursor` in this scope",
    "  --> src/parser.rs:118:17",
    "Finished dev profile in 4.21s",
    "Running tests/parse.rs (target/debug/deps/parse)",
    "test parses_nested_lists ... ok",
    "test rejects_unclosed_brackets ... ok",
    "test reports_line_numbers ... FAILED",
    "failures: reports_line_numbers",
    "test result: FAILED. 41 passed; 1 failed",
    "error: test failed, to rerun pass --test parse",
];

fn ocr(c: &mut Criterion) {
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let png = pictures::screenshot_png(LINES);
    let settings = OcrSettings::default();
    // The bench measures what it claims only if Tesseract reads the picture.
    let read = rt
        .block_on(read_text(&settings, png.clone()))
        .expect("Tesseract reads the screenshot");
    assert!(read.text.contains("41 passed"), "{}", read.text);
    let mut group = c.benchmark_group("ocr");
    group.sample_size(10);
    group.bench_function("tesseract_screenshot_1000x600", |b| {
        b.iter(|| rt.block_on(read_text(&settings, png.clone())).unwrap())
    });
    group.finish();
}

criterion_group!(benches, ocr);
criterion_main!(benches);
