//! `braid-vision`: image recognition (DESIGN.md, room `braid-vision`; what a message gets is in
//! "The context", Images): loading an image from where its message says it is (the workspace,
//! a URL that is not an internal address, inline base64), checking what it is, sizing it down
//! for a vision model, and reading its text with Tesseract ([`read_text`], [`OcrSettings`]).
//! The `RecognizeImages` pipeline step of `braid-context` decides which of these a message gets.
//!
//! It is a crate of its own because it is image and process plumbing with no part in the
//! context's state: it knows `braid-protocol` (image sources), `braid-llm` (a provider's image
//! limits) and `braid-tools` without its built-in tools (the workspace sandbox and the child
//! process rules), never the context actor. Its heavy dependencies (the image decoders, the HTTP
//! client) stay out of the crates that do not load images.
#![deny(unsafe_code)]

mod fetch;
mod loading;
mod ocr;

pub use fetch::{ImageHosts, InternalAddress};
pub use loading::{
    FETCH_TIMEOUT, ImageFormat, LoadedImage, MAX_IMAGE_BYTES, MAX_IMAGE_EDGE, load_image,
    prepare_for_vision,
};
pub use ocr::{
    MAX_OCR_OUTPUT_BYTES, MAX_TRIED_LANGUAGES, OcrSettings, OcrText, TESSERACT_LANGUAGE_PACKAGE,
    TESSERACT_OSD_PACKAGE, TESSERACT_PACKAGE, read_text,
};

/// Why an image could not be loaded or recognized. Every message says what to do about it.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ImageError {
    /// The bytes are none of the accepted formats.
    #[error(
        "the image is not a PNG, JPEG, GIF or WebP image (its first bytes are {first_bytes}); only those four formats are accepted"
    )]
    UnsupportedFormat {
        /// The first bytes, in hex.
        first_bytes: String,
    },
    /// The bytes claim a format but do not decode.
    #[error("the {format} image is damaged and cannot be decoded: {detail}")]
    Corrupt {
        /// The format its first bytes name.
        format: ImageFormat,
        /// The decoder's complaint.
        detail: String,
    },
    /// Larger than Braid accepts.
    #[error("the image is too large: {detail}")]
    TooLarge {
        /// What is too large, and the limit.
        detail: String,
    },
    /// The image could not be read from where the message says it is.
    #[error("the image could not be loaded from {location}: {reason}")]
    Unreadable {
        /// The path or URL.
        location: String,
        /// Why.
        reason: String,
    },
    /// Vision was asked for a model that cannot see images.
    #[error(
        "`{model}` cannot see images (per {known_from}): send the image with recognition_mode `ocr` or `auto`, or choose a model with vision"
    )]
    NoVision {
        /// The model.
        model: String,
        /// Where the capability came from.
        known_from: &'static str,
    },
    /// The model server refused the image when it was asked to look at it.
    #[error(
        "the model server refused the image for `{model}`: {reason}; send it with recognition_mode `ocr` or `auto` to have its text read instead"
    )]
    Refused {
        /// The model.
        model: String,
        /// The server's words.
        reason: String,
    },
    /// The OCR engine is not installed or its language data is missing.
    #[error("{0}")]
    OcrUnavailable(String),
    /// The OCR engine ran and failed.
    #[error("OCR failed: {0}")]
    OcrFailed(String),
}
