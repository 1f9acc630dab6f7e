//! Prometheus metrics: HTTP requests, open event streams, live contexts, and what the model did
//! (requests, failures, time to the first chunk, stream duration, tokens, tool calls asked for),
//! measured by wrapping the model client ([`MeteredLlm`]).

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Instant;

use async_trait::async_trait;
use braid_llm::{
    Completion, LlmClient, LlmError, LlmEvent, LlmRequest, LlmStream, ModelCapabilities,
};
use futures::StreamExt;

/// Every counter of the server.
#[derive(Debug, Default)]
pub struct Metrics {
    requests: Mutex<BTreeMap<(String, String, u16), u64>>,
    open_streams: AtomicU64,
    streams_total: AtomicU64,
    llm_requests: AtomicU64,
    llm_errors: AtomicU64,
    llm_first_chunk_micros: AtomicU64,
    llm_first_chunk_count: AtomicU64,
    llm_duration_micros: AtomicU64,
    llm_duration_count: AtomicU64,
    prompt_tokens: AtomicU64,
    completion_tokens: AtomicU64,
    tool_calls: AtomicU64,
}

/// Marks one open event stream; the gauge goes down when it is dropped.
pub struct StreamGuard(Arc<Metrics>);

impl Drop for StreamGuard {
    fn drop(&mut self) {
        self.0.open_streams.fetch_sub(1, Ordering::Relaxed);
    }
}

impl Metrics {
    /// Counts one answered request, by route pattern (not the raw path, so ids do not explode
    /// the label set).
    pub fn record_request(&self, method: &str, route: &str, status: u16) {
        let mut requests = self
            .requests
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        *requests
            .entry((method.to_owned(), route.to_owned(), status))
            .or_default() += 1;
    }

    /// Counts an event stream as open until the guard drops.
    pub fn open_stream(self: &Arc<Self>) -> StreamGuard {
        self.open_streams.fetch_add(1, Ordering::Relaxed);
        self.streams_total.fetch_add(1, Ordering::Relaxed);
        StreamGuard(self.clone())
    }

    /// Event streams open now.
    pub fn open_streams(&self) -> u64 {
        self.open_streams.load(Ordering::Relaxed)
    }

    /// The Prometheus text exposition of every metric.
    pub fn render(&self, live_contexts: usize) -> String {
        let mut out = String::new();
        let load = |a: &AtomicU64| a.load(Ordering::Relaxed);
        out.push_str("# HELP braid_http_requests_total HTTP requests answered.\n");
        out.push_str("# TYPE braid_http_requests_total counter\n");
        {
            let requests = self
                .requests
                .lock()
                .unwrap_or_else(|poisoned| poisoned.into_inner());
            for ((method, route, status), n) in requests.iter() {
                let _ = writeln!(
                    out,
                    "braid_http_requests_total{{method=\"{method}\",route=\"{}\",status=\"{status}\"}} {n}",
                    route.replace('\\', "\\\\").replace('"', "\\\"")
                );
            }
        }
        let mut simple = |name: &str, kind: &str, help: &str, value: String| {
            let _ = writeln!(
                out,
                "# HELP {name} {help}\n# TYPE {name} {kind}\n{name} {value}"
            );
        };
        simple(
            "braid_active_contexts",
            "gauge",
            "Contexts loaded in memory.",
            live_contexts.to_string(),
        );
        simple(
            "braid_open_event_streams",
            "gauge",
            "SSE event streams open now.",
            load(&self.open_streams).to_string(),
        );
        simple(
            "braid_event_streams_total",
            "counter",
            "SSE event streams opened.",
            load(&self.streams_total).to_string(),
        );
        simple(
            "braid_llm_requests_total",
            "counter",
            "Requests sent to the model.",
            load(&self.llm_requests).to_string(),
        );
        simple(
            "braid_llm_errors_total",
            "counter",
            "Model requests that failed.",
            load(&self.llm_errors).to_string(),
        );
        simple(
            "braid_tool_calls_total",
            "counter",
            "Tool calls the model asked for.",
            load(&self.tool_calls).to_string(),
        );
        let _ = writeln!(
            out,
            "# HELP braid_llm_tokens_total Tokens the provider reported.\n# TYPE braid_llm_tokens_total counter\nbraid_llm_tokens_total{{type=\"prompt\"}} {}\nbraid_llm_tokens_total{{type=\"completion\"}} {}",
            load(&self.prompt_tokens),
            load(&self.completion_tokens)
        );
        for (name, help, micros, count) in [
            (
                "braid_llm_first_chunk_seconds",
                "Time from sending a model request to its first streamed event.",
                &self.llm_first_chunk_micros,
                &self.llm_first_chunk_count,
            ),
            (
                "braid_llm_stream_seconds",
                "Time from sending a model request to the end of its stream.",
                &self.llm_duration_micros,
                &self.llm_duration_count,
            ),
        ] {
            let _ = writeln!(
                out,
                "# HELP {name} {help}\n# TYPE {name} summary\n{name}_sum {}\n{name}_count {}",
                load(micros) as f64 / 1e6,
                load(count)
            );
        }
        out
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
        let m = &self.metrics;
        if !self.first_seen {
            self.first_seen = true;
            m.llm_first_chunk_micros
                .fetch_add(micros(self.started), Ordering::Relaxed);
            m.llm_first_chunk_count.fetch_add(1, Ordering::Relaxed);
        }
        match item {
            Ok(LlmEvent::Usage(u)) => {
                m.prompt_tokens
                    .fetch_add(u64::from(u.prompt_tokens), Ordering::Relaxed);
                m.completion_tokens
                    .fetch_add(u64::from(u.completion_tokens), Ordering::Relaxed);
            }
            Ok(LlmEvent::ToolCallCompleted { .. }) => {
                m.tool_calls.fetch_add(1, Ordering::Relaxed);
            }
            Ok(_) => {}
            Err(_) => {
                m.llm_errors.fetch_add(1, Ordering::Relaxed);
            }
        }
    }
}

impl Drop for Tracker {
    fn drop(&mut self) {
        self.metrics
            .llm_duration_micros
            .fetch_add(micros(self.started), Ordering::Relaxed);
        self.metrics
            .llm_duration_count
            .fetch_add(1, Ordering::Relaxed);
    }
}

fn micros(since: Instant) -> u64 {
    u64::try_from(since.elapsed().as_micros()).unwrap_or(u64::MAX)
}

#[async_trait]
impl LlmClient for MeteredLlm {
    async fn stream(&self, request: &LlmRequest) -> LlmStream {
        self.metrics.llm_requests.fetch_add(1, Ordering::Relaxed);
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
        self.metrics.llm_requests.fetch_add(1, Ordering::Relaxed);
        let started = Instant::now();
        let answer = self.inner.complete(request).await;
        let m = &self.metrics;
        m.llm_duration_micros
            .fetch_add(micros(started), Ordering::Relaxed);
        m.llm_duration_count.fetch_add(1, Ordering::Relaxed);
        match &answer {
            Ok(c) => {
                if let Some(u) = c.usage {
                    m.prompt_tokens
                        .fetch_add(u64::from(u.prompt_tokens), Ordering::Relaxed);
                    m.completion_tokens
                        .fetch_add(u64::from(u.completion_tokens), Ordering::Relaxed);
                }
            }
            Err(_) => {
                m.llm_errors.fetch_add(1, Ordering::Relaxed);
            }
        }
        answer
    }

    fn capabilities(&self, model: &str) -> ModelCapabilities {
        self.inner.capabilities(model)
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
        drop(guard);
        assert!(m.render(0).contains("braid_open_event_streams 0"));
    }
}
