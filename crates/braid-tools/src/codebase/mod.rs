//! Codebase intelligence: text search, the symbol index behind definitions and references, and
//! the project overview (seed 001 "Codebase Tool Integration").

pub mod index;
pub mod navigation;
pub mod overview;
pub mod search;
pub mod symbols;

pub use index::{CodebaseIndex, CodebaseIndexes, IndexStats};
pub use navigation::{FindDefinitionTool, FindReferencesTool};
pub use overview::{ProjectOverviewTool, project_overview};
pub use search::{CodebaseSearchTool, SearchOptions, search_workspace};
