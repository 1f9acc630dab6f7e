//! Images (seed 000 "Image Message Processing"): OCR with the real Tesseract on pictures with
//! known text, vision in each provider's format, `auto` choosing between them, workspace files,
//! failures with retry, and an image sent with its question in one request.

use crate::common;

use base64::Engine as _;
use base64::engine::general_purpose::STANDARD as BASE64;
use braid_context::{ContextHandle, EngineSettings};
use braid_llm::Provider;
use braid_protocol::payload::{ImagePayload, TextPayload};
use braid_protocol::*;
use braid_testkit::{DiscoveryReply, Script, ServerKind};
use common::pictures::text_png;
use common::*;

const INVOICE: &[&str] = &["INVOICE 4471", "Total due 318 EUR"];

/// A vision model's answer to the request to describe the invoice.
const DESCRIPTION: &str =
    "A printed invoice on white paper.\nTEXT:\nINVOICE 4471\nTotal due 318 EUR";

fn image_send(source: ImageSource, mode: RecognitionMode, question: &str) -> SendMessageRequest {
    SendMessageRequest {
        payload: MessagePayload::Text(TextPayload {
            text: question.into(),
            file_references: vec![],
            images: vec![ImagePayload {
                source,
                recognition_mode: mode,
                caption: None,
            }],
        }),
        client_metadata: None,
    }
}

fn base64_png(lines: &[&str]) -> ImageSource {
    ImageSource::Base64 {
        media_type: "image/png".into(),
        data: BASE64.encode(text_png(lines)),
    }
}

fn model(name: &str) -> ContextConfig {
    ContextConfig {
        model: name.into(),
        ..ContextConfig::default()
    }
}

async fn image_message(ctx: &ContextHandle) -> (Message, ImageMessage) {
    let all = messages(ctx).await;
    let m = all
        .into_iter()
        .find(|m| matches!(m.kind, MessageKind::Image(_)))
        .expect("an image message");
    let MessageKind::Image(image) = m.kind.clone() else {
        unreachable!()
    };
    (m, *image)
}

/// Sends an image with a question and waits until the context rests.
async fn answered(
    ctx: &ContextHandle,
    source: ImageSource,
    mode: RecognitionMode,
    question: &str,
) -> ContextState {
    ctx.send_message(image_send(source, mode, question))
        .await
        .unwrap();
    settle(ctx).await
}

/// Sends the invoice under `auto` with a question; checks the turn went on and the image was
/// read with OCR in the end, and answers the image.
async fn answered_with_ocr(ctx: &ContextHandle) -> ImageMessage {
    assert_eq!(
        answered(ctx, base64_png(INVOICE), RecognitionMode::Auto, "Total?").await,
        ContextState::Idle
    );
    let (m, image) = image_message(ctx).await;
    assert_eq!(m.status, MessageStatus::Complete);
    let r = image.recognition.as_ref().unwrap();
    assert_eq!(r.method, RecognitionMethod::Ocr);
    assert!(r.recognized_text.as_ref().unwrap().contains("4471"));
    image
}

/// Sends an image that is to fail; answers the message of the `error` event it causes, once
/// the context rests.
async fn failure(ctx: &ContextHandle, source: ImageSource, mode: RecognitionMode) -> ErrorEvent {
    let mut events = ctx.subscribe();
    ctx.send_message(image_send(source, mode, "?"))
        .await
        .unwrap();
    let error = tokio::time::timeout(std::time::Duration::from_secs(20), async {
        loop {
            if let ContextEvent::Error(error) = events.recv().await.unwrap().event.clone() {
                return error;
            }
        }
    })
    .await
    .expect("an error event");
    settle(ctx).await;
    error
}

#[tokio::test]
async fn ocr_text_reaches_the_model_marked_as_read_from_an_image() {
    let h = Harness::new(Script::new().then(reply(&["It is paid."]))).await;
    let ctx = h.context(ContextConfig::default()).await;
    assert_eq!(
        answered(
            &ctx,
            base64_png(INVOICE),
            RecognitionMode::Ocr,
            "What is the total?"
        )
        .await,
        ContextState::Idle
    );
    let (m, image) = image_message(&ctx).await;
    assert_eq!(m.status, MessageStatus::Complete);
    let r = image.recognition.expect("recognized");
    assert_eq!(r.method, RecognitionMethod::Ocr);
    let text = r.recognized_text.unwrap();
    assert!(text.contains("INVOICE 4471"), "{text}");
    assert!(text.contains("318"), "{text}");
    assert!(r.confidence.is_some_and(|c| c > 50.0), "{:?}", r.confidence);
    assert_eq!(r.language.as_deref(), Some("eng"));

    let body = h.mock.requests()[0].body.clone();
    assert!(body.contains("text read from the image by OCR"), "{body}");
    assert!(body.contains("INVOICE 4471"), "{body}");
    assert!(
        !body.contains("image_url"),
        "OCR sends text, not the image: {body}"
    );
}

#[tokio::test]
async fn auto_sends_the_image_to_a_vision_model_in_the_openai_format() {
    let h = Harness::new(
        Script::new()
            .then(reply(&[DESCRIPTION]))
            .then(reply(&["A receipt."])),
    )
    .await;
    let ctx = h.context(model("gpt-4o")).await;
    assert_eq!(
        answered(
            &ctx,
            base64_png(INVOICE),
            RecognitionMode::Auto,
            "What is this?"
        )
        .await,
        ContextState::Idle
    );
    let (_, image) = image_message(&ctx).await;
    let r = image.recognition.unwrap();
    assert_eq!(r.method, RecognitionMethod::Vision);
    assert!(r.confidence.is_none(), "vision skips OCR");
    assert!(r.notice.unwrap().contains("can see images"));
    // The model described it first; what it saw is kept on the image.
    assert_eq!(
        r.vision_analysis.as_deref(),
        Some("A printed invoice on white paper.")
    );
    assert_eq!(
        r.recognized_text.as_deref(),
        Some("INVOICE 4471\nTotal due 318 EUR")
    );
    let described = h.mock.requests()[0].body.clone();
    assert!(
        described.contains("image_url") && described.contains("Describe this image"),
        "{described}"
    );

    let sent = h.mock.requests()[1].json().unwrap();
    let user = &sent["messages"][1]["content"];
    let parts = user.as_array().expect("content parts");
    let image_part = parts
        .iter()
        .find(|p| p["type"] == "image_url")
        .expect("an image_url part");
    assert!(
        image_part["image_url"]["url"]
            .as_str()
            .unwrap()
            .starts_with("data:image/png;base64,iVBOR")
    );
    assert!(parts.iter().any(|p| p["text"] == "What is this?"));
}

#[tokio::test]
async fn auto_sends_the_image_to_a_vision_model_as_an_anthropic_image_block() {
    let h = Harness::with_provider(
        Script::new()
            .then(reply(&[DESCRIPTION]))
            .then(reply(&["A receipt."])),
        EngineSettings::default(),
        Provider::Anthropic,
    )
    .await;
    let ctx = h.context(model("claude-sonnet-4-20250514")).await;
    // A file in the workspace, loaded and sent inline.
    std::fs::write(h.workspace.join("receipt.png"), text_png(INVOICE)).unwrap();
    assert_eq!(
        answered(
            &ctx,
            ImageSource::FilePath {
                path: "receipt.png".into(),
            },
            RecognitionMode::Auto,
            "What is this?"
        )
        .await,
        ContextState::Idle
    );
    let sent = h.mock.requests()[1].json().unwrap();
    let content = sent["messages"][0]["content"].as_array().unwrap().clone();
    let block = content
        .iter()
        .find(|b| b["type"] == "image")
        .unwrap_or_else(|| panic!("an image block: {content:?}"));
    assert_eq!(block["source"]["type"], "base64");
    assert_eq!(block["source"]["media_type"], "image/png");
    assert!(
        block["source"]["data"]
            .as_str()
            .unwrap()
            .starts_with("iVBOR")
    );
    assert!(content.iter().any(|b| b["text"] == "What is this?"));
}

#[tokio::test]
async fn auto_reads_the_text_with_ocr_when_the_model_cannot_see_and_says_so() {
    let h = Harness::new(Script::new().then(reply(&["ok"]))).await;
    let ctx = h.context(ContextConfig::default()).await;
    let summary = ctx.summary().await.unwrap();
    let caps = summary.capabilities.expect("capabilities are shown");
    assert_eq!(caps.model, "mock-model");
    assert_eq!(
        caps.vision,
        FlagFigure {
            value: false,
            source: CapabilitySource::Default
        }
    );

    assert_eq!(
        answered(&ctx, base64_png(INVOICE), RecognitionMode::Auto, "Total?").await,
        ContextState::Idle
    );
    let (_, image) = image_message(&ctx).await;
    let r = image.recognition.unwrap();
    assert_eq!(r.method, RecognitionMethod::Ocr);
    let notice = r.notice.unwrap();
    assert!(notice.contains("Vision is unavailable"), "{notice}");
    assert!(notice.contains("mock-model"), "{notice}");
    assert!(r.recognized_text.unwrap().contains("4471"));
    let body = h.mock.requests()[0].body.clone();
    assert!(
        body.contains("4471") && !body.contains("image_url"),
        "{body}"
    );
}

#[tokio::test]
async fn a_workspace_image_is_loaded_and_one_outside_the_workspace_is_refused() {
    let h = Harness::new(Script::new().then(reply(&["ok"]))).await;
    let ctx = h.context(ContextConfig::default()).await;
    std::fs::create_dir_all(h.workspace.join("shots")).unwrap();
    std::fs::write(
        h.workspace.join("shots/a.png"),
        text_png(&["WORKSPACE 9120"]),
    )
    .unwrap();
    assert_eq!(
        answered(
            &ctx,
            ImageSource::FilePath {
                path: "shots/a.png".into(),
            },
            RecognitionMode::Ocr,
            "read it"
        )
        .await,
        ContextState::Idle
    );
    let (_, image) = image_message(&ctx).await;
    assert!(
        image
            .recognition
            .unwrap()
            .recognized_text
            .unwrap()
            .contains("9120")
    );
    assert!(h.mock.requests()[0].body.contains("Image shots/a.png"));

    // Outside the workspace: an absolute path, and a symlink inside that leads out.
    let outside = h.dir.path().join("secret.png");
    std::fs::write(&outside, text_png(&["SECRET"])).unwrap();
    std::os::unix::fs::symlink(&outside, h.workspace.join("link.png")).unwrap();
    for path in [outside.display().to_string(), "link.png".to_owned()] {
        let other = h.context(ContextConfig::default()).await;
        other
            .send_message(image_send(
                ImageSource::FilePath { path: path.clone() },
                RecognitionMode::Ocr,
                "read it",
            ))
            .await
            .unwrap();
        assert!(matches!(settle(&other).await, ContextState::Failed { .. }));
        let (m, image) = image_message(&other).await;
        assert_eq!(m.status, MessageStatus::Failed);
        let error = image.error.expect("the image's own error");
        assert!(
            error.message.contains("refused"),
            "{path}: {}",
            error.message
        );
        assert!(image.recognition.is_none());
    }
    assert_eq!(h.mock.request_count(), 1, "nothing outside was sent");
}

#[tokio::test]
async fn a_corrupt_image_fails_and_retry_works_after_the_file_is_fixed() {
    let h = Harness::new(Script::new().then(reply(&["Seen."]))).await;
    let ctx = h.context(ContextConfig::default()).await;
    let mut damaged = text_png(INVOICE);
    damaged.truncate(100);
    std::fs::write(h.workspace.join("scan.png"), &damaged).unwrap();
    let scan = ImageSource::FilePath {
        path: "scan.png".into(),
    };
    let error = failure(&ctx, scan, RecognitionMode::Ocr).await;
    assert!(matches!(
        ctx.state(false).await.unwrap().state,
        ContextState::Failed { .. }
    ));
    assert_eq!(error.code, ErrorCode::ImageRecognition);
    assert!(
        error.message.contains("PNG image is damaged"),
        "{}",
        error.message
    );
    assert!(error.recoverable);
    let (m, image) = image_message(&ctx).await;
    assert_eq!(m.status, MessageStatus::Failed);
    assert_eq!(
        image.error.as_ref().and_then(|e| e.code.as_deref()),
        Some("image_recognition")
    );
    assert_eq!(h.mock.request_count(), 0);

    std::fs::write(h.workspace.join("scan.png"), text_png(INVOICE)).unwrap();
    ctx.retry_message(m.id).await.unwrap();
    assert_eq!(settle(&ctx).await, ContextState::Idle);
    let (m, image) = image_message(&ctx).await;
    assert_eq!(m.status, MessageStatus::Complete);
    assert!(image.error.is_none() && m.error.is_none());
    assert!(
        image
            .recognition
            .unwrap()
            .recognized_text
            .unwrap()
            .contains("4471")
    );
    let bodies: Vec<String> = h.mock.requests().into_iter().map(|r| r.body).collect();
    assert_eq!(bodies.len(), 1);
    assert!(bodies[0].contains("4471"), "{}", bodies[0]);
}

#[tokio::test]
async fn image_and_question_reach_the_model_in_one_request() {
    let h = Harness::new(Script::new().then(reply(&["318 EUR."]))).await;
    let ctx = h.context(ContextConfig::default()).await;
    assert_eq!(
        answered(
            &ctx,
            base64_png(INVOICE),
            RecognitionMode::Ocr,
            "How much is due?"
        )
        .await,
        ContextState::Idle
    );
    assert_eq!(h.mock.request_count(), 1);
    let sent = h.mock.requests()[0].json().unwrap();
    let user: Vec<&serde_json::Value> = sent["messages"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|m| m["role"] == "user")
        .collect();
    assert_eq!(user.len(), 1, "one user turn: {sent}");
    let content = user[0]["content"].to_string();
    let (image_at, question_at) = (
        content.find("4471").unwrap(),
        content.find("How much is due?").unwrap(),
    );
    assert!(
        image_at < question_at,
        "the image comes before the question"
    );
    let all = messages(&ctx).await;
    assert!(matches!(all[0].kind, MessageKind::Image(_)));
    assert!(matches!(all[1].kind, MessageKind::Text(_)));
    assert_eq!(
        all[0].metadata.get("send_id"),
        all[1].metadata.get("send_id")
    );
}

#[tokio::test]
async fn vision_for_a_model_without_it_and_other_formats_fail_with_clear_errors() {
    let h = Harness::new(Script::new()).await;
    let ctx = h.context(ContextConfig::default()).await;
    let message = failure(&ctx, base64_png(INVOICE), RecognitionMode::Vision)
        .await
        .message;
    assert!(
        message.contains("`mock-model` cannot see images"),
        "{message}"
    );

    let other = h.context(ContextConfig::default()).await;
    let pdf = ImageSource::Base64 {
        media_type: "image/png".into(),
        data: BASE64.encode(b"%PDF-1.7 this is a document"),
    };
    let message = failure(&other, pdf, RecognitionMode::Auto).await.message;
    assert!(
        message.contains("not a PNG, JPEG, GIF or WebP"),
        "{message}"
    );
    assert_eq!(h.mock.request_count(), 0);
}

#[tokio::test]
async fn a_missing_tesseract_is_reported_with_the_package_to_install() {
    let settings = EngineSettings {
        ocr: braid_vision::OcrSettings {
            program: "/nonexistent/bin/tesseract".into(),
            ..Default::default()
        },
        ..EngineSettings::default()
    };
    let h = Harness::with_settings(Script::new(), settings).await;
    let ctx = h.context(ContextConfig::default()).await;
    let message = failure(&ctx, base64_png(INVOICE), RecognitionMode::Ocr)
        .await
        .message;
    assert!(
        message.contains("`tesseract-ocr`") && message.contains("`tesseract-ocr-eng`"),
        "{message}"
    );
}

#[tokio::test]
async fn a_server_that_refuses_an_image_gets_its_ocr_text_and_the_turn_goes_on() {
    let refusal = || {
        braid_testkit::ErrorReply::new(
            400,
            serde_json::json!({"error": {"type": "invalid_request_error", "message": "image input is not supported by this deployment"}}),
        )
    };
    let h = Harness::new(
        Script::new()
            .then(refusal())
            .then(reply(&["It is 318 EUR."]))
            .then(refusal()),
    )
    .await;
    let ctx = h.context(model("gpt-4o")).await;
    let image = answered_with_ocr(&ctx).await;
    let r = image.recognition.unwrap();
    let notice = r.notice.unwrap();
    assert!(
        notice.contains("refused the image") && notice.contains("not supported"),
        "the conversation says why: {notice}"
    );
    assert!(image.prepared.is_none());
    let turn = h.mock.requests()[1].body.clone();
    assert!(
        turn.contains("4471") && !turn.contains("image_url"),
        "the model gets the text, not the image: {turn}"
    );
    assert!(matches!(
        messages(&ctx).await.last().map(|m| &m.kind),
        Some(MessageKind::Text(t)) if t.text() == "It is 318 EUR."
    ));

    // Asked for vision only, the refusal is the person's to see: nothing is read instead.
    let error = failure(&ctx, base64_png(INVOICE), RecognitionMode::Vision).await;
    assert_eq!(error.code, ErrorCode::ImageRecognition);
    assert!(
        error.message.contains("refused the image") && error.message.contains("`auto`"),
        "{}",
        error.message
    );
}

#[tokio::test]
async fn what_a_vision_model_saw_reaches_a_model_that_cannot_see() {
    let h = Harness::new(
        Script::new()
            .then(reply(&[DESCRIPTION]))
            .then(reply(&["An invoice."]))
            .then(reply(&["318 EUR."])),
    )
    .await;
    let ctx = h.context(model("gpt-4o")).await;
    assert_eq!(
        answered(
            &ctx,
            base64_png(INVOICE),
            RecognitionMode::Auto,
            "What is it?"
        )
        .await,
        ContextState::Idle
    );
    ctx.update(braid_protocol::api::UpdateContextRequest {
        title: None,
        config: Some(serde_json::json!({"model": "mock-model"})),
    })
    .await
    .unwrap();
    ctx.send_message(text("And the total?")).await.unwrap();
    assert_eq!(settle(&ctx).await, ContextState::Idle);
    let later = h.mock.requests()[2].body.clone();
    assert!(
        later.contains("A printed invoice on white paper.")
            && later.contains("Total due 318 EUR")
            && !later.contains("image_url"),
        "the description and the text stand in for the image: {later}"
    );
}

#[tokio::test]
async fn auto_chooses_vision_when_the_model_server_reports_it() {
    // The table does not know "mock-model" (no vision by default); the llama.cpp server behind
    // the base URL says a vision projector is loaded.
    let h = Harness::new(
        Script::new()
            .then(reply(&[DESCRIPTION]))
            .then(reply(&["A receipt."]))
            .with_discovery(
                DiscoveryReply::new(ServerKind::LlamaCpp, "mock-model", 16_384).with_vision(),
            ),
    )
    .await;
    let ctx = h.context(ContextConfig::default()).await;
    assert_eq!(
        answered(
            &ctx,
            base64_png(INVOICE),
            RecognitionMode::Auto,
            "What is this?"
        )
        .await,
        ContextState::Idle
    );
    let (_, image) = image_message(&ctx).await;
    let r = image.recognition.unwrap();
    assert_eq!(r.method, RecognitionMethod::Vision);
    let body = h.mock.requests()[1].body.clone();
    assert!(body.contains("image_url"), "{body}");

    let caps = ctx.summary().await.unwrap().capabilities.unwrap();
    assert_eq!(
        caps.vision,
        FlagFigure {
            value: true,
            source: CapabilitySource::Server
        }
    );
    assert!(
        h.mock
            .discovery_requests()
            .iter()
            .any(|r| r.path == "/props"),
        "the server was asked"
    );
}

#[tokio::test]
async fn the_token_budget_uses_the_window_the_server_reports() {
    let h = Harness::new(
        Script::new()
            .then(reply(&["ok"]))
            .with_discovery(DiscoveryReply::new(
                ServerKind::LlamaCpp,
                "local-model",
                12_288,
            )),
    )
    .await;
    let mut config = model("local-model");
    config.optimization.reserve_output_tokens = 1024;
    let ctx = h.context(config).await;
    ctx.send_message(text("hello")).await.unwrap();
    assert_eq!(settle(&ctx).await, ContextState::Idle);
    let summary = ctx.summary().await.unwrap();
    let caps = summary.capabilities.unwrap();
    assert_eq!(
        caps.context_window,
        CountFigure {
            value: 12_288,
            source: CapabilitySource::Server
        }
    );
    // The server's window minus the 1024 reserved for the answer and the 256 margin.
    assert_eq!(summary.token_budget.limit, 12_288 - 1024 - 256);
}

#[tokio::test]
async fn a_model_nobody_knows_gets_the_8192_default_window_and_still_works() {
    let h = Harness::new(Script::new().then(reply(&["fine"]))).await;
    let ctx = h.context(model("my-finetune")).await;
    let summary = ctx.summary().await.unwrap();
    assert_eq!(
        summary.capabilities.unwrap().context_window,
        CountFigure {
            value: 8192,
            source: CapabilitySource::Default
        }
    );
    // The answer reserves at most a quarter of a small window (not the configured 4,096), so
    // the system prompt and the built-in tools fit and a turn goes through.
    assert_eq!(summary.token_budget.limit, 8192 - 2048 - 256);
    ctx.send_message(text("hello")).await.unwrap();
    assert_eq!(settle(&ctx).await, ContextState::Idle);
    let sent: serde_json::Value = serde_json::from_str(&h.mock.requests()[0].body).unwrap();
    assert_eq!(
        sent["max_tokens"], 2048,
        "the output cap follows the reserve"
    );
}

#[tokio::test]
async fn ocr_reads_in_the_language_the_context_sets_and_stores_it() {
    let h = Harness::new(Script::new().then(reply(&["ok"])).then(reply(&["ok"]))).await;
    let russian = &["СЧЁТ НОМЕР 4471", "Итого к оплате 318 рублей"];
    // Detected: the Cyrillic text is read with the Russian data.
    let detected = h.context(ContextConfig::default()).await;
    answered(&detected, base64_png(russian), RecognitionMode::Ocr, "?").await;
    let r = image_message(&detected).await.1.recognition.unwrap();
    assert_eq!(r.language.as_deref(), Some("rus"));
    assert!(r.recognized_text.unwrap().contains("рублей"));
    // Set: the context's language is used, and stored as the one used.
    let set = h
        .context(ContextConfig {
            ocr_language: Some("eng".into()),
            ..ContextConfig::default()
        })
        .await;
    answered(&set, base64_png(russian), RecognitionMode::Ocr, "?").await;
    let r = image_message(&set).await.1.recognition.unwrap();
    assert_eq!(r.language.as_deref(), Some("eng"));
    assert!(!r.recognized_text.unwrap_or_default().contains("рублей"));
}

#[tokio::test]
async fn processing_user_message_is_stored_while_the_pipeline_works() {
    // The vision model takes its time describing the image: the pipeline is still at work.
    let slow_description = braid_testkit::StreamReply::answer(&[DESCRIPTION])
        .head_delay(std::time::Duration::from_millis(1_500));
    let h = Harness::new(
        Script::new()
            .then(slow_description)
            .then(reply(&["A receipt."])),
    )
    .await;
    let ctx = h.context(model("gpt-4o")).await;
    ctx.send_message(image_send(
        base64_png(INVOICE),
        RecognitionMode::Auto,
        "What is this?",
    ))
    .await
    .unwrap();
    let deadline = tokio::time::Instant::now() + std::time::Duration::from_secs(10);
    while h.mock.requests().is_empty() {
        assert!(
            tokio::time::Instant::now() < deadline,
            "the image was never sent to be described"
        );
        tokio::time::sleep(std::time::Duration::from_millis(5)).await;
    }
    let stored = h.store.get_context(ctx.id()).await.unwrap().unwrap();
    assert_eq!(stored.state, ContextState::ProcessingUserMessage);
    // The input is stored as it was accepted: pending until the pipeline is done.
    let (input, _) = image_message(&ctx).await;
    assert_eq!(input.status, MessageStatus::Pending);
    assert_eq!(settle(&ctx).await, ContextState::Idle);
}

#[tokio::test]
async fn a_turn_whose_request_is_refused_for_its_image_goes_on_with_the_ocr_text() {
    // The describing request is accepted; the turn's own request (the image with the question)
    // is refused for its image.
    let refusal = braid_testkit::ErrorReply::new(
        400,
        serde_json::json!({"error": {"type": "invalid_request_error", "message": "image input is not supported with tools on this deployment"}}),
    );
    let h = Harness::new(
        Script::new()
            .then(reply(&[DESCRIPTION]))
            .then(refusal)
            .then(reply(&["It is 318 EUR."])),
    )
    .await;
    let ctx = h.context(model("gpt-4o")).await;
    let image = answered_with_ocr(&ctx).await;
    assert!(image.prepared.is_none(), "nothing is kept for vision");
    let r = image.recognition.unwrap();
    assert_eq!(
        r.vision_analysis.as_deref(),
        Some("A printed invoice on white paper."),
        "what the model saw while describing it is kept"
    );
    let notice = r.notice.unwrap();
    assert!(
        notice.contains("refused the image with the turn's request")
            && notice.contains("not supported with tools"),
        "the conversation says why: {notice}"
    );
    let requests = h.mock.requests();
    assert_eq!(requests.len(), 3);
    assert!(
        requests[1].body.contains("image_url"),
        "{}",
        requests[1].body
    );
    let again = &requests[2].body;
    assert!(
        again.contains("4471") && !again.contains("image_url"),
        "the request goes again with the text, not the image: {again}"
    );
    assert!(matches!(
        messages(&ctx).await.last().map(|m| &m.kind),
        Some(MessageKind::Text(t)) if t.text() == "It is 318 EUR."
    ));
    // The image was read again between the refused request and the next.
    let walked = walk(&ctx).await;
    let refused_at = walked
        .windows(2)
        .position(|w| {
            w == [
                StateKind::AwaitingLlmFirstChunk,
                StateKind::RecognizingImages,
            ]
        })
        .expect("recognizing the refused image after the refusal");
    assert_eq!(
        walked[refused_at + 2..refused_at + 4],
        [
            StateKind::EnhancingSystemPrompt,
            StateKind::OptimizingContext
        ]
    );
}
