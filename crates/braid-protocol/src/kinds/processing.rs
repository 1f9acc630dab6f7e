//! `processing`: a visible note that Braid is working on something that takes a while (reading
//! many files, recognizing an image, summarizing history). Never sent to a model.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
#[cfg(test)]
use ts_rs::TS;

use crate::validate::{FieldPath, Problems, Validate};

/// Work in progress.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[cfg_attr(test, derive(TS))]
pub struct ProcessingMessage {
    /// What is being done, e.g. `Recognizing image`; [`DEFAULT_ACTIVITY`] when absent.
    #[serde(default = "default_activity")]
    pub activity: String,
    /// More detail, when useful.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(test, ts(optional))]
    pub detail: Option<String>,
    /// Progress so far, when countable.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(test, ts(optional))]
    pub progress: Option<Progress>,
}

/// The activity of a `processing` message that does not name one.
pub const DEFAULT_ACTIVITY: &str = "Working";

fn default_activity() -> String {
    DEFAULT_ACTIVITY.to_owned()
}

/// `done` of `total`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[cfg_attr(test, derive(TS))]
pub struct Progress {
    /// Items done.
    pub done: u32,
    /// Items in all.
    pub total: u32,
}

impl Validate for ProcessingMessage {
    fn validate_at(&self, path: &FieldPath, problems: &mut Problems) {
        problems.require_text(&self.activity, &path.field("activity"));
        if let Some(p) = self.progress {
            problems.check(
                p.done > p.total,
                &path.field("progress").field("done"),
                format!("must not exceed total ({}), got {}", p.total, p.done),
            );
        }
    }
}
