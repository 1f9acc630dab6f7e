//! The `LlmClient` trait the engine talks to, whatever the provider.

use std::pin::Pin;

use futures::{Stream, StreamExt};

use crate::capabilities::{ImageLimits, ModelCapabilities};
use crate::error::LlmError;
use crate::event::{Completion, CompletionBuilder, LlmEvent};
use crate::request::LlmRequest;

/// A streamed answer. It ends after a [`LlmEvent::Finish`], or with one `Err` item that says why
/// it could not finish (an [`LlmError::Interrupted`] when part of the answer had been delivered).
/// Dropping it cancels the request.
pub type LlmStream = Pin<Box<dyn Stream<Item = Result<LlmEvent, LlmError>> + Send>>;

/// A language model behind some provider's API. Used as `Arc<dyn LlmClient>`.
#[async_trait::async_trait]
pub trait LlmClient: Send + Sync {
    /// Starts a streamed answer. Errors that happen before the stream exists (a request that
    /// cannot be built) come back as the stream's only item, so callers handle one path.
    async fn stream(&self, request: &LlmRequest) -> LlmStream;

    /// The whole answer at once (for summaries, titles). By default the stream, folded up.
    async fn complete(&self, request: &LlmRequest) -> Result<Completion, LlmError> {
        let mut stream = self.stream(request).await;
        let mut builder = CompletionBuilder::new();
        while let Some(item) = stream.next().await {
            builder.push(&item?);
        }
        Ok(builder.finish())
    }

    /// What the given model can do (context window, vision, tools), with configured overrides
    /// and what its server reported when it was asked already ([`LlmClient::discover`]).
    fn capabilities(&self, model: &str) -> ModelCapabilities;

    /// What the given model can do, asking the model server first when it was not asked yet
    /// (once per model, a short timeout; a failure leaves the other sources). By default, no
    /// server is asked.
    async fn discover(&self, model: &str) -> ModelCapabilities {
        self.capabilities(model)
    }

    /// The models the model server lists (`GET /v1/models`), for a picker; none by default
    /// (a provider whose server is not asked).
    async fn list_models(&self) -> Result<Vec<String>, crate::discovery::DiscoveryError> {
        Ok(Vec::new())
    }

    /// The largest image the provider takes (images are sized down to fit before they are
    /// sent). By default the strictest provider's limits.
    fn image_limits(&self) -> ImageLimits {
        ImageLimits::ANTHROPIC
    }
}
