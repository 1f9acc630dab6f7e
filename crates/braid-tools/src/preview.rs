//! What a file-changing call (`write_file`, `create_file`, `replace_in_file`, `delete_file`)
//! would do to the file as it is on disk now, for the approval card's diff: the person sees
//! every line an overwrite removes, and a replacement at the file's real line numbers.
//!
//! Nothing is written: the file is only read, through the same [`Workspace`] confinement the
//! tools use.

use braid_protocol::api::{FileChange, FileChangePreview};
use serde_json::Value;

use crate::arguments::parse_arguments;
use crate::excerpt::read_to_limit;
use crate::files::{DeleteFileArgs, ReplaceInFileArgs, WriteFileArgs};
use crate::tool::{ToolError, ToolErrorCode};
use crate::workspace::Workspace;

/// The largest file (and the largest new content) a preview shows; a larger one is described
/// in words, so a preview never carries megabytes to the browser.
pub const MAX_PREVIEW_BYTES: u64 = 1024 * 1024;

/// The tools a preview is for: the ones that change a file.
pub const PREVIEWED_TOOLS: [&str; 4] = [
    "write_file",
    "create_file",
    "replace_in_file",
    "delete_file",
];

/// The file as it is now, as far as a preview needs it.
enum Current {
    Missing,
    Directory,
    Text(String),
    Unshowable(String),
}

fn current(ws: &Workspace, shown: &str) -> Result<(String, Current), ToolError> {
    let real = ws.resolve_new(shown)?;
    let relative = ws.relative(&real);
    let now = match std::fs::metadata(&real) {
        Err(_) => Current::Missing,
        Ok(meta) if meta.is_dir() => Current::Directory,
        Ok(_) => match read_to_limit(&real, MAX_PREVIEW_BYTES) {
            Ok(bytes) => match String::from_utf8(bytes) {
                Ok(text) => Current::Text(text),
                Err(_) => Current::Unshowable(format!("`{shown}` is not UTF-8 text")),
            },
            Err(e) if e.kind() == std::io::ErrorKind::FileTooLarge => Current::Unshowable(format!(
                "`{shown}` is larger than {} KiB, too large to preview",
                MAX_PREVIEW_BYTES / 1024
            )),
            Err(e) => Current::Unshowable(format!("`{shown}` cannot be read: {e}")),
        },
    };
    Ok((relative, now))
}

/// Lines of a text, a final line ending not starting another one (as editors count them).
fn line_count(text: &str) -> u32 {
    let lines = text.lines().count();
    u32::try_from(lines).unwrap_or(u32::MAX)
}

fn unshowable(path: String, reason: impl Into<String>) -> FileChangePreview {
    FileChangePreview {
        path,
        change: FileChange::Unshowable {
            reason: reason.into(),
        },
    }
}

fn too_large_content(path: String) -> FileChangePreview {
    unshowable(
        path,
        format!(
            "the new content is larger than {} KiB, too large to preview",
            MAX_PREVIEW_BYTES / 1024
        ),
    )
}

/// The preview of `tool` called with `arguments` in `ws`. Fails (`invalid_arguments`) for a tool
/// that changes no file or arguments the tool would refuse, and (`permission_denied`) for a path
/// outside the workspace; a call that would fail on the file as it is now (the text to replace
/// is missing) answers [`FileChange::Unshowable`] saying why.
pub fn preview_file_change(
    ws: &Workspace,
    tool: &str,
    arguments: Value,
) -> Result<FileChangePreview, ToolError> {
    match tool {
        "write_file" | "create_file" => {
            let args: WriteFileArgs = parse_arguments(tool, arguments)?;
            let (path, now) = current(ws, &args.path)?;
            if args.content.len() as u64 > MAX_PREVIEW_BYTES {
                return Ok(too_large_content(path));
            }
            let change = match now {
                Current::Missing => FileChange::Creates {
                    after: args.content,
                },
                Current::Directory => {
                    return Ok(unshowable(path, format!("`{}` is a directory", args.path)));
                }
                _ if tool == "create_file" => {
                    return Ok(unshowable(
                        path,
                        format!("`{}` already exists: create_file will fail", args.path),
                    ));
                }
                Current::Text(before) => FileChange::Overwrites {
                    before_lines: line_count(&before),
                    before,
                    after: args.content,
                },
                Current::Unshowable(reason) => FileChange::Unshowable { reason },
            };
            Ok(FileChangePreview { path, change })
        }
        "replace_in_file" => {
            let args: ReplaceInFileArgs = parse_arguments(tool, arguments)?;
            let (path, now) = current(ws, &args.path)?;
            let before = match now {
                Current::Text(text) => text,
                Current::Missing => {
                    return Ok(unshowable(
                        path,
                        format!("`{}` does not exist: the call will fail", args.path),
                    ));
                }
                Current::Directory => {
                    return Ok(unshowable(path, format!("`{}` is a directory", args.path)));
                }
                Current::Unshowable(reason) => return Ok(unshowable(path, reason)),
            };
            if args.old_text.is_empty() {
                return Ok(unshowable(path, "old_text is empty: the call will fail"));
            }
            let mut found = before.match_indices(&args.old_text).map(|(at, _)| at);
            let (Some(at), None) = (found.next(), found.next()) else {
                let count = before.matches(&args.old_text).count();
                let reason = if count == 0 {
                    format!(
                        "the text to replace is not in `{}`: the call will fail",
                        args.path
                    )
                } else {
                    format!(
                        "the text to replace occurs {count} times in `{}`: the call will fail",
                        args.path
                    )
                };
                return Ok(unshowable(path, reason));
            };
            let after_len = before.len() - args.old_text.len() + args.new_text.len();
            if after_len as u64 > MAX_PREVIEW_BYTES {
                return Ok(too_large_content(path));
            }
            let at_line = line_count(&before[..at])
                .saturating_add(u32::from(at == 0 || before[..at].ends_with('\n')));
            let mut after = String::with_capacity(after_len);
            after.push_str(&before[..at]);
            after.push_str(&args.new_text);
            after.push_str(&before[at + args.old_text.len()..]);
            Ok(FileChangePreview {
                path,
                change: FileChange::Replaces {
                    before,
                    after,
                    at_line,
                },
            })
        }
        "delete_file" => {
            let args: DeleteFileArgs = parse_arguments(tool, arguments)?;
            let (path, now) = current(ws, &args.path)?;
            let change = match now {
                Current::Text(before) => FileChange::Deletes {
                    before_lines: line_count(&before),
                    before,
                },
                Current::Missing => FileChange::Unshowable {
                    reason: format!("`{}` does not exist: the call will fail", args.path),
                },
                Current::Directory => FileChange::Unshowable {
                    reason: format!("`{}` is a directory: delete_file will refuse it", args.path),
                },
                Current::Unshowable(reason) => FileChange::Unshowable { reason },
            };
            Ok(FileChangePreview { path, change })
        }
        other => Err(ToolError::new(
            ToolErrorCode::InvalidArguments,
            format!(
                "`{other}` changes no file; a preview is for write_file, create_file, replace_in_file and delete_file"
            ),
        )),
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
mod tests {
    use super::*;
    use serde_json::json;

    fn ws() -> (tempfile::TempDir, Workspace) {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir(dir.path().join("src")).unwrap();
        std::fs::write(dir.path().join("src/a.txt"), "one\ntwo\nthree\nfour\n").unwrap();
        let ws = Workspace::new(dir.path()).unwrap();
        (dir, ws)
    }

    #[test]
    fn an_overwrite_carries_the_whole_file_as_it_is_now_and_its_line_count() {
        let (_dir, ws) = ws();
        let preview = preview_file_change(
            &ws,
            "write_file",
            json!({"path": "src/a.txt", "content": "one\n"}),
        )
        .unwrap();
        assert_eq!(preview.path, "src/a.txt");
        assert_eq!(
            preview.change,
            FileChange::Overwrites {
                before: "one\ntwo\nthree\nfour\n".into(),
                after: "one\n".into(),
                before_lines: 4
            }
        );
    }

    #[test]
    fn a_write_to_a_missing_file_is_a_creation() {
        let (_dir, ws) = ws();
        let preview = preview_file_change(
            &ws,
            "write_file",
            json!({"path": "new/b.rs", "content": "x"}),
        )
        .unwrap();
        assert_eq!(preview.change, FileChange::Creates { after: "x".into() });
    }

    #[test]
    fn create_file_over_an_existing_file_says_it_will_fail() {
        let (_dir, ws) = ws();
        let preview = preview_file_change(
            &ws,
            "create_file",
            json!({"path": "src/a.txt", "content": "x"}),
        )
        .unwrap();
        let FileChange::Unshowable { reason } = preview.change else {
            panic!("expected unshowable, got {:?}", preview.change);
        };
        assert!(reason.contains("already exists"), "{reason}");
    }

    #[test]
    fn a_replacement_gives_the_line_where_the_old_text_starts_and_the_whole_file_after() {
        let (_dir, ws) = ws();
        let preview = preview_file_change(
            &ws,
            "replace_in_file",
            json!({"path": "src/a.txt", "old_text": "three\n", "new_text": "3\n"}),
        )
        .unwrap();
        assert_eq!(
            preview.change,
            FileChange::Replaces {
                before: "one\ntwo\nthree\nfour\n".into(),
                after: "one\ntwo\n3\nfour\n".into(),
                at_line: 3
            }
        );
        let mid_line = preview_file_change(
            &ws,
            "replace_in_file",
            json!({"path": "src/a.txt", "old_text": "ne\ntw", "new_text": "NE\nTW"}),
        )
        .unwrap();
        let FileChange::Replaces { at_line, .. } = mid_line.change else {
            panic!("expected a replacement, got {:?}", mid_line.change);
        };
        assert_eq!(at_line, 1);
    }

    #[test]
    fn a_replacement_whose_text_is_missing_or_repeated_says_the_call_will_fail() {
        let (_dir, ws) = ws();
        for (old, expected) in [("five", "not in"), ("o", "occurs")] {
            let preview = preview_file_change(
                &ws,
                "replace_in_file",
                json!({"path": "src/a.txt", "old_text": old, "new_text": "x"}),
            )
            .unwrap();
            let FileChange::Unshowable { reason } = preview.change else {
                panic!("expected unshowable, got {:?}", preview.change);
            };
            assert!(reason.contains(expected), "{reason}");
        }
    }

    #[test]
    fn a_deletion_carries_the_file_it_removes() {
        let (_dir, ws) = ws();
        let preview =
            preview_file_change(&ws, "delete_file", json!({"path": "src/a.txt"})).unwrap();
        assert_eq!(
            preview.change,
            FileChange::Deletes {
                before: "one\ntwo\nthree\nfour\n".into(),
                before_lines: 4
            }
        );
    }

    #[test]
    fn a_file_above_the_limit_or_not_text_is_described_not_sent() {
        let (dir, ws) = ws();
        std::fs::write(
            dir.path().join("big.txt"),
            vec![b'a'; MAX_PREVIEW_BYTES as usize + 1],
        )
        .unwrap();
        std::fs::write(dir.path().join("bin.dat"), [0xff, 0xfe, 0x00]).unwrap();
        for (path, expected) in [("big.txt", "too large"), ("bin.dat", "not UTF-8")] {
            let preview =
                preview_file_change(&ws, "write_file", json!({"path": path, "content": "x"}))
                    .unwrap();
            let FileChange::Unshowable { reason } = preview.change else {
                panic!("expected unshowable, got {:?}", preview.change);
            };
            assert!(reason.contains(expected), "{reason}");
        }
    }

    #[test]
    fn a_path_outside_the_workspace_or_a_tool_that_writes_nothing_is_refused() {
        let (_dir, ws) = ws();
        let outside =
            preview_file_change(&ws, "write_file", json!({"path": "../x", "content": "x"}))
                .unwrap_err();
        assert_eq!(outside.code, ToolErrorCode::PermissionDenied);
        let reader =
            preview_file_change(&ws, "read_file", json!({"path": "src/a.txt"})).unwrap_err();
        assert_eq!(reader.code, ToolErrorCode::InvalidArguments);
        let bad = preview_file_change(&ws, "write_file", json!({"path": 3})).unwrap_err();
        assert_eq!(bad.code, ToolErrorCode::InvalidArguments);
    }
}
