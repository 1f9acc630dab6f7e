//! What a model can do, as a context shows it: each figure with where it came from (the
//! built-in table, the model server, the operator's override, or the default for unknown models).

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
#[cfg(test)]
use ts_rs::TS;

/// Where a capability figure came from.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema)]
#[cfg_attr(test, derive(TS))]
#[serde(rename_all = "snake_case")]
pub enum CapabilitySource {
    /// Braid's built-in table of known models.
    Table,
    /// The model server said so (a discovery endpoint).
    Server,
    /// The operator's per-model override in the configuration, or the context's own config.
    Override,
    /// Nothing knew the model: Braid's default.
    Default,
}

/// A numeric capability figure (tokens) and its source.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[cfg_attr(test, derive(TS))]
pub struct CountFigure {
    /// The value in force.
    pub value: u32,
    /// Where it came from.
    pub source: CapabilitySource,
}

/// A yes/no capability figure and its source.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[cfg_attr(test, derive(TS))]
pub struct FlagFigure {
    /// The value in force.
    pub value: bool,
    /// Where it came from.
    pub source: CapabilitySource,
}

/// How a model calls tools.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema)]
#[cfg_attr(test, derive(TS))]
#[serde(rename_all = "snake_case")]
pub enum ToolCalling {
    /// The provider's own tool calling: tools travel as the request's definitions and calls come
    /// back as structured tool calls.
    #[default]
    Native,
    /// For models without it: the tools are listed in the system prompt, the model writes its
    /// calls as fenced `tool_call` blocks in its text, and Braid reads them from the answer.
    Prompted,
}

impl ToolCalling {
    /// The mode that a yes/no "calls tools" report means.
    pub const fn from_support(native: bool) -> Self {
        if native { Self::Native } else { Self::Prompted }
    }
}

/// How the model calls tools, and where that came from.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[cfg_attr(test, derive(TS))]
pub struct ToolCallingFigure {
    /// The mode in force.
    pub value: ToolCalling,
    /// Where it came from.
    pub source: CapabilitySource,
}

/// The capabilities in force for a context's model.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[cfg_attr(test, derive(TS))]
pub struct ModelCapabilitiesView {
    /// The model they describe.
    pub model: String,
    /// Tokens of prompt plus answer the model accepts.
    pub context_window: CountFigure,
    /// The most tokens it generates in one answer.
    pub max_output_tokens: CountFigure,
    /// Whether it accepts images.
    pub vision: FlagFigure,
    /// How it calls tools: natively, or written as text (`prompted`).
    pub tool_calling: ToolCallingFigure,
}
