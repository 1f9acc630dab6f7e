//! Discovery over real HTTP against braid-testkit's mock LLM playing llama.cpp, Ollama and
//! vLLM: what each reports becomes the model's figures (source `server`), overrides still win,
//! a server without discovery endpoints leaves the table, and unknown models get 8,192 tokens.

use std::sync::Arc;

use braid_llm::{CapabilityOverride, LlmClient, Provider, ProviderConfig, build_client};
use braid_protocol::{CapabilitySource, ToolCalling};
use braid_testkit::{DiscoveryReply, MockLlm, Script, ServerKind};

fn client(provider: Provider, mock: &MockLlm, model: &str) -> Arc<dyn LlmClient> {
    let mut config = ProviderConfig::new(provider);
    config.base_url = match provider {
        Provider::OpenAi => mock.openai_base_url(),
        Provider::Anthropic => mock.url(),
    };
    config.api_key = Some("test-key".into());
    config.model = model.into();
    build_client(config).unwrap()
}

async fn mock(reply: Option<DiscoveryReply>) -> MockLlm {
    let mut script = Script::new();
    script.discovery = reply;
    MockLlm::start(script).await.unwrap()
}

#[tokio::test]
async fn llama_cpp_props_give_the_window_and_vision() {
    let mock = mock(Some(
        DiscoveryReply::new(ServerKind::LlamaCpp, "my-gguf", 4096).with_vision(),
    ))
    .await;
    let llm = client(Provider::OpenAi, &mock, "my-gguf");
    let caps = llm.discover("my-gguf").await;
    assert_eq!(caps.context_window, 4096);
    assert_eq!(caps.sources.context_window, CapabilitySource::Server);
    assert!(caps.vision);
    assert_eq!(caps.sources.vision, CapabilitySource::Server);
    // llama.cpp does not say whether the model calls tools: that stays the default's.
    assert_eq!(caps.sources.tool_calling, CapabilitySource::Default);
    // The answer stays known to the synchronous reading, and nothing was used of the script.
    assert_eq!(llm.capabilities("my-gguf").context_window, 4096);
    assert_eq!(mock.request_count(), 0);
    let asked: Vec<String> = mock
        .discovery_requests()
        .iter()
        .map(|r| format!("{} {}", r.method, r.path))
        .collect();
    assert!(asked.contains(&"GET /props".to_owned()), "{asked:?}");
    assert_eq!(
        mock.discovery_requests()[0].header("authorization"),
        Some("Bearer test-key")
    );
}

#[tokio::test]
async fn ollama_show_gives_the_window_vision_and_tools_for_the_model_in_use() {
    let mock = mock(Some(
        DiscoveryReply::new(ServerKind::Ollama, "llava:13b", 32_768)
            .with_vision()
            .with_tools(),
    ))
    .await;
    let llm = client(Provider::OpenAi, &mock, "llava:13b");
    let caps = llm.discover("llava:13b").await;
    assert_eq!(caps.context_window, 32_768);
    assert!(caps.vision);
    assert_eq!(caps.tool_calling, ToolCalling::Native);
    assert_eq!(caps.sources.tool_calling, CapabilitySource::Server);
    let show = mock
        .discovery_requests()
        .into_iter()
        .find(|r| r.path == "/api/show")
        .unwrap();
    assert_eq!(show.method, "POST");
    assert_eq!(show.json().unwrap()["model"], "llava:13b");

    // Another model on the same server: Ollama does not know it, so the table decides.
    let other = llm.discover("gpt-4o").await;
    assert_eq!(other.context_window, 128_000);
    assert_eq!(other.sources.context_window, CapabilitySource::Table);
}

#[tokio::test]
async fn a_server_without_tool_calling_makes_the_model_prompted_unless_overridden() {
    // llama.cpp: the chat template renders no tool calls.
    let llama = mock(Some(
        DiscoveryReply::new(ServerKind::LlamaCpp, "smollm2", 8192).without_tools(),
    ))
    .await;
    let caps = client(Provider::OpenAi, &llama, "smollm2")
        .discover("smollm2")
        .await;
    assert_eq!(caps.tool_calling, ToolCalling::Prompted);
    assert_eq!(caps.sources.tool_calling, CapabilitySource::Server);

    // Ollama: `tools` is missing from the model's capabilities.
    let ollama = mock(Some(DiscoveryReply::new(
        ServerKind::Ollama,
        "gemma3:1b",
        32_768,
    )))
    .await;
    let llm = client(Provider::OpenAi, &ollama, "gemma3:1b");
    assert_eq!(
        llm.discover("gemma3:1b").await.tool_calling,
        ToolCalling::Prompted
    );

    // The operator's override wins over what the server says.
    let mut config = ProviderConfig::new(Provider::OpenAi);
    config.base_url = ollama.openai_base_url();
    config.model = "gemma3:1b".into();
    config.capability_overrides.insert(
        "gemma3:1b".into(),
        CapabilityOverride {
            tool_calling: Some(ToolCalling::Native),
            ..CapabilityOverride::default()
        },
    );
    let caps = build_client(config).unwrap().discover("gemma3:1b").await;
    assert_eq!(caps.tool_calling, ToolCalling::Native);
    assert_eq!(caps.sources.tool_calling, CapabilitySource::Override);
}

#[tokio::test]
async fn vllm_models_give_the_matching_max_model_len() {
    let mock = mock(Some(DiscoveryReply::new(
        ServerKind::Vllm,
        "Qwen/Qwen2.5-7B-Instruct",
        16_384,
    )))
    .await;
    let llm = client(Provider::OpenAi, &mock, "Qwen/Qwen2.5-7B-Instruct");
    let caps = llm.discover("Qwen/Qwen2.5-7B-Instruct").await;
    assert_eq!(caps.context_window, 16_384);
    assert_eq!(caps.sources.context_window, CapabilitySource::Server);
    // vLLM says nothing of vision: the table's Qwen 2.5 entry decides.
    assert_eq!(caps.sources.vision, CapabilitySource::Table);
}

#[tokio::test]
async fn a_model_is_discovered_once_per_client() {
    let mock = mock(Some(DiscoveryReply::new(ServerKind::Vllm, "m", 4096))).await;
    let llm = client(Provider::OpenAi, &mock, "m");
    llm.discover("m").await;
    let first = mock.discovery_requests().len();
    assert_eq!(first, 3, "the three kinds are asked once each");
    llm.discover("m").await;
    llm.discover("M").await;
    assert_eq!(mock.discovery_requests().len(), first);
}

#[tokio::test]
async fn an_override_wins_over_the_server() {
    let mock = mock(Some(DiscoveryReply::new(
        ServerKind::LlamaCpp,
        "my-gguf",
        4096,
    )))
    .await;
    let mut config = ProviderConfig::new(Provider::OpenAi);
    config.base_url = mock.openai_base_url();
    config.model = "my-gguf".into();
    config.capability_overrides.insert(
        "my-gguf".into(),
        CapabilityOverride {
            context_window: Some(2048),
            ..CapabilityOverride::default()
        },
    );
    let llm = build_client(config).unwrap();
    let caps = llm.discover("my-gguf").await;
    assert_eq!(caps.context_window, 2048);
    assert_eq!(caps.sources.context_window, CapabilitySource::Override);
    // The server's other figure still counts.
    assert_eq!(caps.sources.vision, CapabilitySource::Server);
}

#[tokio::test]
async fn a_server_without_discovery_keeps_the_table_value() {
    let mock = mock(None).await;
    let llm = client(Provider::OpenAi, &mock, "qwen2.5:7b");
    let caps = llm.discover("qwen2.5:7b").await;
    assert_eq!(caps.context_window, 32_768);
    assert_eq!(caps.sources.context_window, CapabilitySource::Table);
    assert_eq!(mock.discovery_requests().len(), 3);
}

#[tokio::test]
async fn an_unknown_model_on_a_silent_server_gets_the_8192_default() {
    let mock = mock(None).await;
    let llm = client(Provider::Anthropic, &mock, "my-finetune");
    let caps = llm.discover("my-finetune").await;
    assert_eq!(caps.context_window, 8192);
    assert_eq!(caps.sources.context_window, CapabilitySource::Default);
    let view = caps.view("my-finetune");
    assert_eq!(view.context_window.source, CapabilitySource::Default);
    assert_eq!(view.context_window.value, 8192);
}

#[tokio::test]
async fn a_server_that_is_not_there_leaves_the_other_sources() {
    // A port nothing listens on: refused at once, and the figures come from the table.
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = listener.local_addr().unwrap();
    drop(listener);
    let mut config = ProviderConfig::new(Provider::OpenAi);
    config.base_url = format!("http://{addr}/v1");
    let llm = build_client(config).unwrap();
    let caps = llm.discover("gpt-4o").await;
    assert_eq!(caps.context_window, 128_000);
    assert_eq!(caps.sources.context_window, CapabilitySource::Table);
}
