//! `ResolveFileReferences`: reads each referenced file (or its line range) from the workspace
//! into the message, numbered by line, refusing paths that leave the workspace.
//!
//! A reference only ever reads (the file is opened read-only and nothing is written), which is
//! all a planner may do with files (seed 000 "Permission check for file access"); what the
//! role may not read is refused as a permission error that names the role.

use async_trait::async_trait;
use braid_protocol::{AgentRole, ContextState, FileResolution, MessageKind};
use braid_tools::{ReadLimits, WorkspaceError, read_file_excerpt};
use chrono::Utc;

use super::{Draft, PipelineContext, PipelineError, ProcessResult, Processor, ProcessorName};

/// The most content one reference brings into the conversation.
pub const MAX_REFERENCE_BYTES: usize = 256 * 1024;

/// Resolves `file_reference` messages relative to the workspace root.
pub struct ResolveFileReferences;

fn references(draft: &Draft) -> u32 {
    draft
        .messages
        .iter()
        .filter(|m| matches!(m.kind, MessageKind::FileReference(_)))
        .count() as u32
}

/// The error for a reference that could not be read: a permission error naming `role` when the
/// path is one the role may not read, else what went wrong with the file.
fn refused(path: &str, role: AgentRole, error: WorkspaceError) -> PipelineError {
    let denied = match &error {
        WorkspaceError::Refused { .. } => true,
        WorkspaceError::Io { source, .. } => source.kind() == std::io::ErrorKind::PermissionDenied,
        _ => false,
    };
    if denied {
        tracing::info!(path, %role, %error, "file reference refused");
        PipelineError::FilePermission {
            path: path.to_owned(),
            role,
            reason: error.to_string(),
        }
    } else {
        PipelineError::FileReference {
            path: path.to_owned(),
            reason: error.to_string(),
        }
    }
}

#[async_trait]
impl Processor for ResolveFileReferences {
    fn name(&self) -> ProcessorName {
        ProcessorName::ResolveFileReferences
    }

    fn state(&self, draft: &Draft) -> Option<ContextState> {
        let total = references(draft);
        (total > 0).then_some(ContextState::ResolvingFileReferences { total })
    }

    async fn process(
        &self,
        draft: &mut Draft,
        ctx: &PipelineContext,
    ) -> Result<ProcessResult, PipelineError> {
        for m in &mut draft.messages {
            let MessageKind::FileReference(reference) = &mut m.kind else {
                continue;
            };
            let Some(workspace) = &ctx.workspace else {
                return Err(PipelineError::FileReference {
                    path: reference.path.clone(),
                    reason: ctx.workspace_problem.clone().unwrap_or_else(|| {
                        "this context has no workspace: set `workspace` in its config".to_owned()
                    }),
                });
            };
            let excerpt = read_file_excerpt(
                workspace,
                &reference.path,
                reference.range,
                ReadLimits::with_bytes(MAX_REFERENCE_BYTES),
            )
            .map_err(|e| refused(&reference.path, ctx.config.agent_role, e))?;
            let mut content = excerpt.content;
            if let Some(note) = excerpt.truncated {
                content.push('\n');
                content.push_str(&note);
            }
            reference.resolution = FileResolution::Resolved {
                content,
                total_lines: excerpt.total_lines,
                size_bytes: excerpt.size_bytes,
                resolved_at: Utc::now(),
            };
        }
        Ok(ProcessResult::Continue)
    }
}
