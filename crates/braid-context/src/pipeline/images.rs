//! `RecognizeImages`: decides how each new image reaches the model and does the work. `vision`
//! prepares the image for the provider (loaded from a file or URL, sized down to its limits);
//! `ocr` reads its text with Tesseract; `auto` picks vision when the model can see images,
//! else OCR, and records the choice and the reason in the message's recognition result.

use async_trait::async_trait;
use braid_llm::{ImageLimits, ModelCapabilities};
use braid_protocol::{
    CapabilitySource, ContextState, ImageMessage, MessageId, MessageKind, RecognitionMethod,
    RecognitionMode, RecognitionResult,
};
use chrono::Utc;

use super::optimize::discovered_capabilities;
use super::{Draft, PipelineContext, PipelineError, ProcessResult, Processor, ProcessorName};
use braid_vision::{ImageError, LoadedImage, load_image, prepare_for_vision, read_text};

/// Recognizes the draft's images.
pub struct RecognizeImages;

#[async_trait]
impl Processor for RecognizeImages {
    fn name(&self) -> ProcessorName {
        ProcessorName::RecognizeImages
    }

    fn state(&self, draft: &Draft) -> Option<ContextState> {
        let total = draft
            .messages
            .iter()
            .filter(|m| matches!(m.kind, MessageKind::Image(_)))
            .count() as u32;
        (total > 0).then_some(ContextState::RecognizingImages { total })
    }

    async fn process(
        &self,
        draft: &mut Draft,
        ctx: &PipelineContext,
    ) -> Result<ProcessResult, PipelineError> {
        let caps = discovered_capabilities(ctx).await;
        let limits = ctx
            .llm
            .as_ref()
            .map_or(ImageLimits::ANTHROPIC, |llm| llm.image_limits());
        for m in &mut draft.messages {
            let id = m.id;
            let MessageKind::Image(image) = &mut m.kind else {
                continue;
            };
            recognize(image, ctx, &caps, limits)
                .await
                .map_err(|error| PipelineError::Image {
                    message_id: id,
                    error,
                })?;
            tracing::info!(message = %id, method = ?image.recognition.as_ref().map(|r| r.method), "image recognized");
        }
        Ok(ProcessResult::Continue)
    }
}

/// The name of a capability source, for the person.
fn source_name(source: CapabilitySource) -> &'static str {
    match source {
        CapabilitySource::Table => "Braid's model table",
        CapabilitySource::Server => "the model server",
        CapabilitySource::Override => "the configured override",
        CapabilitySource::Default => "the default for unknown models",
    }
}

async fn recognize(
    image: &mut ImageMessage,
    ctx: &PipelineContext,
    caps: &ModelCapabilities,
    limits: ImageLimits,
) -> Result<(), ImageError> {
    let model = &ctx.model;
    let source = source_name(caps.sources.vision);
    let (method, mut notice) = match image.recognition_mode {
        RecognitionMode::Vision if caps.vision => (RecognitionMethod::Vision, None),
        RecognitionMode::Vision => {
            return Err(ImageError::NoVision {
                model: model.clone(),
                known_from: source,
            });
        }
        RecognitionMode::Ocr => (RecognitionMethod::Ocr, None),
        RecognitionMode::Auto if caps.vision => (
            RecognitionMethod::Vision,
            Some(format!(
                "Auto: `{model}` can see images (per {source}), so the image is sent to it."
            )),
        ),
        RecognitionMode::Auto => (
            RecognitionMethod::Ocr,
            Some(format!(
                "Vision is unavailable: `{model}` cannot see images (per {source}), so the image's text was read with OCR instead."
            )),
        ),
    };
    let loaded = load_image(
        &image.source,
        ctx.workspace.as_ref(),
        ctx.workspace_problem.as_deref(),
        &ctx.image_hosts,
    )
    .await?;
    let mut method = method;
    let mut prepared = None;
    if method == RecognitionMethod::Vision {
        match prepare(&loaded, image, limits).await {
            Ok(p) => prepared = p,
            // Auto falls back to OCR when the image cannot be made fit for vision.
            Err(e) if image.recognition_mode == RecognitionMode::Auto => {
                method = RecognitionMethod::Ocr;
                notice = Some(format!(
                    "Vision failed ({e}), so the image's text was read with OCR instead."
                ));
            }
            Err(e) => return Err(e),
        }
    }
    let mut result = RecognitionResult {
        method,
        vision_analysis: None,
        recognized_text: None,
        confidence: None,
        language: None,
        notice,
        recognized_at: Utc::now(),
    };
    if method == RecognitionMethod::Ocr {
        let bytes = loaded.png_or_jpeg()?;
        let read = read_text(&ctx.ocr, bytes).await?;
        result.recognized_text = Some(read.text);
        result.confidence = read.confidence;
        result.language = Some(read.language);
        result.recognized_at = Utc::now();
    }
    image.prepared = prepared;
    image.recognition = Some(result);
    image.error = None;
    Ok(())
}

async fn prepare(
    loaded: &LoadedImage,
    image: &ImageMessage,
    limits: ImageLimits,
) -> Result<Option<braid_protocol::PreparedImage>, ImageError> {
    let loaded = loaded.clone();
    let source = image.source.clone();
    // Resizing a large picture is CPU work: off the async threads.
    tokio::task::spawn_blocking(move || prepare_for_vision(&loaded, &source, limits))
        .await
        .map_err(|e| ImageError::TooLarge {
            detail: format!("sizing it down stopped: {e}"),
        })?
}

/// The image message a pipeline error is about, when it is about one.
pub(crate) fn failed_image(error: &PipelineError) -> Option<(MessageId, &ImageError)> {
    match error {
        PipelineError::Image { message_id, error } => Some((*message_id, error)),
        _ => None,
    }
}
