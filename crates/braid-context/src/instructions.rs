//! Workspace instructions (seed 001 "Workspace context injection"): the first of `AGENTS.md`,
//! `CLAUDE.md` and `.braid/instructions.md` found at the workspace root is added to the system
//! prompt, cut to [`MAX_INSTRUCTIONS_BYTES`], and reported in the context's summary.

use std::io::Read;

use braid_tools::Workspace;

/// The files read, in order of precedence, relative to the workspace root.
pub const INSTRUCTION_FILES: [&str; 3] = ["AGENTS.md", "CLAUDE.md", ".braid/instructions.md"];

/// The most of an instructions file that goes into the system prompt (about 2,000 tokens):
/// a small model's window must still hold the prompt, the tools and a turn.
pub const MAX_INSTRUCTIONS_BYTES: usize = 8 * 1024;

/// The instructions of a workspace as the system prompt carries them.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct WorkspaceInstructions {
    /// The file, relative to the workspace root.
    pub path: String,
    /// Its text, cut to [`MAX_INSTRUCTIONS_BYTES`] at a character boundary.
    pub text: String,
    /// The file's size in bytes.
    pub file_bytes: u64,
    /// Whether the text was cut.
    pub truncated: bool,
}

/// The first instructions file of `workspace` that exists and is readable text. A file that
/// resolves outside the workspace, is not a regular file or is not UTF-8 is skipped (and
/// logged), never an error: the conversation goes on without it.
pub fn read(workspace: &Workspace) -> Option<WorkspaceInstructions> {
    INSTRUCTION_FILES.iter().find_map(|name| {
        let real = workspace.resolve(name).ok()?;
        match read_capped(&real) {
            Ok(Some((text, file_bytes))) => Some(WorkspaceInstructions {
                path: (*name).to_owned(),
                truncated: file_bytes > text.len() as u64,
                text,
                file_bytes,
            }),
            Ok(None) => None,
            Err(error) => {
                tracing::warn!(file = %name, %error, "workspace instructions skipped");
                None
            }
        }
    })
}

/// The text of a regular file, at most [`MAX_INSTRUCTIONS_BYTES`] of it, with the file's size;
/// `None` for anything but a regular file.
fn read_capped(path: &std::path::Path) -> std::io::Result<Option<(String, u64)>> {
    let file = std::fs::File::open(path)?;
    let metadata = file.metadata()?;
    if !metadata.is_file() {
        return Ok(None);
    }
    let mut bytes = Vec::with_capacity(MAX_INSTRUCTIONS_BYTES.min(metadata.len() as usize));
    file.take(MAX_INSTRUCTIONS_BYTES as u64)
        .read_to_end(&mut bytes)?;
    let text = match String::from_utf8(bytes) {
        Ok(text) => text,
        // A cut inside a character: keep what decodes.
        Err(e) if e.utf8_error().error_len().is_none() => {
            let valid = e.utf8_error().valid_up_to();
            let mut bytes = e.into_bytes();
            bytes.truncate(valid);
            String::from_utf8(bytes).unwrap_or_default()
        }
        Err(_) => {
            return Err(std::io::Error::new(
                std::io::ErrorKind::InvalidData,
                "the file is not UTF-8 text",
            ));
        }
    };
    Ok(Some((text, metadata.len())))
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used)]
mod tests {
    use super::*;

    #[test]
    fn agents_md_comes_first_and_a_long_file_is_cut_at_a_character() {
        let dir = tempfile::tempdir().unwrap();
        let ws = Workspace::new(dir.path()).unwrap();
        assert_eq!(read(&ws), None);
        std::fs::create_dir_all(dir.path().join(".braid")).unwrap();
        std::fs::write(dir.path().join(".braid/instructions.md"), "Braid's own.").unwrap();
        assert_eq!(read(&ws).unwrap().path, ".braid/instructions.md");
        std::fs::write(dir.path().join("CLAUDE.md"), "Claude's.").unwrap();
        assert_eq!(read(&ws).unwrap().path, "CLAUDE.md");
        // Two-byte characters across the cap.
        let long = "é".repeat(MAX_INSTRUCTIONS_BYTES);
        std::fs::write(dir.path().join("AGENTS.md"), &long).unwrap();
        let found = read(&ws).unwrap();
        assert_eq!(found.path, "AGENTS.md");
        assert!(found.truncated);
        assert_eq!(found.file_bytes, long.len() as u64);
        assert_eq!(found.text.len(), MAX_INSTRUCTIONS_BYTES);
        assert!(found.text.chars().all(|c| c == 'é'));
    }

    #[test]
    fn a_file_that_is_not_text_or_leaves_the_workspace_is_skipped() {
        let dir = tempfile::tempdir().unwrap();
        let outside = tempfile::tempdir().unwrap();
        std::fs::write(outside.path().join("secret.md"), "secret").unwrap();
        let ws = Workspace::new(dir.path()).unwrap();
        #[cfg(unix)]
        std::os::unix::fs::symlink(
            outside.path().join("secret.md"),
            dir.path().join("AGENTS.md"),
        )
        .unwrap();
        std::fs::write(dir.path().join("CLAUDE.md"), [0xff, 0xfe, 0x00]).unwrap();
        std::fs::create_dir_all(dir.path().join(".braid/instructions.md")).unwrap();
        assert_eq!(read(&ws), None);
    }
}
