//! Workflows (DESIGN.md "Workflows"): named, parameterized sequences of steps kept in YAML
//! files, run by a context's actor as a `workflow_execution` message whose progress, pause,
//! resumption, cancellation, failure and result are stored and announced like everything else.

pub mod catalog;
pub mod definition;
mod template;

pub use catalog::{Catalog, CatalogEntry, check_parameters};
pub use definition::{Step, StepAction, TOOL_PREFIX, WorkflowDefinition};
pub(crate) mod run;
