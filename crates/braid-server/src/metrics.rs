//! Prometheus metrics: HTTP requests, open event streams, live contexts, and what the model did
//! (requests, failures, time to the first chunk, stream duration, tokens, tool calls asked for),
//! measured by wrapping the model client ([`MeteredLlm`]).
//!
//! Kept in a `prometheus-client` registry and exposed in its OpenMetrics text format, which
//! Prometheus and every compatible scraper read; durations are histograms, so quantiles can be
//! computed server-side.

use std::sync::Arc;
use std::time::Instant;

use async_trait::async_trait;
use braid_llm::{
    Completion, LlmClient, LlmError, LlmEvent, LlmRequest, LlmStream, ModelCapabilities,
};
use futures::StreamExt;
use prometheus_client::encoding::EncodeLabelSet;
use prometheus_client::metrics::counter::Counter;
use prometheus_client::metrics::family::Family;
use prometheus_client::metrics::gauge::Gauge;
use prometheus_client::metrics::histogram::{Histogram, exponential_buckets};
use prometheus_client::registry::Registry;

/// The content type of [`Metrics::render`]'s answer.
pub const CONTENT_TYPE: &str = "application/openmetrics-text; version=1.0.0; charset=utf-8";

/// The labels of an answered request: the route pattern (not the raw path, so ids do not
/// explode the label set), the method and the status.
#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct RequestLabels {
    method: String,
    route: String,
    status: u16,
}

/// Which tokens a count is of.
#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct TokenLabels {
    r#type: &'static str,
}

/// Every metric of the server.
#[derive(Debug)]
pub struct Metrics {
    registry: Registry,
    requests: Family<RequestLabels, Counter>,
    active_contexts: Gauge,
    open_streams: Gauge,
    streams_total: Counter,
    llm_requests: Counter,
    llm_errors: Counter,
    llm_first_chunk: Histogram,
    llm_duration: Histogram,
    tokens: Family<TokenLabels, Counter>,
    tool_calls: Counter,
}

impl Default for Metrics {
    fn default() -> Self {
        let mut registry = Registry::default();
        let requests = Family::<RequestLabels, Counter>::default();
        registry.register(
            "braid_http_requests",
            "HTTP requests answered",
            requests.clone(),
        );
        let active_contexts = Gauge::default();
        registry.register(
            "braid_active_contexts",
            "Contexts loaded in memory",
            active_contexts.clone(),
        );
        let open_streams = Gauge::default();
        registry.register(
            "braid_open_event_streams",
            "SSE event streams open now",
            open_streams.clone(),
        );
        let streams_total = Counter::default();
        registry.register(
            "braid_event_streams",
            "SSE event streams opened",
            streams_total.clone(),
        );
        let llm_requests = Counter::default();
        registry.register(
            "braid_llm_requests",
            "Requests sent to the model",
            llm_requests.clone(),
        );
        let llm_errors = Counter::default();
        registry.register(
            "braid_llm_errors",
            "Model requests that failed",
            llm_errors.clone(),
        );
        // 10 ms to about 80 s: a local model's first token to a long streamed answer.
        let llm_first_chunk = Histogram::new(exponential_buckets(0.01, 2.0, 14));
        registry.register(
            "braid_llm_first_chunk_seconds",
            "Time from sending a model request to its first streamed event",
            llm_first_chunk.clone(),
        );
        let llm_duration = Histogram::new(exponential_buckets(0.01, 2.0, 14));
        registry.register(
            "braid_llm_stream_seconds",
            "Time from sending a model request to the end of its stream",
            llm_duration.clone(),
        );
        let tokens = Family::<TokenLabels, Counter>::default();
        registry.register(
            "braid_llm_tokens",
            "Tokens the provider reported",
            tokens.clone(),
        );
        let tool_calls = Counter::default();
        registry.register(
            "braid_tool_calls",
            "Tool calls the model asked for",
            tool_calls.clone(),
        );
        Self {
            registry,
            requests,
            active_contexts,
            open_streams,
            streams_total,
            llm_requests,
            llm_errors,
            llm_first_chunk,
            llm_duration,
            tokens,
            tool_calls,
        }
    }
}

/// Marks one open event stream; the gauge goes down when it is dropped.
pub struct StreamGuard(Gauge<i64, std::sync::atomic::AtomicI64>);

impl Drop for StreamGuard {
    fn drop(&mut self) {
        self.0.dec();
    }
}

impl Metrics {
    /// Counts one answered request, by route pattern.
    pub fn record_request(&self, method: &str, route: &str, status: u16) {
        self.requests
            .get_or_create(&RequestLabels {
                method: method.to_owned(),
                route: route.to_owned(),
                status,
            })
            .inc();
    }

    /// Counts an event stream as open until the guard drops.
    pub fn open_stream(self: &Arc<Self>) -> StreamGuard {
        self.open_streams.inc();
        self.streams_total.inc();
        StreamGuard(self.open_streams.clone())
    }

    /// Event streams open now.
    pub fn open_streams(&self) -> u64 {
        u64::try_from(self.open_streams.get()).unwrap_or(0)
    }

    /// The OpenMetrics text exposition of every metric, with `live_contexts` as the gauge of
    /// contexts in memory.
    pub fn render(&self, live_contexts: usize) -> String {
        self.active_contexts
            .set(i64::try_from(live_contexts).unwrap_or(i64::MAX));
        let mut out = String::new();
        if let Err(error) = prometheus_client::encoding::text::encode(&mut out, &self.registry) {
            tracing::error!(%error, "metrics not encoded");
        }
        out
    }

    fn record_usage(&self, prompt: u32, completion: u32) {
        self.tokens
            .get_or_create(&TokenLabels { r#type: "prompt" })
            .inc_by(u64::from(prompt));
        self.tokens
            .get_or_create(&TokenLabels {
                r#type: "completion",
            })
            .inc_by(u64::from(completion));
    }
}

/// A model client that measures the one it wraps.
pub struct MeteredLlm {
    inner: Arc<dyn LlmClient>,
    metrics: Arc<Metrics>,
}

impl MeteredLlm {
    /// Wraps `inner`.
    pub fn new(inner: Arc<dyn LlmClient>, metrics: Arc<Metrics>) -> Self {
        Self { inner, metrics }
    }
}

/// Follows one stream; records its duration when dropped, however it ended.
struct Tracker {
    metrics: Arc<Metrics>,
    started: Instant,
    first_seen: bool,
}

impl Tracker {
    fn observe(&mut self, item: &Result<LlmEvent, LlmError>) {
        // A retry notice or the connection's start is not the answer's first chunk.
        if let Ok(LlmEvent::Retrying { .. } | LlmEvent::Connected) = item {
            return;
        }
        let m = &self.metrics;
        if !self.first_seen {
            self.first_seen = true;
            m.llm_first_chunk
                .observe(self.started.elapsed().as_secs_f64());
        }
        match item {
            Ok(LlmEvent::Usage(u)) => m.record_usage(u.prompt_tokens, u.completion_tokens),
            Ok(LlmEvent::ToolCallCompleted { .. }) => {
                m.tool_calls.inc();
            }
            Ok(_) => {}
            Err(_) => {
                m.llm_errors.inc();
            }
        }
    }
}

impl Drop for Tracker {
    fn drop(&mut self) {
        self.metrics
            .llm_duration
            .observe(self.started.elapsed().as_secs_f64());
    }
}

#[async_trait]
impl LlmClient for MeteredLlm {
    async fn stream(&self, request: &LlmRequest) -> LlmStream {
        self.metrics.llm_requests.inc();
        let tracker = Tracker {
            metrics: self.metrics.clone(),
            started: Instant::now(),
            first_seen: false,
        };
        let inner = self.inner.stream(request).await;
        futures::stream::unfold((inner, tracker), |(mut inner, mut tracker)| async move {
            let item = inner.next().await?;
            tracker.observe(&item);
            Some((item, (inner, tracker)))
        })
        .boxed()
    }

    async fn complete(&self, request: &LlmRequest) -> Result<Completion, LlmError> {
        self.metrics.llm_requests.inc();
        let started = Instant::now();
        let answer = self.inner.complete(request).await;
        let m = &self.metrics;
        m.llm_duration.observe(started.elapsed().as_secs_f64());
        match &answer {
            Ok(c) => {
                if let Some(u) = c.usage {
                    m.record_usage(u.prompt_tokens, u.completion_tokens);
                }
            }
            Err(_) => {
                m.llm_errors.inc();
            }
        }
        answer
    }

    fn capabilities(&self, model: &str) -> ModelCapabilities {
        self.inner.capabilities(model)
    }

    async fn discover(&self, model: &str) -> ModelCapabilities {
        self.inner.discover(model).await
    }

    async fn list_models(&self) -> Result<Vec<String>, braid_llm::discovery::DiscoveryError> {
        self.inner.list_models().await
    }

    fn image_limits(&self) -> braid_llm::ImageLimits {
        self.inner.image_limits()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn render_groups_requests_by_route_and_reports_gauges() {
        let m = Arc::new(Metrics::default());
        m.record_request("GET", "/v1/contexts/{id}", 200);
        m.record_request("GET", "/v1/contexts/{id}", 200);
        let guard = m.open_stream();
        let text = m.render(3);
        assert!(text.contains(
            "braid_http_requests_total{method=\"GET\",route=\"/v1/contexts/{id}\",status=\"200\"} 2"
        ));
        assert!(text.contains("braid_active_contexts 3"));
        assert!(text.contains("braid_open_event_streams 1"));
        assert!(text.ends_with("# EOF\n"), "{text}");
        drop(guard);
        assert!(m.render(0).contains("braid_open_event_streams 0"));
    }
}
