//! `RecognizeImages`: decides how each new image reaches the model and does the work. `vision`
//! prepares the image for the provider (loaded from a file or URL, sized down to its limits) and
//! asks the model to describe it and copy its text, stored as the image's `vision_analysis` so
//! later turns and models that cannot see keep it; `ocr` reads its text with Tesseract, in the
//! context's `ocr_language` or the one detected; `auto` picks vision when the model can see
//! images, else OCR, and falls back to OCR when the image cannot be prepared for vision or the
//! model server refuses it. The choice and its reason are recorded in the recognition result.

use async_trait::async_trait;
use braid_llm::{ImageLimits, LlmClient, LlmError, LlmRequest, ModelCapabilities};
use braid_protocol::{
    CapabilitySource, ContextState, ErrorCode, ImageMessage, Message, MessageId, MessageKind,
    RecognitionMethod, RecognitionMode, RecognitionResult, Role,
};
use chrono::Utc;

use super::optimize::discovered_capabilities;
use super::{Draft, PipelineContext, PipelineError, ProcessResult, Processor, ProcessorName};
use braid_vision::{
    ImageError, LoadedImage, OcrSettings, load_image, prepare_for_vision, read_text,
};

/// What the model is asked about an image it is to see: a description and the text in it,
/// apart, so each can be stored.
const DESCRIBE_PROMPT: &str = "Describe this image for someone who cannot see it, in a few sentences. Then write a line reading exactly TEXT: and below it copy every piece of text visible in the image, line by line, or write none.";

/// The marker between the description and the text in the model's answer.
const TEXT_MARKER: &str = "TEXT:";

/// The most tokens the description of one image may take.
const DESCRIPTION_MAX_TOKENS: u32 = 1024;

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
    let loaded = load(image, ctx).await?;
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
    if method == RecognitionMethod::Vision
        && let Some(llm) = &ctx.llm
    {
        let mut seen = image.clone();
        seen.prepared = prepared.clone();
        match describe(llm.as_ref(), model, seen).await {
            Ok((description, text)) => {
                result.vision_analysis = (!description.is_empty()).then_some(description);
                result.recognized_text = text;
            }
            Err(e) if refuses_images(&e) => {
                if image.recognition_mode != RecognitionMode::Auto {
                    return Err(ImageError::Refused {
                        model: model.clone(),
                        reason: e.to_string(),
                    });
                }
                tracing::warn!(model = %model, error = %e, "the model server refused an image: read with OCR instead");
                method = RecognitionMethod::Ocr;
                prepared = None;
                result.method = method;
                result.notice = Some(format!(
                    "The model server refused the image ({e}), so its text was read with OCR instead."
                ));
            }
            // The image still goes to the model with the question; only the stored
            // description is missing.
            Err(e) => {
                tracing::warn!(model = %model, error = %e, "the image could not be described");
            }
        }
    }
    if method == RecognitionMethod::Ocr {
        let bytes = loaded.png_or_jpeg()?;
        let read = read_text(&ocr_settings(ctx), bytes).await?;
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

/// Reads with OCR an image the model server refused when a turn's request carried it (it had
/// been recognized for vision): what a vision model saw of it is kept, and its notice says
/// what happened, so the conversation goes on with its text.
pub(crate) async fn read_refused_image(
    image: &mut ImageMessage,
    ctx: &PipelineContext,
    refusal: &LlmError,
) -> Result<(), ImageError> {
    let loaded = load(image, ctx).await?;
    let read = read_text(&ocr_settings(ctx), loaded.png_or_jpeg()?).await?;
    let seen = image.recognition.take().and_then(|r| r.vision_analysis);
    image.recognition = Some(RecognitionResult {
        method: RecognitionMethod::Ocr,
        vision_analysis: seen,
        recognized_text: Some(read.text),
        confidence: read.confidence,
        language: Some(read.language),
        notice: Some(format!(
            "The model server refused the image with the turn's request ({refusal}), so its text was read with OCR instead and the turn went on."
        )),
        recognized_at: Utc::now(),
    });
    image.prepared = None;
    image.error = None;
    Ok(())
}

/// Loads an image from its source, within the context's workspace and allowed hosts.
async fn load(image: &ImageMessage, ctx: &PipelineContext) -> Result<LoadedImage, ImageError> {
    load_image(
        &image.source,
        ctx.workspace.as_ref(),
        ctx.workspace_problem.as_deref(),
        &ctx.image_hosts,
    )
    .await
}

/// OCR as the operator set it up, in the context's language when it sets one.
fn ocr_settings(ctx: &PipelineContext) -> OcrSettings {
    match &ctx.config.ocr_language {
        Some(language) => OcrSettings {
            languages: Some(language.clone()),
            ..ctx.ocr.clone()
        },
        None => ctx.ocr.clone(),
    }
}

/// Asks the model to describe `image` and copy its text: the description, and the text when
/// there is some.
async fn describe(
    llm: &dyn LlmClient,
    model: &str,
    image: ImageMessage,
) -> Result<(String, Option<String>), LlmError> {
    let mut request = LlmRequest::new(
        model.to_owned(),
        vec![
            Message::new(Role::User, MessageKind::Image(Box::new(image))),
            Message::user_text(DESCRIBE_PROMPT),
        ],
    );
    request.options.max_tokens = Some(DESCRIPTION_MAX_TOKENS);
    let answer = llm.complete(&request).await?;
    Ok(split_description(&answer.text))
}

/// The description and the copied text of a describing answer.
fn split_description(answer: &str) -> (String, Option<String>) {
    let (description, text) = match answer.find(TEXT_MARKER) {
        Some(at) => (&answer[..at], Some(&answer[at + TEXT_MARKER.len()..])),
        None => (answer, None),
    };
    let text = text
        .map(str::trim)
        .filter(|t| !t.is_empty() && !t.eq_ignore_ascii_case("none"))
        .map(str::to_owned);
    (description.trim().to_owned(), text)
}

/// Whether the model server refused a request because of its image: it rejected the request
/// (not a failure to reach it) with words about images, vision or a multimodal projector.
pub(crate) fn refuses_images(error: &LlmError) -> bool {
    if crate::error::llm_error_code(error) != ErrorCode::LlmRejected {
        return false;
    }
    let words = error.to_string().to_lowercase();
    ["image", "vision", "multimodal", "mmproj"]
        .iter()
        .any(|w| words.contains(w))
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

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
mod tests {
    use std::sync::Arc;

    use base64::Engine as _;
    use braid_protocol::{ContextConfig, ImageSource};

    use super::*;

    #[test]
    fn a_describing_answer_is_split_into_description_and_text() {
        let (description, text) = split_description(
            "A printed invoice on white paper.\nTEXT:\nINVOICE 4471\nTotal due 318 EUR\n",
        );
        assert_eq!(description, "A printed invoice on white paper.");
        assert_eq!(text.as_deref(), Some("INVOICE 4471\nTotal due 318 EUR"));
        assert_eq!(
            split_description("A cat on a sofa.\nTEXT: none"),
            ("A cat on a sofa.".to_owned(), None)
        );
        assert_eq!(
            split_description("Just a description."),
            ("Just a description.".to_owned(), None)
        );
    }

    #[test]
    fn only_a_rejection_that_names_images_is_a_refused_image() {
        let http = |status: u16, message: &str| LlmError::Http {
            status,
            message: message.to_owned(),
            error_type: None,
            retry_after: None,
        };
        assert!(refuses_images(&http(
            400,
            "image input is not supported - hint: you may need to provide the mmproj"
        )));
        assert!(refuses_images(&http(400, "this model is not multimodal")));
        assert!(!refuses_images(&http(
            400,
            "maximum context length exceeded"
        )));
        assert!(
            !refuses_images(&http(503, "image service overloaded")),
            "a server that is down did not refuse the image"
        );
    }

    fn pipeline(dir: &std::path::Path) -> PipelineContext {
        PipelineContext {
            config: ContextConfig::default(),
            model: "gpt-4o".into(),
            branch: braid_protocol::BranchName::main(),
            branch_prompt: None,
            history: vec![],
            tools: Arc::new(braid_tools::ToolRegistry::new()),
            workspace: Some(braid_tools::Workspace::new(dir).unwrap()),
            workspace_problem: None,
            instructions: None,
            llm: None,
            image_hosts: Default::default(),
            kept_frame: Default::default(),
            kept_ledger: Default::default(),
            workflow_tools: vec![],
            ocr: braid_vision::OcrSettings::default(),
        }
    }

    /// A PNG too detailed to fit in `max_bytes` at any size, with no text in it.
    fn noise_png() -> Vec<u8> {
        let mut seed = 7u32;
        let picture = image::RgbImage::from_fn(256, 256, |_, _| {
            seed = seed.wrapping_mul(1_664_525).wrapping_add(1_013_904_223);
            let [a, b, c, _] = seed.to_le_bytes();
            image::Rgb([a, b, c])
        });
        let mut out = std::io::Cursor::new(Vec::new());
        picture.write_to(&mut out, image::ImageFormat::Png).unwrap();
        out.into_inner()
    }

    #[tokio::test]
    async fn an_image_that_cannot_be_prepared_for_vision_is_read_with_ocr_under_auto_only() {
        let dir = tempfile::tempdir().unwrap();
        let ctx = pipeline(dir.path());
        let caps = ModelCapabilities::for_model("gpt-4o");
        assert!(caps.vision);
        let tiny = ImageLimits {
            max_edge: 64,
            max_bytes: 16,
        };
        let source = ImageSource::Base64 {
            media_type: "image/png".into(),
            data: base64::engine::general_purpose::STANDARD.encode(noise_png()),
        };
        let mut auto = ImageMessage::new(source.clone(), RecognitionMode::Auto);
        recognize(&mut auto, &ctx, &caps, tiny).await.unwrap();
        let r = auto.recognition.unwrap();
        assert_eq!(r.method, RecognitionMethod::Ocr);
        let notice = r.notice.unwrap();
        assert!(
            notice.contains("Vision failed") && notice.contains("OCR instead"),
            "{notice}"
        );
        assert!(auto.prepared.is_none(), "nothing is kept for vision");

        let mut vision = ImageMessage::new(source, RecognitionMode::Vision);
        let e = recognize(&mut vision, &ctx, &caps, tiny).await.unwrap_err();
        assert!(matches!(e, ImageError::TooLarge { .. }), "{e}");
    }
}
