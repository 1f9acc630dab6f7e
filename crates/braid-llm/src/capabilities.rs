//! What a model can do: a built-in table of common models, a default for the rest, and the
//! operator's per-model overrides; each figure remembers where it came from.

use braid_protocol::{
    CapabilitySource, CountFigure, FlagFigure, ModelCapabilitiesView, ToolCalling,
    ToolCallingFigure,
};
use serde::{Deserialize, Serialize};

/// The tokenizer a model uses, for estimating token counts.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum TokenizerFamily {
    /// OpenAI's `o200k_base` (gpt-4o, gpt-4.1, o-series).
    O200kBase,
    /// OpenAI's `cl100k_base` (gpt-4, gpt-3.5).
    Cl100kBase,
    /// Anthropic's Claude tokenizer.
    Claude,
    /// Llama 3's tokenizer.
    Llama3,
    /// Qwen's tokenizer.
    Qwen,
    /// Gemma's tokenizer.
    Gemma,
    /// Mistral's tokenizer.
    Mistral,
    /// Not known: estimate from characters.
    Unknown,
}

/// What a model can do.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ModelCapabilities {
    /// Tokens of prompt plus answer the model accepts.
    pub context_window: u32,
    /// The most tokens it generates in one answer.
    pub max_output_tokens: u32,
    /// Whether it accepts images.
    pub vision: bool,
    /// How it calls tools: natively, or as text it writes (`prompted`).
    pub tool_calling: ToolCalling,
    /// Its tokenizer.
    pub tokenizer: TokenizerFamily,
    /// Where each figure came from.
    pub sources: CapabilitySources,
}

/// Where each figure of a [`ModelCapabilities`] came from.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct CapabilitySources {
    /// Of `context_window`.
    pub context_window: CapabilitySource,
    /// Of `max_output_tokens`.
    pub max_output_tokens: CapabilitySource,
    /// Of `vision`.
    pub vision: CapabilitySource,
    /// Of `tool_calling`.
    pub tool_calling: CapabilitySource,
}

impl CapabilitySources {
    /// Every figure from `source`.
    pub const fn all(source: CapabilitySource) -> Self {
        Self {
            context_window: source,
            max_output_tokens: source,
            vision: source,
            tool_calling: source,
        }
    }
}

/// An operator's corrections to what Braid knows of one model; absent fields keep the table's
/// (or the server's, or the default) figure. Read from `BRAID_MODEL_CAPABILITIES`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CapabilityOverride {
    /// Tokens of prompt plus answer the model accepts.
    #[serde(default)]
    pub context_window: Option<u32>,
    /// The most tokens it generates in one answer.
    #[serde(default)]
    pub max_output_tokens: Option<u32>,
    /// Whether it accepts images.
    #[serde(default)]
    pub vision: Option<bool>,
    /// How it calls tools: `"native"` or `"prompted"` (`true` and `false` mean the same).
    #[serde(default, deserialize_with = "tool_calling_override")]
    pub tool_calling: Option<ToolCalling>,
}

/// Reads an override's `tool_calling`: the mode's name, or a yes/no "calls tools natively".
fn tool_calling_override<'de, D>(deserializer: D) -> Result<Option<ToolCalling>, D::Error>
where
    D: serde::Deserializer<'de>,
{
    #[derive(Deserialize)]
    #[serde(untagged)]
    enum Spelling {
        Mode(ToolCalling),
        Native(bool),
    }
    match Option::<Spelling>::deserialize(deserializer) {
        Ok(value) => Ok(value.map(|v| match v {
            Spelling::Mode(mode) => mode,
            Spelling::Native(native) => ToolCalling::from_support(native),
        })),
        Err(_) => Err(serde::de::Error::custom(
            "`tool_calling` must be \"native\", \"prompted\", true or false",
        )),
    }
}

/// The largest image a provider takes; bigger ones are sized down before they are sent.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ImageLimits {
    /// The longest edge, in pixels.
    pub max_edge: u32,
    /// The most bytes of one encoded image.
    pub max_bytes: usize,
}

impl ImageLimits {
    /// OpenAI: images are fitted into 2048 x 2048 (high detail), 20 MB at most.
    pub const OPENAI: Self = Self {
        max_edge: 2048,
        max_bytes: 20 * 1024 * 1024,
    };
    /// Anthropic: 1568 pixels on the long edge is the most the model uses; 5 MB of base64.
    pub const ANTHROPIC: Self = Self {
        max_edge: 1568,
        max_bytes: 3_750_000,
    };
}

const fn caps(
    context_window: u32,
    max_output_tokens: u32,
    vision: bool,
    tool_calling: bool,
    tokenizer: TokenizerFamily,
) -> ModelCapabilities {
    ModelCapabilities {
        context_window,
        max_output_tokens,
        vision,
        tool_calling: ToolCalling::from_support(tool_calling),
        tokenizer,
        sources: CapabilitySources::all(CapabilitySource::Table),
    }
}

use TokenizerFamily::*;

/// Model-name prefixes and their capabilities; the longest matching prefix wins.
const TABLE: &[(&str, ModelCapabilities)] = &[
    ("gpt-4o-mini", caps(128_000, 16_384, true, true, O200kBase)),
    ("gpt-4o", caps(128_000, 16_384, true, true, O200kBase)),
    ("gpt-4.1", caps(1_047_576, 32_768, true, true, O200kBase)),
    ("gpt-4-turbo", caps(128_000, 4_096, true, true, Cl100kBase)),
    ("gpt-4", caps(8_192, 8_192, false, true, Cl100kBase)),
    (
        "gpt-3.5-turbo",
        caps(16_385, 4_096, false, true, Cl100kBase),
    ),
    ("gpt-5", caps(400_000, 128_000, true, true, O200kBase)),
    ("o1", caps(200_000, 100_000, true, true, O200kBase)),
    ("o1-mini", caps(128_000, 65_536, false, false, O200kBase)),
    ("o3", caps(200_000, 100_000, true, true, O200kBase)),
    ("o4-mini", caps(200_000, 100_000, true, true, O200kBase)),
    (
        "claude-3-5-haiku",
        caps(200_000, 8_192, false, true, Claude),
    ),
    (
        "claude-3-5-sonnet",
        caps(200_000, 8_192, true, true, Claude),
    ),
    (
        "claude-3-7-sonnet",
        caps(200_000, 64_000, true, true, Claude),
    ),
    ("claude-3-opus", caps(200_000, 4_096, true, true, Claude)),
    ("claude-3-haiku", caps(200_000, 4_096, true, true, Claude)),
    ("claude-sonnet-4", caps(200_000, 64_000, true, true, Claude)),
    ("claude-opus-4", caps(200_000, 32_000, true, true, Claude)),
    ("claude-haiku-4", caps(200_000, 64_000, true, true, Claude)),
    ("llama3.2-vision", caps(128_000, 4_096, true, false, Llama3)),
    ("llama3", caps(128_000, 4_096, false, true, Llama3)),
    ("llama-3", caps(128_000, 4_096, false, true, Llama3)),
    ("llama-4", caps(1_000_000, 8_192, true, true, Llama3)),
    (
        "meta-llama/llama-3",
        caps(128_000, 4_096, false, true, Llama3),
    ),
    ("qwen2.5-vl", caps(128_000, 8_192, true, true, Qwen)),
    ("qwen2.5", caps(32_768, 8_192, false, true, Qwen)),
    ("qwen3", caps(40_960, 8_192, false, true, Qwen)),
    ("qwen", caps(32_768, 8_192, false, true, Qwen)),
    ("gemma-3-270m", caps(32_768, 8_192, false, false, Gemma)),
    ("gemma3", caps(128_000, 8_192, true, false, Gemma)),
    ("gemma-3", caps(128_000, 8_192, true, false, Gemma)),
    ("gemma", caps(8_192, 8_192, false, false, Gemma)),
    ("mistral", caps(32_768, 8_192, false, true, Mistral)),
    ("mixtral", caps(32_768, 8_192, false, true, Mistral)),
];

/// The window assumed for a model neither the table, the server nor an override knows
/// (DESIGN.md): small enough that any server running the model accepts it.
pub const DEFAULT_CONTEXT_WINDOW: u32 = 8_192;

/// For models the table does not know: an 8,192-token window, native tool calls, no vision.
pub const DEFAULT_CAPABILITIES: ModelCapabilities = ModelCapabilities {
    sources: CapabilitySources::all(CapabilitySource::Default),
    ..caps(DEFAULT_CONTEXT_WINDOW, 4_096, false, true, Unknown)
};

impl ModelCapabilities {
    /// The capabilities of `model`, from the built-in table, or [`DEFAULT_CAPABILITIES`].
    ///
    /// Names are matched case-insensitively on their longest known prefix, after removing a
    /// router's vendor prefix (`openai/gpt-4o`, `anthropic/claude-sonnet-4`); so dated snapshots
    /// (`gpt-4o-2024-08-06`) and local tags (`llama3.1:8b`, `gemma-3-270m-q4_k_m`) match.
    pub fn for_model(model: &str) -> Self {
        Self::lookup(model).unwrap_or(DEFAULT_CAPABILITIES)
    }

    /// The table's entry for `model`, if it has one.
    pub fn lookup(model: &str) -> Option<Self> {
        let name = model.trim().to_ascii_lowercase();
        let candidates = [
            name.as_str(),
            name.rsplit_once('/').map_or(name.as_str(), |(_, n)| n),
        ];
        candidates
            .iter()
            .flat_map(|candidate| {
                TABLE
                    .iter()
                    .filter(move |(prefix, _)| candidate.starts_with(prefix))
            })
            .max_by_key(|(prefix, _)| prefix.len())
            .map(|(_, c)| *c)
    }

    /// These capabilities with what the model server reported in their place (their source:
    /// `server`); figures it did not report stay.
    pub fn with_server(mut self, report: &crate::discovery::ServerReport) -> Self {
        let source = CapabilitySource::Server;
        if let Some(v) = report.context_window {
            self.context_window = v;
            self.sources.context_window = source;
            // An answer cannot be longer than the window the server runs.
            self.max_output_tokens = self.max_output_tokens.min(v);
        }
        if let Some(v) = report.vision {
            self.vision = v;
            self.sources.vision = source;
        }
        if let Some(v) = report.tool_calling {
            // A server that says the model has no tool calling of its own: calls go as text.
            self.tool_calling = ToolCalling::from_support(v);
            self.sources.tool_calling = source;
        }
        self
    }

    /// These capabilities with the operator's corrections applied (their source: `override`).
    pub fn with_override(mut self, correction: &CapabilityOverride) -> Self {
        let source = CapabilitySource::Override;
        if let Some(v) = correction.context_window {
            self.context_window = v;
            self.sources.context_window = source;
        }
        if let Some(v) = correction.max_output_tokens {
            self.max_output_tokens = v;
            self.sources.max_output_tokens = source;
        }
        if let Some(v) = correction.vision {
            self.vision = v;
            self.sources.vision = source;
        }
        if let Some(v) = correction.tool_calling {
            self.tool_calling = v;
            self.sources.tool_calling = source;
        }
        self
    }

    /// The figures and their sources as the API shows them, for `model`.
    pub fn view(&self, model: &str) -> ModelCapabilitiesView {
        ModelCapabilitiesView {
            model: model.to_owned(),
            context_window: CountFigure {
                value: self.context_window,
                source: self.sources.context_window,
            },
            max_output_tokens: CountFigure {
                value: self.max_output_tokens,
                source: self.sources.max_output_tokens,
            },
            vision: FlagFigure {
                value: self.vision,
                source: self.sources.vision,
            },
            tool_calling: ToolCallingFigure {
                value: self.tool_calling,
                source: self.sources.tool_calling,
            },
        }
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
mod tests {
    use super::*;

    #[test]
    fn longest_prefix_wins() {
        let mini = ModelCapabilities::for_model("gpt-4o-mini-2024-07-18");
        assert_eq!(mini.max_output_tokens, 16_384);
        assert!(ModelCapabilities::for_model("gpt-4o").vision);
        assert_eq!(
            ModelCapabilities::for_model("o1-mini").tool_calling,
            ToolCalling::Prompted
        );
        assert_eq!(
            ModelCapabilities::for_model("gpt-4o").tool_calling,
            ToolCalling::Native
        );
    }

    #[test]
    fn router_prefixes_and_local_tags_are_understood() {
        assert_eq!(
            ModelCapabilities::for_model("anthropic/claude-sonnet-4").tokenizer,
            TokenizerFamily::Claude
        );
        assert_eq!(
            ModelCapabilities::for_model("llama3.1:8b").tokenizer,
            TokenizerFamily::Llama3
        );
        assert!(!ModelCapabilities::for_model("gemma-3-270m-q4_k_m").vision);
        assert!(ModelCapabilities::for_model("Claude-3-7-Sonnet-20250219").vision);
    }

    #[test]
    fn an_override_replaces_only_its_figures_and_says_so() {
        let caps = ModelCapabilities::for_model("llava:13b").with_override(&CapabilityOverride {
            vision: Some(true),
            ..CapabilityOverride::default()
        });
        assert!(caps.vision);
        assert_eq!(caps.sources.vision, CapabilitySource::Override);
        assert_eq!(caps.sources.context_window, CapabilitySource::Default);
        let view = caps.view("llava:13b");
        assert_eq!(
            view.vision,
            FlagFigure {
                value: true,
                source: CapabilitySource::Override
            }
        );
        assert_eq!(
            ModelCapabilities::for_model("gpt-4o")
                .view("gpt-4o")
                .vision
                .source,
            CapabilitySource::Table
        );
    }

    #[test]
    fn tool_calling_follows_override_then_server_then_table_then_native() {
        let report = crate::discovery::ServerReport {
            tool_calling: Some(false),
            ..Default::default()
        };
        let served = ModelCapabilities::for_model("my-gguf").with_server(&report);
        assert_eq!(served.tool_calling, ToolCalling::Prompted);
        assert_eq!(served.sources.tool_calling, CapabilitySource::Server);
        let overridden = served.with_override(&CapabilityOverride {
            tool_calling: Some(ToolCalling::Native),
            ..CapabilityOverride::default()
        });
        assert_eq!(overridden.tool_calling, ToolCalling::Native);
        assert_eq!(overridden.sources.tool_calling, CapabilitySource::Override);
        let unknown = ModelCapabilities::for_model("my-gguf");
        assert_eq!(unknown.tool_calling, ToolCalling::Native);
        assert_eq!(unknown.sources.tool_calling, CapabilitySource::Default);
        assert_eq!(
            ModelCapabilities::for_model("gemma-3-270m")
                .view("g")
                .tool_calling,
            ToolCallingFigure {
                value: ToolCalling::Prompted,
                source: CapabilitySource::Table
            }
        );
    }

    #[test]
    fn an_override_names_the_mode_or_says_yes_or_no() {
        let read = |json: &str| serde_json::from_str::<CapabilityOverride>(json);
        assert_eq!(
            read(r#"{"tool_calling": "prompted"}"#)
                .unwrap()
                .tool_calling,
            Some(ToolCalling::Prompted)
        );
        assert_eq!(
            read(r#"{"tool_calling": true}"#).unwrap().tool_calling,
            Some(ToolCalling::Native)
        );
        assert_eq!(read("{}").unwrap().tool_calling, None);
        let wrong = read(r#"{"tool_calling": "sometimes"}"#).unwrap_err();
        assert!(wrong.to_string().contains("\"prompted\""), "{wrong}");
    }

    #[test]
    fn unknown_models_get_the_default() {
        assert_eq!(
            ModelCapabilities::for_model("my-finetune"),
            DEFAULT_CAPABILITIES
        );
        assert_eq!(ModelCapabilities::lookup("my-finetune"), None);
        assert_eq!(DEFAULT_CAPABILITIES.context_window, 8_192);
    }
}
