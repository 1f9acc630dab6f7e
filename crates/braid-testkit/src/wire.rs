//! How a scripted answer looks on the wire in each API: SSE events for streams, one JSON
//! document otherwise.

use std::collections::BTreeMap;
use std::time::Duration;

use serde_json::{Value, json};

use crate::script::{Chunk, DiscoveryReply, FinishKind, ServerKind, StreamReply};

/// The API a request was made to, known from its path.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Api {
    /// `POST /v1/chat/completions`.
    OpenAi,
    /// `POST /v1/messages`.
    Anthropic,
}

impl Api {
    /// The API served at `path` (with or without the `/v1` prefix).
    pub fn from_path(path: &str) -> Option<Self> {
        let path = path.trim_end_matches('/');
        let path = path.strip_prefix("/v1").unwrap_or(path);
        match path {
            "/chat/completions" => Some(Api::OpenAi),
            "/messages" => Some(Api::Anthropic),
            _ => None,
        }
    }

    fn finish_word(self, reason: FinishKind) -> &'static str {
        match (self, reason) {
            (Api::OpenAi, FinishKind::Stop) => "stop",
            (Api::OpenAi, FinishKind::Length) => "length",
            (Api::OpenAi, FinishKind::ToolCalls) => "tool_calls",
            (Api::Anthropic, FinishKind::Stop) => "end_turn",
            (Api::Anthropic, FinishKind::Length) => "max_tokens",
            (Api::Anthropic, FinishKind::ToolCalls) => "tool_use",
        }
    }
}

/// A model server's discovery endpoint, known from its method and path.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DiscoveryEndpoint {
    /// llama.cpp's `GET /props`.
    Props,
    /// Ollama's `POST /api/show`.
    Show,
    /// `GET /v1/models` (OpenAI-compatible servers).
    Models,
}

impl DiscoveryEndpoint {
    /// The discovery endpoint at `method` `path`, if it is one.
    pub fn from_request(method: &str, path: &str) -> Option<Self> {
        match (method, path.trim_end_matches('/')) {
            ("GET", "/props") => Some(Self::Props),
            ("POST", "/api/show") => Some(Self::Show),
            ("GET", "/v1/models" | "/models") => Some(Self::Models),
            _ => None,
        }
    }
}

/// The answer of `endpoint` for a server playing `reply`, in that server's shape; `None` where
/// the real server answers 404 (another server's endpoint, another model).
pub fn discovery_answer(
    reply: &DiscoveryReply,
    endpoint: DiscoveryEndpoint,
    request: Option<&Value>,
) -> Option<Value> {
    let model = reply.model.as_str();
    match (reply.server, endpoint) {
        (ServerKind::LlamaCpp, DiscoveryEndpoint::Props) => {
            let mut props = json!({
                "default_generation_settings": {
                    "n_ctx": reply.context_window,
                    "params": { "temperature": 0.8, "top_k": 40, "top_p": 0.95 }
                },
                "total_slots": 1,
                "model_path": format!("/models/{model}.gguf"),
                "chat_template": "{{ messages }}",
                "modalities": { "vision": reply.vision, "audio": false },
                "build_info": "braid-mock-llm"
            });
            if let Some(tools) = reply.tools {
                // The keys of llama.cpp's `common_chat_templates` capabilities.
                props["chat_template_caps"] = json!({
                    "supports_tools": tools,
                    "supports_tool_calls": tools,
                    "supports_tool_responses": tools,
                    "supports_system_role": true,
                    "supports_parallel_tool_calls": tools,
                    "requires_typed_content": false
                });
            }
            Some(props)
        }
        (ServerKind::Ollama, DiscoveryEndpoint::Show) => {
            let asked = request
                .and_then(|b| b.get("model").or_else(|| b.get("name")))
                .and_then(Value::as_str)?;
            if asked != model {
                return None;
            }
            let mut capabilities = vec!["completion"];
            if reply.tools == Some(true) {
                capabilities.push("tools");
            }
            if reply.vision {
                capabilities.push("vision");
            }
            Some(json!({
                "modelfile": format!("FROM {model}"),
                "parameters": "stop \"<|eot_id|>\"",
                "template": "{{ .Prompt }}",
                "details": { "format": "gguf", "family": "llama", "parameter_size": "8.0B", "quantization_level": "Q4_K_M" },
                "model_info": {
                    "general.architecture": "llama",
                    "general.parameter_count": 8_030_261_248_u64,
                    "llama.context_length": reply.context_window,
                    "llama.embedding_length": 4096
                },
                "capabilities": capabilities,
                "modified_at": "2025-01-01T00:00:00Z"
            }))
        }
        (ServerKind::Vllm, DiscoveryEndpoint::Models) => Some(json!({
            "object": "list",
            "data": [{
                "id": model,
                "object": "model",
                "created": 1_735_689_600,
                "owned_by": "vllm",
                "root": model,
                "parent": null,
                "max_model_len": reply.context_window,
                "permission": []
            }]
        })),
        (ServerKind::LlamaCpp, DiscoveryEndpoint::Models) => Some(json!({
            "object": "list",
            "data": [{
                "id": model,
                "object": "model",
                "created": 1_735_689_600,
                "owned_by": "llamacpp",
                "meta": { "n_ctx_train": reply.context_window.saturating_mul(4), "n_vocab": 128_256 }
            }]
        })),
        (ServerKind::Ollama, DiscoveryEndpoint::Models) => Some(json!({
            "object": "list",
            "data": [{ "id": model, "object": "model", "created": 1_735_689_600, "owned_by": "library" }]
        })),
        _ => None,
    }
}

/// What the server does next while answering.
#[derive(Clone, Debug, PartialEq)]
pub enum Step {
    /// Send these bytes.
    Send(String),
    /// Wait.
    Pause(Duration),
    /// Break the connection.
    Cut,
    /// Never send anything again.
    Hang,
}

/// The steps of a streamed answer in `api`'s format.
pub fn stream_steps(api: Api, reply: &StreamReply, model: &str) -> Vec<Step> {
    let mut steps = Vec::new();
    let mut anthropic = AnthropicStream::new(model, reply);
    if api == Api::OpenAi {
        steps.push(Step::Send(openai_event(
            model,
            json!([{ "index": 0, "delta": { "role": "assistant", "content": null }, "finish_reason": null }]),
        )));
    } else {
        steps.push(Step::Send(anthropic.start()));
    }
    for chunk in &reply.chunks {
        if reply.chunk_delay_ms > 0 {
            steps.push(Step::Pause(Duration::from_millis(reply.chunk_delay_ms)));
        }
        match chunk {
            Chunk::Delay { ms } => steps.push(Step::Pause(Duration::from_millis(*ms))),
            Chunk::Cut => {
                steps.push(Step::Cut);
                return steps;
            }
            Chunk::Hang => {
                steps.push(Step::Hang);
                return steps;
            }
            other => {
                let text = match api {
                    Api::OpenAi => openai_chunk(model, other),
                    Api::Anthropic => anthropic.chunk(other),
                };
                if !text.is_empty() {
                    steps.push(Step::Send(text));
                }
            }
        }
    }
    steps.push(Step::Send(match api {
        Api::OpenAi => "data: [DONE]\n\n".to_owned(),
        Api::Anthropic => anthropic.end(),
    }));
    steps
}

fn openai_event(model: &str, choices: Value) -> String {
    let chunk = json!({
        "id": "chatcmpl-mock",
        "object": "chat.completion.chunk",
        "created": 0,
        "model": model,
        "choices": choices,
    });
    format!("data: {chunk}\n\n")
}

fn openai_delta(model: &str, delta: Value) -> String {
    openai_event(
        model,
        json!([{ "index": 0, "delta": delta, "finish_reason": null }]),
    )
}

fn openai_chunk(model: &str, chunk: &Chunk) -> String {
    match chunk {
        Chunk::Text { text } => openai_delta(model, json!({ "content": text })),
        Chunk::Reasoning { text } => openai_delta(model, json!({ "reasoning_content": text })),
        Chunk::ToolCallStart { index, id, name } => openai_delta(
            model,
            json!({ "tool_calls": [{ "index": index, "id": id, "type": "function", "function": { "name": name, "arguments": "" } }] }),
        ),
        Chunk::ToolCallArgs { index, delta } => openai_delta(
            model,
            json!({ "tool_calls": [{ "index": index, "function": { "arguments": delta } }] }),
        ),
        Chunk::Usage {
            prompt_tokens,
            completion_tokens,
            cached_tokens,
        } => {
            let chunk = json!({
                "id": "chatcmpl-mock",
                "object": "chat.completion.chunk",
                "created": 0,
                "model": model,
                "choices": [],
                "usage": {
                    "prompt_tokens": prompt_tokens,
                    "completion_tokens": completion_tokens,
                    "total_tokens": prompt_tokens + completion_tokens,
                    "prompt_tokens_details": { "cached_tokens": cached_tokens },
                },
            });
            format!("data: {chunk}\n\n")
        }
        Chunk::Finish { reason } => openai_event(
            model,
            json!([{ "index": 0, "delta": {}, "finish_reason": Api::OpenAi.finish_word(*reason) }]),
        ),
        Chunk::ProviderError {
            error_type,
            message,
        } => format!(
            "data: {}\n\n",
            json!({ "error": { "message": message, "type": error_type } })
        ),
        Chunk::Ping => ": ping\n\n".to_owned(),
        Chunk::Raw { data } => format!("data: {data}\n\n"),
        Chunk::Delay { .. } | Chunk::Cut | Chunk::Hang => String::new(),
    }
}

#[derive(Clone, Copy, PartialEq)]
enum BlockKind {
    Text,
    Thinking,
}

/// Anthropic's stream is stateful: content blocks are opened and closed around the deltas.
struct AnthropicStream<'a> {
    model: &'a str,
    prompt_tokens: u32,
    cached_tokens: u32,
    output_tokens: u32,
    next_block: u32,
    /// The open text or thinking block.
    open_block: Option<(u32, BlockKind)>,
    /// Open tool_use blocks by the script's call index.
    tool_blocks: BTreeMap<u32, u32>,
    finished: bool,
}

fn anthropic_event(name: &str, data: Value) -> String {
    format!("event: {name}\ndata: {data}\n\n")
}

impl<'a> AnthropicStream<'a> {
    fn new(model: &'a str, reply: &StreamReply) -> Self {
        // message_start carries the prompt tokens, which the script gives in a later chunk;
        // Anthropic counts cached ones apart from `input_tokens`.
        let (prompt_tokens, cached_tokens) = reply
            .chunks
            .iter()
            .find_map(|c| match c {
                Chunk::Usage {
                    prompt_tokens,
                    cached_tokens,
                    ..
                } => Some((*prompt_tokens, *cached_tokens)),
                _ => None,
            })
            .unwrap_or((0, 0));
        Self {
            model,
            prompt_tokens,
            cached_tokens,
            output_tokens: 0,
            next_block: 0,
            open_block: None,
            tool_blocks: BTreeMap::new(),
            finished: false,
        }
    }

    fn start(&self) -> String {
        anthropic_event(
            "message_start",
            json!({ "type": "message_start", "message": {
                "id": "msg_mock", "type": "message", "role": "assistant", "content": [],
                "model": self.model, "stop_reason": null, "stop_sequence": null,
                "usage": {
                    "input_tokens": self.prompt_tokens.saturating_sub(self.cached_tokens),
                    "cache_read_input_tokens": self.cached_tokens,
                    "output_tokens": 1,
                },
            } }),
        )
    }

    fn close_open_block(&mut self) -> String {
        match self.open_block.take() {
            Some((index, _)) => anthropic_event(
                "content_block_stop",
                json!({ "type": "content_block_stop", "index": index }),
            ),
            None => String::new(),
        }
    }

    fn delta_in(&mut self, kind: BlockKind, delta: Value) -> String {
        let mut out = String::new();
        let index = match self.open_block {
            Some((index, open)) if open == kind => index,
            _ => {
                out.push_str(&self.close_open_block());
                let index = self.next_block;
                self.next_block += 1;
                self.open_block = Some((index, kind));
                let block = match kind {
                    BlockKind::Text => json!({ "type": "text", "text": "" }),
                    BlockKind::Thinking => json!({ "type": "thinking", "thinking": "" }),
                };
                out.push_str(&anthropic_event(
                    "content_block_start",
                    json!({ "type": "content_block_start", "index": index, "content_block": block }),
                ));
                index
            }
        };
        out.push_str(&anthropic_event(
            "content_block_delta",
            json!({ "type": "content_block_delta", "index": index, "delta": delta }),
        ));
        out
    }

    fn chunk(&mut self, chunk: &Chunk) -> String {
        match chunk {
            Chunk::Text { text } => self.delta_in(
                BlockKind::Text,
                json!({ "type": "text_delta", "text": text }),
            ),
            Chunk::Reasoning { text } => self.delta_in(
                BlockKind::Thinking,
                json!({ "type": "thinking_delta", "thinking": text }),
            ),
            Chunk::ToolCallStart { index, id, name } => {
                let mut out = self.close_open_block();
                let block = self.next_block;
                self.next_block += 1;
                self.tool_blocks.insert(*index, block);
                out.push_str(&anthropic_event(
                    "content_block_start",
                    json!({ "type": "content_block_start", "index": block, "content_block": {
                        "type": "tool_use", "id": id, "name": name, "input": {},
                    } }),
                ));
                out
            }
            Chunk::ToolCallArgs { index, delta } => {
                // Arguments for a call never started go to a block index of its own, which a
                // client must reject: scripts can test that too.
                let block = self
                    .tool_blocks
                    .get(index)
                    .copied()
                    .unwrap_or(10_000 + index);
                anthropic_event(
                    "content_block_delta",
                    json!({ "type": "content_block_delta", "index": block, "delta": {
                        "type": "input_json_delta", "partial_json": delta,
                    } }),
                )
            }
            Chunk::Usage {
                completion_tokens, ..
            } => {
                self.output_tokens = *completion_tokens;
                String::new()
            }
            Chunk::Finish { reason } => {
                let mut out = self.close_all();
                out.push_str(&anthropic_event(
                    "message_delta",
                    json!({ "type": "message_delta",
                        "delta": { "stop_reason": Api::Anthropic.finish_word(*reason), "stop_sequence": null },
                        "usage": { "output_tokens": self.output_tokens } }),
                ));
                out
            }
            Chunk::ProviderError {
                error_type,
                message,
            } => anthropic_event(
                "error",
                json!({ "type": "error", "error": { "type": error_type, "message": message } }),
            ),
            Chunk::Ping => anthropic_event("ping", json!({ "type": "ping" })),
            Chunk::Raw { data } => format!("data: {data}\n\n"),
            Chunk::Delay { .. } | Chunk::Cut | Chunk::Hang => String::new(),
        }
    }

    fn close_all(&mut self) -> String {
        let mut out = self.close_open_block();
        for block in std::mem::take(&mut self.tool_blocks).into_values() {
            out.push_str(&anthropic_event(
                "content_block_stop",
                json!({ "type": "content_block_stop", "index": block }),
            ));
        }
        out
    }

    fn end(&mut self) -> String {
        let mut out = String::new();
        if !self.finished {
            out.push_str(&self.close_all());
            self.finished = true;
        }
        out.push_str(&anthropic_event(
            "message_stop",
            json!({ "type": "message_stop" }),
        ));
        out
    }
}

/// A non-streamed answer.
#[derive(Clone, Debug, PartialEq)]
pub enum WholeAnswer {
    /// Status 200 with this JSON.
    Json(Value),
    /// An HTTP error with this JSON body (a scripted in-stream error).
    Error(u16, Value),
    /// Wait first, then answer (the script's delays, summed).
    Delayed(Duration, Box<WholeAnswer>),
    /// Break the connection.
    Cut,
    /// Never answer.
    Hang,
}

/// The chunks folded into one answer in `api`'s format.
pub fn whole_answer(api: Api, reply: &StreamReply, model: &str) -> WholeAnswer {
    let mut text = String::new();
    let mut reasoning = String::new();
    let mut calls: BTreeMap<u32, (String, String, String)> = BTreeMap::new();
    let mut usage = (0, 0);
    let mut finish = None;
    let mut delay = Duration::from_millis(reply.chunk_delay_ms * reply.chunks.len() as u64);
    for chunk in &reply.chunks {
        match chunk {
            Chunk::Text { text: t } => text.push_str(t),
            Chunk::Reasoning { text: t } => reasoning.push_str(t),
            Chunk::ToolCallStart { index, id, name } => {
                calls.insert(*index, (id.clone(), name.clone(), String::new()));
            }
            Chunk::ToolCallArgs { index, delta } => {
                if let Some(call) = calls.get_mut(index) {
                    call.2.push_str(delta);
                }
            }
            Chunk::Usage {
                prompt_tokens,
                completion_tokens,
                ..
            } => usage = (*prompt_tokens, *completion_tokens),
            Chunk::Finish { reason } => finish = Some(*reason),
            Chunk::ProviderError {
                error_type,
                message,
            } => {
                let body = match api {
                    Api::OpenAi => json!({ "error": { "message": message, "type": error_type } }),
                    Api::Anthropic => {
                        json!({ "type": "error", "error": { "type": error_type, "message": message } })
                    }
                };
                return WholeAnswer::Error(500, body);
            }
            Chunk::Delay { ms } => delay += Duration::from_millis(*ms),
            Chunk::Cut => return WholeAnswer::Cut,
            Chunk::Hang => return WholeAnswer::Hang,
            Chunk::Ping | Chunk::Raw { .. } => {}
        }
    }
    let finish = finish.unwrap_or(if calls.is_empty() {
        FinishKind::Stop
    } else {
        FinishKind::ToolCalls
    });
    let body = match api {
        Api::OpenAi => {
            let mut message = json!({
                "role": "assistant",
                "content": if text.is_empty() { Value::Null } else { Value::String(text) },
            });
            if !reasoning.is_empty() {
                message["reasoning_content"] = json!(reasoning);
            }
            if !calls.is_empty() {
                message["tool_calls"] = calls
                    .values()
                    .map(|(id, name, args)| {
                        json!({ "id": id, "type": "function", "function": { "name": name, "arguments": args } })
                    })
                    .collect();
            }
            json!({
                "id": "chatcmpl-mock",
                "object": "chat.completion",
                "created": 0,
                "model": model,
                "choices": [{ "index": 0, "message": message, "finish_reason": Api::OpenAi.finish_word(finish) }],
                "usage": { "prompt_tokens": usage.0, "completion_tokens": usage.1, "total_tokens": usage.0 + usage.1 },
            })
        }
        Api::Anthropic => {
            let mut content = Vec::new();
            if !reasoning.is_empty() {
                content.push(json!({ "type": "thinking", "thinking": reasoning }));
            }
            if !text.is_empty() {
                content.push(json!({ "type": "text", "text": text }));
            }
            for (id, name, args) in calls.values() {
                // Real servers always send an object; the mock keeps what the script says when
                // it parses, so a client's handling of odd input can be tested.
                let input = serde_json::from_str::<Value>(args).unwrap_or(json!({}));
                content.push(json!({ "type": "tool_use", "id": id, "name": name, "input": input }));
            }
            json!({
                "id": "msg_mock",
                "type": "message",
                "role": "assistant",
                "model": model,
                "content": content,
                "stop_reason": Api::Anthropic.finish_word(finish),
                "stop_sequence": null,
                "usage": { "input_tokens": usage.0, "output_tokens": usage.1 },
            })
        }
    };
    if delay.is_zero() {
        WholeAnswer::Json(body)
    } else {
        WholeAnswer::Delayed(delay, Box::new(WholeAnswer::Json(body)))
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
mod tests {
    use super::*;

    fn sent(steps: &[Step]) -> String {
        steps
            .iter()
            .filter_map(|s| match s {
                Step::Send(t) => Some(t.as_str()),
                _ => None,
            })
            .collect()
    }

    #[test]
    fn paths_choose_the_api() {
        assert_eq!(Api::from_path("/v1/chat/completions"), Some(Api::OpenAi));
        assert_eq!(Api::from_path("/messages"), Some(Api::Anthropic));
        assert_eq!(Api::from_path("/v1/embeddings"), None);
    }

    #[test]
    fn openai_stream_ends_with_done_unless_cut() {
        let reply = StreamReply::new().text("a").finish(FinishKind::Stop);
        let steps = stream_steps(Api::OpenAi, &reply, "m");
        assert!(sent(&steps).ends_with("data: [DONE]\n\n"));
        let cut = stream_steps(
            Api::OpenAi,
            &StreamReply::new().text("a").cut().text("b"),
            "m",
        );
        assert_eq!(cut.last(), Some(&Step::Cut));
        assert!(!sent(&cut).contains("[DONE]"));
        assert!(!sent(&cut).contains("\"b\""));
    }

    #[test]
    fn anthropic_stream_opens_and_closes_blocks_around_deltas() {
        let reply = StreamReply::new()
            .text("Hi")
            .tool_call(0, "t1", "read")
            .tool_args(0, "{}")
            .usage(7, 3)
            .finish(FinishKind::ToolCalls);
        let text = sent(&stream_steps(Api::Anthropic, &reply, "claude"));
        let names: Vec<&str> = text
            .lines()
            .filter_map(|l| l.strip_prefix("event: "))
            .collect();
        assert_eq!(
            names,
            [
                "message_start",
                "content_block_start",
                "content_block_delta",
                "content_block_stop",
                "content_block_start",
                "content_block_delta",
                "content_block_stop",
                "message_delta",
                "message_stop"
            ]
        );
        assert!(text.contains("\"input_tokens\":7"));
        assert!(text.contains("\"stop_reason\":\"tool_use\""));
    }

    #[test]
    fn whole_answers_fold_the_chunks() {
        let reply = StreamReply::new()
            .text("He")
            .text("llo")
            .tool_call(0, "c", "f")
            .tool_args(0, "{\"a\":")
            .tool_args(0, "1}")
            .usage(2, 3)
            .finish(FinishKind::ToolCalls);
        let WholeAnswer::Json(openai) = whole_answer(Api::OpenAi, &reply, "m") else {
            panic!()
        };
        assert_eq!(openai["choices"][0]["message"]["content"], "Hello");
        assert_eq!(
            openai["choices"][0]["message"]["tool_calls"][0]["function"]["arguments"],
            "{\"a\":1}"
        );
        let WholeAnswer::Json(anthropic) = whole_answer(Api::Anthropic, &reply, "m") else {
            panic!()
        };
        assert_eq!(anthropic["content"][1]["input"]["a"], 1);
        assert_eq!(anthropic["stop_reason"], "tool_use");
    }

    #[test]
    fn discovery_answers_in_the_played_servers_shape_and_404_elsewhere() {
        let script = crate::Script::from_json(
            r#"{"responses": [], "discovery": {"server": "ollama", "model": "llava:13b", "context_window": 4096, "vision": true}}"#,
        )
        .unwrap();
        let reply = script.discovery.unwrap();
        let asked = json!({ "model": "llava:13b" });
        let show = discovery_answer(&reply, DiscoveryEndpoint::Show, Some(&asked)).unwrap();
        assert_eq!(show["model_info"]["llama.context_length"], 4096);
        assert_eq!(show["capabilities"], json!(["completion", "vision"]));
        let other = json!({ "model": "other" });
        assert!(discovery_answer(&reply, DiscoveryEndpoint::Show, Some(&other)).is_none());
        assert!(discovery_answer(&reply, DiscoveryEndpoint::Props, None).is_none());
        let models = discovery_answer(&reply, DiscoveryEndpoint::Models, None).unwrap();
        assert!(models["data"][0].get("max_model_len").is_none());

        let llama = DiscoveryReply::new(ServerKind::LlamaCpp, "m", 2048).with_vision();
        let props = discovery_answer(&llama, DiscoveryEndpoint::Props, None).unwrap();
        assert_eq!(props["default_generation_settings"]["n_ctx"], 2048);
        assert_eq!(props["modalities"]["vision"], true);
        assert!(props.get("chat_template_caps").is_none());
        let plain = DiscoveryReply::new(ServerKind::LlamaCpp, "m", 2048).without_tools();
        let props = discovery_answer(&plain, DiscoveryEndpoint::Props, None).unwrap();
        assert_eq!(props["chat_template_caps"]["supports_tool_calls"], false);
        let vllm = DiscoveryReply::new(ServerKind::Vllm, "m", 2048);
        let models = discovery_answer(&vllm, DiscoveryEndpoint::Models, None).unwrap();
        assert_eq!(models["data"][0]["max_model_len"], 2048);
        assert_eq!(
            DiscoveryEndpoint::from_request("GET", "/v1/models"),
            Some(DiscoveryEndpoint::Models)
        );
        assert_eq!(DiscoveryEndpoint::from_request("GET", "/api/show"), None);
        assert!(
            crate::Script::from_json(
                r#"{"responses": [], "discovery": {"server": "tgi", "context_window": 1}}"#
            )
            .unwrap_err()
            .contains("tgi")
        );
    }
}
