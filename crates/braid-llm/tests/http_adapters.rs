//! Both adapters over real HTTP against braid-testkit's mock LLM: streaming, tool calls,
//! retries, cuts, hangs, errors and what was sent.

use std::sync::Arc;
use std::time::{Duration, Instant};

use braid_llm::{
    Completion, CompletionBuilder, ErrorSeverity, FinishReason, LlmClient, LlmError, LlmEvent,
    LlmRequest, Provider, ProviderConfig, RetryPolicy, ToolDefinition, build_client,
};
use braid_protocol::Message;
use braid_testkit::{ErrorReply, FinishKind, MockLlm, Script, ScriptedResponse, StreamReply};
use futures::StreamExt;
use serde_json::json;

fn config(provider: Provider, mock: &MockLlm) -> ProviderConfig {
    let mut config = ProviderConfig::new(provider);
    config.base_url = match provider {
        Provider::OpenAi => mock.openai_base_url(),
        Provider::Anthropic => mock.url(),
    };
    config.api_key = Some("test-key".into());
    config.model = match provider {
        Provider::OpenAi => "gpt-4o".into(),
        Provider::Anthropic => "claude-sonnet-4-20250514".into(),
    };
    config.retry = RetryPolicy {
        max_retries: 3,
        initial_backoff: Duration::from_millis(1),
        max_backoff: Duration::from_millis(20),
    };
    config.idle_timeout = Duration::from_secs(5);
    config
}

fn client(provider: Provider, mock: &MockLlm) -> Arc<dyn LlmClient> {
    build_client(config(provider, mock)).unwrap()
}

fn request(provider: Provider) -> LlmRequest {
    let model = match provider {
        Provider::OpenAi => "gpt-4o",
        Provider::Anthropic => "claude-sonnet-4-20250514",
    };
    LlmRequest::new(model, vec![Message::user_text("Read a.rs and grep fn")])
        .with_system_prompt("You are a test.")
        .with_tools(vec![ToolDefinition {
            name: "read_file".into(),
            description: "Read a file.".into(),
            parameters: json!({"type": "object", "properties": {"path": {"type": "string"}}}),
        }])
}

/// Every event of a stream, and the error that ended it.
async fn collect(
    client: &dyn LlmClient,
    request: &LlmRequest,
) -> (Vec<LlmEvent>, Option<LlmError>) {
    let mut stream = client.stream(request).await;
    let mut events = Vec::new();
    while let Some(item) = stream.next().await {
        match item {
            Ok(event) => events.push(event),
            Err(error) => {
                assert!(
                    stream.next().await.is_none(),
                    "the stream goes on after an error"
                );
                return (events, Some(error));
            }
        }
    }
    (events, None)
}

fn fold(events: &[LlmEvent]) -> Completion {
    let mut b = CompletionBuilder::new();
    events.iter().for_each(|e| b.push(e));
    b.finish()
}

fn parallel_calls() -> StreamReply {
    StreamReply::new()
        .text("Looking.")
        .tool_call(0, "call_a", "read_file")
        .tool_call(1, "call_b", "grep")
        .tool_args(0, "{\"path\":")
        .tool_args(1, "{\"pattern\":")
        .tool_args(1, "\"fn\"}")
        .tool_args(0, "\"a.rs\"}")
        .usage(42, 17)
        .finish(FinishKind::ToolCalls)
}

const BOTH: [Provider; 2] = [Provider::OpenAi, Provider::Anthropic];

#[tokio::test]
async fn parallel_tool_calls_stream_over_http_for_both_providers() {
    for provider in BOTH {
        let mock = MockLlm::start(Script::new().then(parallel_calls()))
            .await
            .unwrap();
        let (events, error) = collect(client(provider, &mock).as_ref(), &request(provider)).await;
        assert!(error.is_none(), "{provider}: {error:?}");
        let c = fold(&events);
        assert_eq!(c.text, "Looking.", "{provider}");
        assert_eq!(c.tool_calls.len(), 2, "{provider}");
        assert_eq!(c.tool_calls[0].id.as_str(), "call_a");
        assert_eq!(
            c.tool_calls[0].arguments.as_ref().unwrap(),
            &json!({"path": "a.rs"})
        );
        assert_eq!(
            c.tool_calls[1].arguments.as_ref().unwrap(),
            &json!({"pattern": "fn"})
        );
        assert_eq!(c.usage.unwrap().prompt_tokens, 42, "{provider}");
        assert_eq!(c.usage.unwrap().completion_tokens, 17, "{provider}");
        assert_eq!(c.finish_reason, Some(FinishReason::ToolCalls), "{provider}");
        assert!(matches!(events.last(), Some(LlmEvent::Finish { .. })));
    }
}

#[tokio::test]
async fn openai_request_carries_key_usage_option_system_prompt_and_tools() {
    let mock = MockLlm::start(Script::new().then(StreamReply::text_in_pieces("ok", 1)))
        .await
        .unwrap();
    collect(
        client(Provider::OpenAi, &mock).as_ref(),
        &request(Provider::OpenAi),
    )
    .await;
    let sent = &mock.requests()[0];
    assert_eq!(sent.path, "/v1/chat/completions");
    assert_eq!(sent.header("authorization"), Some("Bearer test-key"));
    let body = sent.json().unwrap();
    assert_eq!(body["stream"], true);
    assert_eq!(body["stream_options"]["include_usage"], true);
    assert_eq!(
        body["messages"][0],
        json!({"role": "system", "content": "You are a test."})
    );
    assert_eq!(body["tools"][0]["function"]["name"], "read_file");
}

#[tokio::test]
async fn anthropic_request_carries_key_version_system_and_max_tokens() {
    let mock = MockLlm::start(Script::new().then(StreamReply::text_in_pieces("ok", 1)))
        .await
        .unwrap();
    collect(
        client(Provider::Anthropic, &mock).as_ref(),
        &request(Provider::Anthropic),
    )
    .await;
    let sent = &mock.requests()[0];
    assert_eq!(sent.path, "/v1/messages");
    assert_eq!(sent.header("x-api-key"), Some("test-key"));
    assert_eq!(sent.header("anthropic-version"), Some("2023-06-01"));
    let body = sent.json().unwrap();
    assert_eq!(
        body["system"],
        json!([{"type": "text", "text": "You are a test.", "cache_control": {"type": "ephemeral"}}])
    );
    assert_eq!(body["max_tokens"], 8192);
    assert_eq!(body["tools"][0]["input_schema"]["type"], "object");
}

#[tokio::test]
async fn rate_limit_and_overload_are_retried_then_succeed() {
    for provider in BOTH {
        let script = Script::new()
            .then(
                ErrorReply::new(
                    429,
                    json!({"error": {"message": "slow down", "type": "rate_limit_error"}}),
                )
                .retry_after("0"),
            )
            .then(ErrorReply::new(
                503,
                json!({"error": {"message": "overloaded"}}),
            ))
            .then(StreamReply::text_in_pieces("finally", 3));
        let mock = MockLlm::start(script).await.unwrap();
        let (events, error) = collect(client(provider, &mock).as_ref(), &request(provider)).await;
        assert!(error.is_none(), "{provider}: {error:?}");
        assert_eq!(fold(&events).text, "finally");
        assert_eq!(mock.request_count(), 3, "{provider}");
    }
}

#[tokio::test]
async fn retry_after_is_honoured() {
    let mut config = {
        let script = Script::new()
            .then(ErrorReply::new(429, json!({"error": {"message": "wait"}})).retry_after("0.3"))
            .then(StreamReply::text_in_pieces("ok", 2));
        let mock = MockLlm::start(script).await.unwrap();
        (config(Provider::OpenAi, &mock), mock)
    };
    config.0.retry.max_backoff = Duration::from_secs(5);
    let client = build_client(config.0).unwrap();
    let started = Instant::now();
    let (_, error) = collect(client.as_ref(), &request(Provider::OpenAi)).await;
    assert!(error.is_none());
    assert!(
        started.elapsed() >= Duration::from_millis(300),
        "{:?}",
        started.elapsed()
    );
}

#[tokio::test]
async fn retries_are_bounded_and_the_last_error_is_surfaced() {
    let mut script = Script::new();
    for _ in 0..4 {
        script = script.then(ErrorReply::new(
            503,
            json!({"error": {"message": "down for maintenance"}}),
        ));
    }
    let mock = MockLlm::start(script).await.unwrap();
    let (events, error) = collect(
        client(Provider::OpenAi, &mock).as_ref(),
        &request(Provider::OpenAi),
    )
    .await;
    // Nothing of an answer, only the notice of each retry, with increasing attempts.
    let retries: Vec<(u32, bool)> = events
        .iter()
        .map(|e| match e {
            LlmEvent::Retrying {
                attempt, reason, ..
            } => (*attempt, reason.contains("down for maintenance")),
            other => panic!("not a retry: {other:?}"),
        })
        .collect();
    assert_eq!(retries, [(2, true), (3, true), (4, true)]);
    let error = error.unwrap();
    assert_eq!(error.status(), Some(503));
    assert_eq!(error.provider_message(), Some("down for maintenance"));
    assert_eq!(mock.request_count(), 4, "one attempt and three retries");
}

#[tokio::test]
async fn client_errors_are_fatal_and_not_retried() {
    for provider in BOTH {
        let script = Script::new()
            .then(ErrorReply::new(401, json!({"type": "error", "error": {"type": "authentication_error", "message": "invalid x-api-key"}})))
            .then(StreamReply::text_in_pieces("never", 2));
        let mock = MockLlm::start(script).await.unwrap();
        let (_, error) = collect(client(provider, &mock).as_ref(), &request(provider)).await;
        let error = error.unwrap();
        assert_eq!(error.severity(), ErrorSeverity::Fatal);
        assert_eq!(error.status(), Some(401));
        assert_eq!(error.provider_message(), Some("invalid x-api-key"));
        assert_eq!(mock.request_count(), 1);
    }
}

#[tokio::test]
async fn no_retry_after_partial_output_and_the_error_says_what_arrived() {
    for provider in BOTH {
        let script = Script::new()
            .then(
                StreamReply::new()
                    .text("Half an ans")
                    .tool_call(0, "call_x", "read_file")
                    .tool_args(0, "{\"pa")
                    .cut(),
            )
            .then(StreamReply::text_in_pieces("must not be used", 4));
        let mock = MockLlm::start(script).await.unwrap();
        let (events, error) = collect(client(provider, &mock).as_ref(), &request(provider)).await;
        assert_eq!(fold(&events).text, "Half an ans", "{provider}");
        match error {
            Some(LlmError::Interrupted { source, received }) => {
                assert!(
                    matches!(*source, LlmError::StreamCut { .. }),
                    "{provider}: {source:?}"
                );
                assert_eq!(received.text, "Half an ans");
                assert_eq!(received.unfinished_tool_calls.len(), 1);
                assert_eq!(received.unfinished_tool_calls[0].arguments, "{\"pa");
            }
            other => panic!("{provider}: expected an interrupted error, got {other:?}"),
        }
        assert_eq!(
            mock.request_count(),
            1,
            "{provider}: retried after partial output"
        );
        assert_eq!(mock.remaining_responses(), 1);
    }
}

#[tokio::test]
async fn stream_cut_before_any_output_is_retried() {
    for provider in BOTH {
        let script = Script::new()
            .then(StreamReply::new().cut())
            .then(StreamReply::text_in_pieces("second try", 4));
        let mock = MockLlm::start(script).await.unwrap();
        let (events, error) = collect(client(provider, &mock).as_ref(), &request(provider)).await;
        assert!(error.is_none(), "{provider}: {error:?}");
        assert_eq!(fold(&events).text, "second try");
        assert_eq!(mock.request_count(), 2);
    }
}

#[tokio::test]
async fn each_attempt_reports_when_its_response_starts_before_any_of_the_answer() {
    for provider in BOTH {
        let script = Script::new()
            .then(StreamReply::new().cut())
            .then(StreamReply::text_in_pieces("late", 2).head_delay(Duration::from_millis(300)));
        let mock = MockLlm::start(script).await.unwrap();
        let started = Instant::now();
        let mut stream = client(provider, &mock).stream(&request(provider)).await;
        let mut seen = Vec::new();
        while let Some(item) = stream.next().await {
            let event = item.unwrap();
            let label = match &event {
                LlmEvent::Connected => "connected",
                LlmEvent::Retrying { .. } => "retrying",
                LlmEvent::TextDelta { .. } => "text",
                _ => continue,
            };
            if seen.last() != Some(&label) {
                seen.push(label);
            }
            // The second attempt's server waited 300 ms before answering.
            if label == "connected" && seen.contains(&"retrying") {
                assert!(
                    started.elapsed() >= Duration::from_millis(300),
                    "{provider}"
                );
            }
        }
        // The cut attempt had started too: its notice does not count as output, so it is
        // still retried.
        assert_eq!(
            seen,
            ["connected", "retrying", "connected", "text"],
            "{provider}"
        );
    }
}

#[tokio::test]
async fn mid_stream_overload_before_output_is_retried() {
    let script = Script::new()
        .then(
            StreamReply::new()
                .chunk(braid_testkit::Chunk::Ping)
                .provider_error("overloaded_error", "Overloaded"),
        )
        .then(StreamReply::text_in_pieces("recovered", 4));
    let mock = MockLlm::start(script).await.unwrap();
    let (events, error) = collect(
        client(Provider::Anthropic, &mock).as_ref(),
        &request(Provider::Anthropic),
    )
    .await;
    assert!(error.is_none(), "{error:?}");
    assert_eq!(fold(&events).text, "recovered");
    assert_eq!(mock.request_count(), 2);
}

#[tokio::test]
async fn a_hanging_server_times_out() {
    let mock = MockLlm::start(
        Script::new()
            .then(StreamReply::new().text("stuck").hang())
            .then(ScriptedResponse::Hang),
    )
    .await
    .unwrap();
    let mut config = config(Provider::OpenAi, &mock);
    config.idle_timeout = Duration::from_millis(200);
    config.retry = RetryPolicy::none();
    let client = build_client(config).unwrap();
    let (events, error) = collect(client.as_ref(), &request(Provider::OpenAi)).await;
    assert_eq!(fold(&events).text, "stuck");
    match error {
        Some(LlmError::Interrupted { source, .. }) => {
            assert!(matches!(*source, LlmError::Timeout { .. }), "{source:?}")
        }
        other => panic!("expected a timeout after partial output, got {other:?}"),
    }
    // A server that never answers at all times out too.
    let (events, error) = collect(client.as_ref(), &request(Provider::OpenAi)).await;
    assert!(events.is_empty());
    assert!(matches!(error, Some(LlmError::Timeout { .. })), "{error:?}");
}

#[tokio::test]
async fn unreachable_server_is_a_transient_connect_error() {
    let port = {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        listener.local_addr().unwrap().port()
    };
    let mut config = ProviderConfig::new(Provider::OpenAi);
    config.base_url = format!("http://127.0.0.1:{port}/v1");
    config.retry = RetryPolicy {
        max_retries: 1,
        initial_backoff: Duration::from_millis(1),
        max_backoff: Duration::from_millis(1),
    };
    let client = build_client(config).unwrap();
    let (_, error) = collect(client.as_ref(), &request(Provider::OpenAi)).await;
    let error = error.unwrap();
    assert!(matches!(error, LlmError::Connect { .. }), "{error:?}");
    assert!(error.is_transient());
    assert!(error.to_string().contains(&port.to_string()));
}

#[tokio::test]
async fn malformed_arguments_over_http_fail_only_that_call() {
    for provider in BOTH {
        let script = Script::new().then(
            StreamReply::new()
                .tool_call(0, "ok", "read_file")
                .tool_args(0, "{\"path\":\"a\"}")
                .tool_call(1, "broken", "grep")
                .tool_args(1, "{\"pattern\": ")
                .finish(FinishKind::ToolCalls),
        );
        let mock = MockLlm::start(script).await.unwrap();
        let (events, error) = collect(client(provider, &mock).as_ref(), &request(provider)).await;
        assert!(error.is_none(), "{provider}: {error:?}");
        let c = fold(&events);
        assert!(c.tool_calls[0].arguments.is_ok());
        assert_eq!(
            c.tool_calls[1]
                .arguments
                .as_ref()
                .unwrap_err()
                .call_id
                .as_str(),
            "broken"
        );
        assert_eq!(c.finish_reason, Some(FinishReason::ToolCalls));
    }
}

#[tokio::test]
async fn complete_returns_the_whole_answer_for_both_providers() {
    for provider in BOTH {
        let script = Script::new()
            .then(ErrorReply::new(502, json!("bad gateway")))
            .then(parallel_calls());
        let mock = MockLlm::start(script).await.unwrap();
        let c = client(provider, &mock)
            .complete(&request(provider))
            .await
            .unwrap();
        assert_eq!(c.text, "Looking.", "{provider}");
        assert_eq!(c.tool_calls.len(), 2);
        assert_eq!(
            c.tool_calls[1].arguments.as_ref().unwrap(),
            &json!({"pattern": "fn"})
        );
        assert_eq!(c.finish_reason, Some(FinishReason::ToolCalls));
        assert_eq!(c.usage.unwrap().prompt_tokens, 42);
        let sent = mock.requests();
        assert_eq!(sent.len(), 2, "the 502 is retried");
        assert!(sent[1].json().unwrap().get("stream").is_none());
    }
}

#[tokio::test]
async fn plain_text_error_body_is_quoted() {
    let mock =
        MockLlm::start(Script::new().then(ErrorReply::new(404, json!("model not found: llama9"))))
            .await
            .unwrap();
    let error = client(Provider::OpenAi, &mock)
        .complete(&request(Provider::OpenAi))
        .await
        .unwrap_err();
    assert_eq!(error.status(), Some(404));
    assert!(
        error.to_string().contains("model not found: llama9"),
        "{error}"
    );
}

/// A server that answers any request with `head` and then `body_len` bytes of `fill`, never
/// ending a line; returns the base URL.
async fn endless_server(head: &'static str, fill: u8, body_len: usize) -> String {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(async move {
        while let Ok((mut socket, _)) = listener.accept().await {
            tokio::spawn(async move {
                let mut request = vec![0u8; 64 * 1024];
                let _ = socket.read(&mut request).await;
                if socket.write_all(head.as_bytes()).await.is_err() {
                    return;
                }
                let piece = vec![fill; 64 * 1024];
                let mut sent = 0;
                while sent < body_len {
                    if socket.write_all(&piece).await.is_err() {
                        return;
                    }
                    sent += piece.len();
                }
            });
        }
    });
    format!("http://{addr}/v1")
}

#[tokio::test]
async fn an_sse_line_that_never_ends_fails_the_stream_naming_the_limit() {
    let limit = braid_llm::sse::MAX_EVENT_BYTES;
    let mut config = ProviderConfig::new(Provider::OpenAi);
    config.base_url = endless_server(
        "HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\nconnection: close\r\n\r\ndata: ",
        b'x',
        limit * 2,
    )
    .await;
    config.retry = RetryPolicy {
        max_retries: 2,
        initial_backoff: Duration::from_millis(1),
        max_backoff: Duration::from_millis(1),
    };
    let client = build_client(config).unwrap();
    let (events, error) = collect(client.as_ref(), &request(Provider::OpenAi)).await;
    // The response started; nothing of an answer came.
    assert_eq!(events, [LlmEvent::Connected]);
    let error = error.expect("the stream fails");
    assert!(
        matches!(error, LlmError::TooLarge { what: "line", limit: l } if l == limit),
        "{error:?}"
    );
    assert_eq!(error.severity(), ErrorSeverity::Fatal);
    assert!(error.to_string().contains(&limit.to_string()), "{error}");
}

#[tokio::test]
async fn a_whole_answer_over_the_limit_is_refused() {
    let limit = braid_llm::MAX_RESPONSE_BYTES;
    let mut config = ProviderConfig::new(Provider::OpenAi);
    config.base_url = endless_server(
        "HTTP/1.1 200 OK\r\ncontent-type: application/json\r\nconnection: close\r\n\r\n",
        b' ',
        limit + 128 * 1024,
    )
    .await;
    let client = build_client(config).unwrap();
    let error = client
        .complete(&request(Provider::OpenAi))
        .await
        .unwrap_err();
    assert!(
        matches!(error, LlmError::TooLarge { what: "body", limit: l } if l == limit),
        "{error:?}"
    );
}
