//! Reading file contents with bounds: [`read_file_excerpt`] (what `read_file` and file
//! references return) stops at a cap in lines and in bytes and cuts a very long line, saying
//! what it left out; [`read_to_limit`] reads a whole file only when it is small enough.
//! Memory stays bounded however large the file or its longest line.

use std::fs::File;
use std::io::{BufRead, BufReader, Read};
use std::path::Path;

use braid_protocol::LineRange;
use serde::Serialize;

use crate::workspace::{Workspace, WorkspaceError};

/// The default cap on the text a file read returns (256 KiB).
pub const DEFAULT_READ_CAP: usize = 256 * 1024;

/// The most lines one read returns; the note says where to read on.
pub const MAX_READ_LINES: u32 = 2000;

/// The longest line shown whole, in bytes; a longer line is cut and marked with its length.
pub const MAX_LINE_BYTES: usize = 4096;

/// How much of a file one read may return.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ReadLimits {
    /// Bytes of returned text (numbered lines).
    pub bytes: usize,
    /// Lines returned.
    pub lines: u32,
    /// Bytes of one line before it is cut.
    pub line_bytes: usize,
}

impl Default for ReadLimits {
    fn default() -> Self {
        Self {
            bytes: DEFAULT_READ_CAP,
            lines: MAX_READ_LINES,
            line_bytes: MAX_LINE_BYTES,
        }
    }
}

impl ReadLimits {
    /// The default limits with another byte cap.
    pub fn with_bytes(bytes: usize) -> Self {
        Self {
            bytes,
            ..Self::default()
        }
    }
}

/// Lines of a file, numbered, as `read_file` and file references return them.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct FileExcerpt {
    /// The path relative to the workspace.
    pub path: String,
    /// The lines, each prefixed by its 1-based number and a tab.
    pub content: String,
    /// The first line returned (1-based); 0 when the file is empty.
    pub start_line: u32,
    /// The last line returned (inclusive); 0 when nothing was returned.
    pub end_line: u32,
    /// How many lines the file has.
    pub total_lines: u32,
    /// The file's size in bytes.
    pub size_bytes: u64,
    /// How many of the returned lines were cut at [`ReadLimits::line_bytes`].
    #[serde(skip_serializing_if = "is_zero")]
    pub lines_cut: u32,
    /// What was left out and why (line or byte cap, cut lines), with where to read on.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub truncated: Option<String>,
}

fn is_zero(n: &u32) -> bool {
    *n == 0
}

/// Why an excerpt stops before the requested end.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Stop {
    Lines,
    Bytes,
}

/// Reads one line into `kept`, keeping at most `keep` bytes of it (without its line ending);
/// returns the line's whole length in bytes (without the ending), or `None` at the end of the
/// file.
fn read_line_bounded(
    reader: &mut impl BufRead,
    keep: usize,
    kept: &mut Vec<u8>,
) -> std::io::Result<Option<usize>> {
    kept.clear();
    let mut length = 0usize;
    let mut started = false;
    let mut last = None;
    loop {
        let available = reader.fill_buf()?;
        if available.is_empty() {
            return Ok(started.then_some(length));
        }
        started = true;
        let (piece, used, ended) = match available.iter().position(|b| *b == b'\n') {
            Some(at) => (&available[..at], at + 1, true),
            None => (available, available.len(), false),
        };
        let room = keep.saturating_sub(kept.len());
        kept.extend_from_slice(&piece[..piece.len().min(room)]);
        length += piece.len();
        if let Some(b) = piece.last() {
            last = Some(*b);
        }
        reader.consume(used);
        if ended {
            break;
        }
    }
    // A `\r\n` ending is a line ending, not text.
    if last == Some(b'\r') {
        length -= 1;
        kept.truncate(length);
    }
    Ok(Some(length))
}

/// The text of a line's kept bytes, not ending inside a UTF-8 character that was cut.
fn line_text(kept: &[u8], cut: bool) -> String {
    let whole = match std::str::from_utf8(kept) {
        Err(e) if cut && e.error_len().is_none() => &kept[..e.valid_up_to()],
        _ => kept,
    };
    String::from_utf8_lossy(whole).into_owned()
}

/// Reads `path` (or the 1-indexed, inclusive `range` of it) from the workspace, numbering the
/// lines. It stops at `limits.lines` lines or about `limits.bytes` bytes of content and cuts a
/// line longer than `limits.line_bytes`, with a note saying what was left out and how to read on.
pub fn read_file_excerpt(
    workspace: &Workspace,
    path: &str,
    range: Option<LineRange>,
    limits: ReadLimits,
) -> Result<FileExcerpt, WorkspaceError> {
    if let Some(r) = range
        && (r.start_line == 0 || r.end_line < r.start_line)
    {
        return Err(WorkspaceError::BadRange {
            path: path.to_owned(),
            reason: format!(
                "invalid line range {}-{}: lines are numbered from 1 and the end must not be before the start",
                r.start_line, r.end_line
            ),
        });
    }
    let real = workspace.resolve(path)?;
    let io = |source| WorkspaceError::Io {
        path: path.to_owned(),
        source,
    };
    let meta = std::fs::metadata(&real).map_err(io)?;
    if meta.is_dir() {
        return Err(WorkspaceError::WrongKind {
            path: path.to_owned(),
            problem: "is a directory (use list_directory)",
        });
    }
    let mut reader = BufReader::new(File::open(&real).map_err(io)?);
    if reader
        .fill_buf()
        .map_err(io)?
        .iter()
        .take(8192)
        .any(|b| *b == 0)
    {
        return Err(WorkspaceError::WrongKind {
            path: path.to_owned(),
            problem: "is a binary file and cannot be shown as text",
        });
    }
    let (first, last) = range.map_or((1, u32::MAX), |r| (r.start_line, r.end_line));
    let mut content = String::new();
    let mut total = 0u32;
    let mut returned = 0u32;
    let mut returned_end = 0u32;
    let mut lines_cut = 0u32;
    let mut stop: Option<(Stop, u32)> = None;
    let mut kept = Vec::new();
    loop {
        let wanted = total.saturating_add(1) >= first && total < last && stop.is_none();
        // Lines that are not returned are only counted: nothing of them is kept.
        let keep = if wanted { limits.line_bytes } else { 0 };
        let Some(length) = read_line_bounded(&mut reader, keep, &mut kept).map_err(io)? else {
            break;
        };
        total = total.saturating_add(1);
        if !wanted {
            continue;
        }
        if returned >= limits.lines {
            stop = Some((Stop::Lines, total));
            continue;
        }
        let cut = length > kept.len();
        let mut entry = format!("{total:>6}\t{}", line_text(&kept, cut));
        if cut {
            entry.push_str(&format!(" [... line cut: {length} bytes in all]"));
        }
        entry.push('\n');
        if content.len() + entry.len() > limits.bytes && returned > 0 {
            stop = Some((Stop::Bytes, total));
            continue;
        }
        content.push_str(&entry);
        returned += 1;
        returned_end = total;
        if cut {
            lines_cut += 1;
        }
    }
    if let Some(r) = range
        && r.start_line > total.max(1)
    {
        return Err(WorkspaceError::BadRange {
            path: path.to_owned(),
            reason: format!(
                "line {} is past the end of the file ({total} lines)",
                r.start_line
            ),
        });
    }
    let requested_end = last.min(total);
    let mut notes = Vec::new();
    if let Some((why, next)) = stop {
        let cap = match why {
            Stop::Lines => format!("at most {} lines are returned per read", limits.lines),
            Stop::Bytes => format!("the output is capped at {} bytes", limits.bytes),
        };
        notes.push(format!(
            "truncated: {cap}; showing lines {first}-{returned_end} of {requested_end}, read on with start_line={next}"
        ));
    }
    if lines_cut > 0 {
        notes.push(format!(
            "{lines_cut} line(s) longer than {} bytes were cut (marked `[... line cut: N bytes in all]`)",
            limits.line_bytes
        ));
    }
    Ok(FileExcerpt {
        path: workspace.relative(&real),
        content,
        start_line: if returned_end == 0 { 0 } else { first },
        end_line: returned_end,
        total_lines: total,
        size_bytes: meta.len(),
        lines_cut,
        truncated: (!notes.is_empty()).then(|| notes.join("; ")),
    })
}

/// Reads the whole file at `path` when it has at most `limit` bytes; a larger file is an
/// error of kind `FileTooLarge` that names the limit (nothing beyond `limit` is read).
pub fn read_to_limit(path: &Path, limit: u64) -> std::io::Result<Vec<u8>> {
    let mut bytes = Vec::new();
    File::open(path)?
        .take(limit.saturating_add(1))
        .read_to_end(&mut bytes)?;
    if bytes.len() as u64 > limit {
        return Err(std::io::Error::new(
            std::io::ErrorKind::FileTooLarge,
            format!("the file is larger than the limit of {limit} bytes"),
        ));
    }
    Ok(bytes)
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
mod tests {
    use super::*;

    fn ws() -> (tempfile::TempDir, Workspace) {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir(dir.path().join("src")).unwrap();
        std::fs::write(dir.path().join("src/a.txt"), "one\ntwo\nthree\nfour\n").unwrap();
        let ws = Workspace::new(dir.path()).unwrap();
        (dir, ws)
    }

    #[test]
    fn excerpt_numbers_lines_and_reports_totals() {
        let (_d, ws) = ws();
        let ex = read_file_excerpt(
            &ws,
            "src/a.txt",
            Some(LineRange {
                start_line: 2,
                end_line: 3,
            }),
            ReadLimits::default(),
        )
        .unwrap();
        assert_eq!(ex.content, "     2\ttwo\n     3\tthree\n");
        assert_eq!(
            (ex.start_line, ex.end_line, ex.total_lines, ex.size_bytes),
            (2, 3, 4, 19)
        );
        assert!(ex.truncated.is_none());
    }

    #[test]
    fn excerpt_over_the_cap_is_truncated_with_a_note() {
        let (_d, ws) = ws();
        let ex = read_file_excerpt(&ws, "src/a.txt", None, ReadLimits::with_bytes(25)).unwrap();
        assert_eq!(ex.end_line, 2);
        let note = ex.truncated.unwrap();
        assert!(note.contains("start_line=3"), "{note}");
        assert!(note.contains("capped at 25 bytes"), "{note}");
    }

    #[test]
    fn range_past_the_end_is_an_error() {
        let (_d, ws) = ws();
        let err = read_file_excerpt(
            &ws,
            "src/a.txt",
            Some(LineRange {
                start_line: 9,
                end_line: 9,
            }),
            ReadLimits::default(),
        )
        .unwrap_err();
        assert!(err.to_string().contains("past the end"), "{err}");
    }

    #[test]
    fn a_read_stops_at_the_line_cap_and_says_where_to_go_on() {
        let (d, ws) = ws();
        let text: String = (1..=50_000).map(|i| format!("{i}\n")).collect();
        std::fs::write(d.path().join("big.txt"), text).unwrap();
        let ex = read_file_excerpt(&ws, "big.txt", None, ReadLimits::default()).unwrap();
        assert_eq!(
            (ex.start_line, ex.end_line, ex.total_lines),
            (1, 2000, 50_000)
        );
        let note = ex.truncated.unwrap();
        assert!(
            note.contains("at most 2000 lines")
                && note.contains("showing lines 1-2000 of 50000")
                && note.contains("start_line=2001"),
            "{note}"
        );
        // Reading on from there gives the next lines.
        let next = read_file_excerpt(
            &ws,
            "big.txt",
            Some(LineRange {
                start_line: 2001,
                end_line: u32::MAX,
            }),
            ReadLimits::default(),
        )
        .unwrap();
        assert!(
            next.content.starts_with("  2001\t2001\n"),
            "{}",
            &next.content[..20]
        );
        assert_eq!(next.end_line, 4000);
    }

    #[test]
    fn a_very_long_line_is_cut_and_marked() {
        let (d, ws) = ws();
        // 3 MiB on one line, between two short ones; `é` is two bytes, so the cut falls inside
        // a character unless it is kept whole.
        let long = "é".repeat(3 * 512 * 1024);
        std::fs::write(d.path().join("min.js"), format!("a\n{long}\r\nz\n")).unwrap();
        let limits = ReadLimits {
            line_bytes: 101,
            ..ReadLimits::default()
        };
        let ex = read_file_excerpt(&ws, "min.js", None, limits).unwrap();
        assert_eq!((ex.end_line, ex.total_lines, ex.lines_cut), (3, 3, 1));
        let lines: Vec<&str> = ex.content.lines().collect();
        assert_eq!(lines[0], "     1\ta");
        assert_eq!(
            lines[1],
            format!(
                "     2\t{} [... line cut: {} bytes in all]",
                "é".repeat(50),
                long.len()
            )
        );
        assert_eq!(lines[2], "     3\tz");
        let note = ex.truncated.unwrap();
        assert!(
            note.contains("1 line(s) longer than 101 bytes were cut"),
            "{note}"
        );
        // With the default limits the line is cut at MAX_LINE_BYTES.
        let ex = read_file_excerpt(&ws, "min.js", None, ReadLimits::default()).unwrap();
        assert!(
            ex.content.len() < MAX_LINE_BYTES + 100,
            "{}",
            ex.content.len()
        );
    }

    #[test]
    fn crlf_line_endings_are_not_shown() {
        let (d, ws) = ws();
        std::fs::write(d.path().join("w.txt"), "a\r\nb\r\n").unwrap();
        let ex = read_file_excerpt(&ws, "w.txt", None, ReadLimits::default()).unwrap();
        assert_eq!(ex.content, "     1\ta\n     2\tb\n");
        assert_eq!(ex.lines_cut, 0);
    }

    #[test]
    fn whole_file_reads_refuse_files_over_the_limit() {
        let (d, _ws) = ws();
        let path = d.path().join("src/a.txt");
        assert_eq!(read_to_limit(&path, 19).unwrap().len(), 19);
        let err = read_to_limit(&path, 18).unwrap_err();
        assert_eq!(err.kind(), std::io::ErrorKind::FileTooLarge);
        assert!(err.to_string().contains("limit of 18 bytes"), "{err}");
    }
}
