//! Which provider to talk to, where, with which key and model.

use std::collections::{BTreeMap, HashMap};
use std::fmt;
use std::str::FromStr;
use std::sync::Arc;
use std::time::Duration;

use crate::anthropic::AnthropicClient;
use crate::capabilities::{CapabilityOverride, ModelCapabilities};
use crate::client::LlmClient;
use crate::discovery::{Discovery, ServerReport};
use crate::error::LlmError;
use crate::openai::OpenAiClient;
use crate::retry::RetryPolicy;
use braid_protocol::CapabilitySource;

/// The API a provider speaks.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Provider {
    /// OpenAI chat completions (also Ollama, vLLM, llama.cpp, LM Studio, OpenRouter).
    OpenAi,
    /// Anthropic Messages.
    Anthropic,
}

impl Provider {
    /// The name used in configuration.
    pub fn as_str(self) -> &'static str {
        match self {
            Provider::OpenAi => "openai",
            Provider::Anthropic => "anthropic",
        }
    }

    /// Where the provider's own service is.
    pub fn default_base_url(self) -> &'static str {
        match self {
            Provider::OpenAi => "https://api.openai.com/v1",
            Provider::Anthropic => "https://api.anthropic.com",
        }
    }

    /// The model used when none is configured.
    pub fn default_model(self) -> &'static str {
        match self {
            Provider::OpenAi => "gpt-4o-mini",
            Provider::Anthropic => "claude-sonnet-4-20250514",
        }
    }
}

impl fmt::Display for Provider {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl FromStr for Provider {
    type Err = ConfigError;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s.trim().to_ascii_lowercase().as_str() {
            "openai" => Ok(Provider::OpenAi),
            "anthropic" => Ok(Provider::Anthropic),
            other => Err(ConfigError::UnknownProvider(other.to_owned())),
        }
    }
}

/// A configuration that cannot be used.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ConfigError {
    /// `BRAID_LLM_PROVIDER` names no known provider.
    #[error("unknown LLM provider `{0}`: expected `openai` or `anthropic`")]
    UnknownProvider(String),
    /// The base URL is not an http(s) URL.
    #[error("invalid LLM base URL `{0}`: expected an http:// or https:// URL")]
    InvalidBaseUrl(String),
    /// The model name is empty.
    #[error("the model name is empty")]
    EmptyModel,
    /// `BRAID_MODEL_CAPABILITIES` is not a JSON object of per-model overrides.
    #[error(
        "invalid BRAID_MODEL_CAPABILITIES: {0}; expected a JSON object such as {{\"llava:13b\": {{\"vision\": true, \"context_window\": 4096}}}} (fields: context_window, max_output_tokens, vision, tool_calling: \"native\" or \"prompted\")"
    )]
    InvalidCapabilities(String),
}

/// Everything needed to talk to one provider.
#[derive(Clone, PartialEq)]
pub struct ProviderConfig {
    /// The API it speaks.
    pub provider: Provider,
    /// The API root: for OpenAI-compatible servers including `/v1`
    /// (`http://localhost:11434/v1`); for Anthropic with or without it.
    pub base_url: String,
    /// The key, when the server wants one.
    pub api_key: Option<String>,
    /// The model used by default.
    pub model: String,
    /// Retries of transient failures.
    pub retry: RetryPolicy,
    /// The longest wait for a connection.
    pub connect_timeout: Duration,
    /// The longest wait for the next bytes of an answer.
    pub idle_timeout: Duration,
    /// Per-model corrections of the built-in table, by model name (compared case-insensitively).
    pub capability_overrides: BTreeMap<String, CapabilityOverride>,
}

impl fmt::Debug for ProviderConfig {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // The key is a secret: logs say only whether there is one.
        f.debug_struct("ProviderConfig")
            .field("provider", &self.provider)
            .field("base_url", &self.base_url)
            .field("api_key", &self.api_key.as_ref().map(|_| "<redacted>"))
            .field("model", &self.model)
            .field("retry", &self.retry)
            .field("connect_timeout", &self.connect_timeout)
            .field("idle_timeout", &self.idle_timeout)
            .field("capability_overrides", &self.capability_overrides)
            .finish()
    }
}

impl ProviderConfig {
    /// The defaults for `provider`: its own service, its default model, no key.
    pub fn new(provider: Provider) -> Self {
        Self {
            provider,
            base_url: provider.default_base_url().to_owned(),
            api_key: None,
            model: provider.default_model().to_owned(),
            retry: RetryPolicy::default(),
            connect_timeout: Duration::from_secs(10),
            idle_timeout: Duration::from_secs(120),
            capability_overrides: BTreeMap::new(),
        }
    }

    /// Reads `BRAID_LLM_PROVIDER`, `BRAID_LLM_BASE_URL`, `BRAID_LLM_API_KEY` (falling back to
    /// `OPENAI_API_KEY` or `ANTHROPIC_API_KEY` for the chosen provider), `BRAID_MODEL` and
    /// `BRAID_MODEL_CAPABILITIES` (per-model overrides as JSON) from a map of environment
    /// variables. Without a provider, `anthropic` is chosen when only an
    /// Anthropic key is present, `openai` otherwise. Empty values count as absent.
    pub fn from_env_map(env: &HashMap<String, String>) -> Result<Self, ConfigError> {
        let get = |name: &str| {
            env.get(name)
                .map(|v| v.trim())
                .filter(|v| !v.is_empty())
                .map(str::to_owned)
        };
        let provider = match get("BRAID_LLM_PROVIDER") {
            Some(name) => name.parse()?,
            None if get("BRAID_LLM_API_KEY").is_none()
                && get("OPENAI_API_KEY").is_none()
                && get("ANTHROPIC_API_KEY").is_some() =>
            {
                Provider::Anthropic
            }
            None => Provider::OpenAi,
        };
        let mut config = Self::new(provider);
        if let Some(url) = get("BRAID_LLM_BASE_URL") {
            if !(url.starts_with("http://") || url.starts_with("https://")) {
                return Err(ConfigError::InvalidBaseUrl(url));
            }
            config.base_url = url.trim_end_matches('/').to_owned();
        }
        let fallback = match provider {
            Provider::OpenAi => "OPENAI_API_KEY",
            Provider::Anthropic => "ANTHROPIC_API_KEY",
        };
        config.api_key = get("BRAID_LLM_API_KEY").or_else(|| get(fallback));
        if let Some(model) = get("BRAID_MODEL") {
            config.model = model;
        }
        if let Some(json) = get("BRAID_MODEL_CAPABILITIES") {
            let overrides: BTreeMap<String, CapabilityOverride> = serde_json::from_str(&json)
                .map_err(|e| ConfigError::InvalidCapabilities(e.to_string()))?;
            config.capability_overrides = overrides
                .into_iter()
                .map(|(name, o)| (name.trim().to_ascii_lowercase(), o))
                .collect();
        }
        Ok(config)
    }

    /// [`ProviderConfig::from_env_map`] on the process environment.
    pub fn from_env() -> Result<Self, ConfigError> {
        Self::from_env_map(&std::env::vars().collect())
    }

    /// The capabilities of `model`: the built-in table (or the default), corrected by the
    /// configured override for that model.
    pub fn capabilities_of(&self, model: &str) -> ModelCapabilities {
        self.capabilities_with(model, None)
    }

    /// Discovery for this configuration's server, sending `headers` (the key). It asks only a
    /// server of the operator's own (not the provider's cloud, whose models the table knows).
    pub fn discovery(&self, headers: Vec<(&'static str, String)>) -> Discovery {
        let own_server = self.base_url.trim_end_matches('/')
            != self.provider.default_base_url().trim_end_matches('/');
        Discovery::new(&self.base_url, headers, own_server)
    }

    /// The capabilities of `model` as known now: with the server's report when `discovery`
    /// has one already.
    pub fn capabilities_known(&self, discovery: &Discovery, model: &str) -> ModelCapabilities {
        self.capabilities_with(model, discovery.known(model).as_ref())
    }

    /// The capabilities of `model`, asking its server first when it was not asked yet. The first
    /// time a model falls back to the default window, says so.
    pub async fn capabilities_discovered(
        &self,
        discovery: &Discovery,
        model: &str,
    ) -> ModelCapabilities {
        let (report, first) = discovery.report(model).await;
        let capabilities = self.capabilities_with(model, Some(&report));
        if first && capabilities.sources.context_window == CapabilitySource::Default {
            tracing::warn!(
                model,
                base_url = %self.base_url,
                context_window = capabilities.context_window,
                "neither the table, the model server nor BRAID_MODEL_CAPABILITIES knows this model's context window; assuming the default"
            );
        }
        capabilities
    }

    /// The capabilities of `model` with what its server reported: override > server > table >
    /// default, figure by figure.
    pub fn capabilities_with(
        &self,
        model: &str,
        server: Option<&ServerReport>,
    ) -> ModelCapabilities {
        let mut table = ModelCapabilities::for_model(model);
        if let Some(report) = server {
            table = table.with_server(report);
        }
        match self
            .capability_overrides
            .get(&model.trim().to_ascii_lowercase())
        {
            Some(correction) => table.with_override(correction),
            None => table,
        }
    }
}

/// The client for a configuration, ready to share.
pub fn build_client(config: ProviderConfig) -> Result<Arc<dyn LlmClient>, LlmError> {
    if config.model.trim().is_empty() {
        return Err(LlmError::InvalidRequest {
            detail: ConfigError::EmptyModel.to_string(),
        });
    }
    Ok(match config.provider {
        Provider::OpenAi => Arc::new(OpenAiClient::new(config)?),
        Provider::Anthropic => Arc::new(AnthropicClient::new(config)?),
    })
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
mod tests {
    use super::*;

    fn env(pairs: &[(&str, &str)]) -> HashMap<String, String> {
        pairs
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect()
    }

    #[test]
    fn braid_variables_win_and_provider_keys_are_fallbacks() {
        let c = ProviderConfig::from_env_map(&env(&[
            ("BRAID_LLM_PROVIDER", "anthropic"),
            ("BRAID_LLM_BASE_URL", "http://127.0.0.1:9999/"),
            ("ANTHROPIC_API_KEY", "sk-ant"),
            ("OPENAI_API_KEY", "sk-oa"),
            ("BRAID_MODEL", "claude-3-5-haiku-latest"),
        ]))
        .unwrap();
        assert_eq!(c.provider, Provider::Anthropic);
        assert_eq!(c.base_url, "http://127.0.0.1:9999");
        assert_eq!(c.api_key.as_deref(), Some("sk-ant"));
        assert_eq!(c.model, "claude-3-5-haiku-latest");

        let c = ProviderConfig::from_env_map(&env(&[
            ("BRAID_LLM_API_KEY", "braid-key"),
            ("OPENAI_API_KEY", "sk-oa"),
        ]))
        .unwrap();
        assert_eq!(c.provider, Provider::OpenAi);
        assert_eq!(c.api_key.as_deref(), Some("braid-key"));
        assert_eq!(c.base_url, "https://api.openai.com/v1");
    }

    #[test]
    fn only_an_anthropic_key_chooses_anthropic() {
        let c = ProviderConfig::from_env_map(&env(&[("ANTHROPIC_API_KEY", "k")])).unwrap();
        assert_eq!(c.provider, Provider::Anthropic);
        assert_eq!(c.model, Provider::Anthropic.default_model());
    }

    #[test]
    fn bad_provider_and_url_are_named_in_the_error() {
        let e =
            ProviderConfig::from_env_map(&env(&[("BRAID_LLM_PROVIDER", "gemini")])).unwrap_err();
        assert!(e.to_string().contains("`gemini`"));
        let e = ProviderConfig::from_env_map(&env(&[("BRAID_LLM_BASE_URL", "localhost:8080")]))
            .unwrap_err();
        assert_eq!(e, ConfigError::InvalidBaseUrl("localhost:8080".into()));
    }

    #[test]
    fn debug_output_hides_the_key() {
        let mut c = ProviderConfig::new(Provider::OpenAi);
        c.api_key = Some("sk-secret".into());
        assert!(!format!("{c:?}").contains("sk-secret"));
    }

    #[test]
    fn capability_override_applies_to_its_model_only() {
        let c = ProviderConfig::from_env_map(&env(&[(
            "BRAID_MODEL_CAPABILITIES",
            r#"{"My-Local": {"context_window": 1234, "vision": true}}"#,
        )]))
        .unwrap();
        let caps = c.capabilities_of("my-local");
        assert_eq!(caps.context_window, 1234);
        assert!(caps.vision);
        assert_eq!(
            caps.sources.vision,
            braid_protocol::CapabilitySource::Override
        );
        assert_ne!(c.capabilities_of("other").context_window, 1234);
    }

    #[test]
    fn a_bad_capability_override_is_named() {
        let e = ProviderConfig::from_env_map(&env(&[(
            "BRAID_MODEL_CAPABILITIES",
            r#"{"m": {"vison": true}}"#,
        )]))
        .unwrap_err();
        assert!(e.to_string().contains("vison"), "{e}");
    }
}
