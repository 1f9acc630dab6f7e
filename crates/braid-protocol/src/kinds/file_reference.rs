//! `file_reference`: a file (or some of its lines) that a person pointed at.

use chrono::{DateTime, Utc};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
#[cfg(test)]
use ts_rs::TS;

use super::common::LineRange;
use crate::validate::{FieldPath, Problems, Validate, check_file_path};

/// A reference to a file, resolved into its content before the model sees it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[cfg_attr(test, derive(TS))]
pub struct FileReferenceMessage {
    /// The path as the person gave it: relative to the workspace, or absolute inside it.
    pub path: String,
    /// The lines wanted; the whole file when absent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(test, ts(optional))]
    pub range: Option<LineRange>,
    /// How the UI shows the reference (e.g. `@src/lib.rs:10-20`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(test, ts(optional))]
    pub display_text: Option<String>,
    /// Whether the content has been read yet, and what was read.
    #[serde(default)]
    pub resolution: FileResolution,
}

/// The state of a file reference's content.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[cfg_attr(test, derive(TS))]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum FileResolution {
    /// Not read yet.
    #[default]
    Pending,
    /// Read: `content` holds the lines, each prefixed with its number.
    Resolved {
        /// The content, marked with 1-indexed line numbers.
        content: String,
        /// How many lines the whole file has.
        total_lines: u32,
        /// Bytes of the file on disk.
        size_bytes: u64,
        /// When it was read.
        #[serde(default)]
        resolved_at: DateTime<Utc>,
    },
    /// Could not be read: missing, outside the workspace, not permitted, or a bad range.
    Failed {
        /// Why.
        error: String,
    },
}

impl Validate for FileReferenceMessage {
    fn validate_at(&self, path: &FieldPath, problems: &mut Problems) {
        check_file_path(&self.path, &path.field("path"), problems);
        if let Some(range) = &self.range {
            range.validate_at(&path.field("range"), problems);
        }
        if let FileResolution::Failed { error } = &self.resolution {
            problems.require_text(error, &path.field("resolution").field("error"));
        }
    }
}
