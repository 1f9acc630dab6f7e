//! `braid-load --server-process`: a small load against a real `braid serve` child process, whose
//! own CPU is reported per turn and per chunk beside the load tool's.

use std::path::{Path, PathBuf};
use std::process::Command;

/// The `braid` binary of the profile braid-load was built with, built now if need be (cargo
/// builds only the binaries of the package under test before running its tests).
///
/// It is built as `cargo test --workspace --all-targets` builds (what `make test` runs), so under
/// it nothing compiles again: `-p braid-server` alone resolves dependencies' features for that
/// package, and compiled 27 crates a second time (50 s on a new 2-core machine).
fn braid_beside(load: &Path) -> PathBuf {
    let profile_dir = load.parent().unwrap();
    let target_dir = profile_dir.parent().unwrap();
    let profile = match profile_dir.file_name().unwrap().to_str().unwrap() {
        "debug" => "dev",
        other => other,
    };
    let status = Command::new(env!("CARGO"))
        .args(["build", "--locked", "--workspace", "--all-targets"])
        .args(["--profile", profile])
        .env("CARGO_TARGET_DIR", target_dir)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .status()
        .unwrap();
    assert!(status.success(), "cargo build of braid: {status}");
    profile_dir.join(format!("braid{}", std::env::consts::EXE_SUFFIX))
}

/// The number before `unit` in `text`, after `after`.
fn figure(text: &str, after: &str, unit: &str) -> f64 {
    let rest = &text[text
        .find(after)
        .unwrap_or_else(|| panic!("no `{after}` in {text}"))
        + after.len()..];
    let value = &rest[..rest
        .find(unit)
        .unwrap_or_else(|| panic!("no `{unit}` in {rest}"))];
    let number = value.rsplit(' ').find(|w| !w.is_empty()).unwrap();
    number
        .parse()
        .unwrap_or_else(|_| panic!("`{number}` is not a number in {text}"))
}

#[test]
fn a_spawned_server_reports_its_own_cpu_per_turn_and_per_chunk() {
    let load = PathBuf::from(env!("CARGO_BIN_EXE_braid-load"));
    let braid = braid_beside(&load);
    let output = Command::new(&load)
        .args(["--server-process", "--contexts", "8", "--chunks", "10"])
        .args(["--chunk-delay-ms", "5", "--timeout-secs", "120"])
        .arg("--braid-bin")
        .arg(&braid)
        .env_remove("RUST_LOG")
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "{stdout}\n{stderr}");
    let braid_line = stdout
        .lines()
        .find(|l| l.trim_start().starts_with("braid:"))
        .unwrap_or_else(|| panic!("no braid line in {stdout}"));
    assert!(braid_line.contains(" 80 chunks in "), "{braid_line}");
    let per_turn = figure(braid_line, "braid serve's own CPU", " ms per turn");
    let per_chunk = figure(braid_line, "ms per turn,", " µs per chunk");
    assert!(per_turn > 0.0, "{braid_line}");
    // 10 chunks a turn: the per-chunk figure is the same CPU over ten times the count.
    assert!(
        (per_chunk - per_turn * 100.0).abs() <= per_turn * 100.0 * 0.05 + 1.0,
        "{braid_line}"
    );
    assert!(
        braid_line.contains("braid-load's CPU (mock and client)"),
        "{braid_line}"
    );
    // The direct phase has no server and says nothing of one.
    let direct_line = stdout
        .lines()
        .find(|l| l.trim_start().starts_with("direct:"))
        .unwrap();
    assert!(!direct_line.contains("braid serve"), "{direct_line}");
}
