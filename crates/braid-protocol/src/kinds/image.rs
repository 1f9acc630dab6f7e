//! `image`: a picture to be seen by a vision model or read by OCR.

use chrono::{DateTime, Utc};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
#[cfg(test)]
use ts_rs::TS;

use super::common::ErrorDetail;
use crate::validate::{FieldPath, Problems, Validate, check_file_path};

/// An image and what was recognized in it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[cfg_attr(test, derive(TS))]
pub struct ImageMessage {
    /// Where the image is.
    pub source: ImageSource,
    /// How it should be recognized.
    #[serde(default)]
    pub recognition_mode: RecognitionMode,
    /// Text the person sent with the image.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(test, ts(optional))]
    pub caption: Option<String>,
    /// What recognition produced, once it ran.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(test, ts(optional))]
    pub recognition: Option<RecognitionResult>,
    /// Why recognition failed, when it did.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(test, ts(optional))]
    pub error: Option<ErrorDetail>,
    /// The image as a vision model is sent it, when that differs from `source`: loaded from a
    /// file or URL, or sized down to the provider's limits.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(test, ts(optional))]
    pub prepared: Option<PreparedImage>,
}

impl ImageMessage {
    /// A new, not yet recognized image.
    pub fn new(source: ImageSource, recognition_mode: RecognitionMode) -> Self {
        Self {
            source,
            recognition_mode,
            caption: None,
            recognition: None,
            error: None,
            prepared: None,
        }
    }
}

/// An image ready for a vision model: inline bytes within the provider's limits.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[cfg_attr(test, derive(TS))]
pub struct PreparedImage {
    /// MIME type (`image/png`, `image/jpeg`, `image/gif` or `image/webp`).
    pub media_type: String,
    /// Base64 (standard alphabet) of the bytes.
    pub data: String,
    /// Width in pixels.
    pub width: u32,
    /// Height in pixels.
    pub height: u32,
    /// Whether it was sized down from the original.
    #[serde(default)]
    pub resized: bool,
}

/// Where an image's bytes come from.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[cfg_attr(test, derive(TS))]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum ImageSource {
    /// An `http(s)` or `data:` URL.
    Url {
        /// The URL.
        url: String,
    },
    /// The bytes, base64-encoded.
    Base64 {
        /// MIME type, e.g. `image/png`.
        media_type: String,
        /// Base64 (standard alphabet) of the bytes.
        data: String,
    },
    /// A file in the workspace.
    FilePath {
        /// Workspace-relative (or absolute, inside the workspace) path.
        path: String,
    },
}

/// How an image is to be recognized.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[cfg_attr(test, derive(TS))]
#[serde(rename_all = "snake_case")]
pub enum RecognitionMode {
    /// Send the image to a vision-capable model.
    Vision,
    /// Extract its text with an OCR engine (Tesseract).
    Ocr,
    /// Vision when the model has it, falling back to OCR.
    #[default]
    Auto,
}

/// The recognition method that actually ran.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[cfg_attr(test, derive(TS))]
#[serde(rename_all = "snake_case")]
pub enum RecognitionMethod {
    /// A vision model looked at it.
    Vision,
    /// OCR read it.
    Ocr,
}

/// What recognition found.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[cfg_attr(test, derive(TS))]
pub struct RecognitionResult {
    /// Which method produced this result.
    pub method: RecognitionMethod,
    /// The vision model's description (vision only).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(test, ts(optional))]
    pub vision_analysis: Option<String>,
    /// Text found in the image.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(test, ts(optional))]
    pub recognized_text: Option<String>,
    /// OCR confidence from 0 to 100, when known.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(test, ts(optional))]
    pub confidence: Option<f32>,
    /// Detected language of the text (ISO 639 code), when known.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(test, ts(optional))]
    pub language: Option<String>,
    /// A note for the person, e.g. that vision was unavailable and OCR was used instead.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(test, ts(optional))]
    pub notice: Option<String>,
    /// When recognition finished.
    #[serde(default)]
    pub recognized_at: DateTime<Utc>,
}

impl Validate for ImageMessage {
    fn validate_at(&self, path: &FieldPath, problems: &mut Problems) {
        let source = path.field("source");
        match &self.source {
            ImageSource::Url { url } => {
                let p = source.field("url");
                if url.trim().is_empty() {
                    problems.push(&p, "must not be empty");
                } else if !(url.starts_with("http://")
                    || url.starts_with("https://")
                    || url.starts_with("data:image/"))
                {
                    problems.push(&p, "must be an http(s) URL or a data:image/ URL");
                }
            }
            ImageSource::Base64 { media_type, data } => {
                problems.check(
                    !media_type.starts_with("image/"),
                    &source.field("media_type"),
                    format!("must be an image MIME type (image/...), got `{media_type}`"),
                );
                let p = source.field("data");
                if data.is_empty() {
                    problems.push(&p, "must not be empty");
                } else if !is_base64(data) {
                    problems.push(&p, "is not valid base64");
                }
            }
            ImageSource::FilePath { path: file } => {
                check_file_path(file, &source.field("path"), problems);
            }
        }
        if let Some(error) = &self.error {
            error.validate_at(&path.field("error"), problems);
        }
    }
}

/// Standard base64 with optional padding, ignoring line breaks.
fn is_base64(data: &str) -> bool {
    let body: Vec<u8> = data.bytes().filter(|b| !b.is_ascii_whitespace()).collect();
    let unpadded = body.iter().rposition(|b| *b != b'=').map_or(0, |i| i + 1);
    let padding = body.len() - unpadded;
    padding <= 2
        && body.len().is_multiple_of(4)
        && body[..unpadded]
            .iter()
            .all(|b| b.is_ascii_alphanumeric() || *b == b'+' || *b == b'/')
}

#[cfg(test)]
mod tests {
    use super::is_base64;

    #[test]
    fn base64_check_accepts_padding_and_rejects_garbage() {
        assert!(is_base64("aGVsbG8="));
        assert!(is_base64("aGVsbG8h"));
        assert!(!is_base64("aGVsbG8"));
        assert!(!is_base64("not base64!"));
        assert!(!is_base64("a==="));
    }
}
