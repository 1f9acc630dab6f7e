//! What a model can do, as a context shows it: each figure with where it came from (the
//! built-in table, the model server, the operator's override, or the default for unknown models).

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use ts_rs::TS;

/// Where a capability figure came from.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema, TS)]
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
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema, TS)]
pub struct CountFigure {
    /// The value in force.
    pub value: u32,
    /// Where it came from.
    pub source: CapabilitySource,
}

/// A yes/no capability figure and its source.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema, TS)]
pub struct FlagFigure {
    /// The value in force.
    pub value: bool,
    /// Where it came from.
    pub source: CapabilitySource,
}

/// The capabilities in force for a context's model.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema, TS)]
pub struct ModelCapabilitiesView {
    /// The model they describe.
    pub model: String,
    /// Tokens of prompt plus answer the model accepts.
    pub context_window: CountFigure,
    /// The most tokens it generates in one answer.
    pub max_output_tokens: CountFigure,
    /// Whether it accepts images.
    pub vision: FlagFigure,
    /// Whether it calls tools.
    pub tool_calling: FlagFigure,
}
