//! A send: what the person (or a plan, or a retry) asked the context to do, its messages
//! built and their ids given out when it is accepted, waiting to run behind a turn.

use braid_protocol::{Message, MessageId};

/// A send waiting to run: its messages are built (and their ids given out) when it is accepted.
pub(crate) struct QueuedSend {
    /// The messages it adds.
    pub messages: Vec<Message>,
    /// Messages the send changes rather than adds (an answered question).
    pub updates: Vec<Message>,
    /// What the send does once its messages are stored.
    pub action: SendAction,
}

/// What a send does.
pub(crate) enum SendAction {
    /// A turn: the pipeline, then the model and the tool loop.
    Converse,
    /// Reads an MCP resource into the conversation (under the id already given out) without
    /// asking the model.
    InjectResource {
        /// The id given out for the resource's message.
        id: MessageId,
        /// The MCP server.
        server: String,
        /// The resource.
        uri: String,
    },
    /// Starts the workflow run whose `workflow_execution` message the send stored.
    Workflow,
}

impl QueuedSend {
    /// The id the send answers with: its last new message (the text after any file references).
    pub fn primary_id(&self) -> MessageId {
        if let SendAction::InjectResource { id, .. } = &self.action {
            return *id;
        }
        self.messages
            .last()
            .or(self.updates.last())
            .map(|m| m.id)
            .unwrap_or_default()
    }
}
