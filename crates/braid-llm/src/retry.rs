//! When and how long to wait before trying a failed model call again.

use std::time::Duration;

use backon::BackoffBuilder;

/// Bounded exponential backoff with jitter (backon). A transient failure is retried at most
/// `max_retries` times, and only while nothing of the answer has been delivered: the n-th retry
/// waits between `initial_backoff * 2^(n-1)` and twice that (so clients that failed together do
/// not retry together), capped at `max_backoff`, or what the provider's `Retry-After` asked for
/// (also capped).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RetryPolicy {
    /// Retries after the first attempt.
    pub max_retries: u32,
    /// The wait before the first retry.
    pub initial_backoff: Duration,
    /// The longest wait, whatever the provider asks.
    pub max_backoff: Duration,
}

impl Default for RetryPolicy {
    fn default() -> Self {
        Self {
            max_retries: 3,
            initial_backoff: Duration::from_millis(500),
            max_backoff: Duration::from_secs(30),
        }
    }
}

impl RetryPolicy {
    /// No retries at all.
    pub fn none() -> Self {
        Self {
            max_retries: 0,
            ..Self::default()
        }
    }

    /// The wait before retry number `retry` (from 1), honouring the provider's request.
    pub fn backoff(&self, retry: u32, retry_after: Option<Duration>) -> Duration {
        let planned = || {
            backon::ExponentialBuilder::new()
                .with_min_delay(self.initial_backoff)
                .with_max_delay(self.max_backoff)
                .with_factor(2.0)
                .with_jitter()
                .with_jitter_seed(jitter_seed())
                .without_max_times()
                .build()
                .nth(retry.saturating_sub(1) as usize)
                .unwrap_or(self.max_backoff)
        };
        retry_after.unwrap_or_else(planned).min(self.max_backoff)
    }
}

/// Reads a `Retry-After` header value given in seconds (integer or decimal). HTTP dates are not
/// understood and give `None`, so the policy's own backoff applies.
pub fn parse_retry_after(value: &str) -> Option<Duration> {
    let seconds: f64 = value.trim().parse().ok()?;
    (seconds.is_finite() && seconds >= 0.0).then(|| Duration::from_secs_f64(seconds))
}

/// A seed for backon's jitter that differs per call and per process (its default seed is fixed,
/// which would make every client wait the same).
fn jitter_seed() -> u64 {
    use std::hash::BuildHasher;
    std::collections::hash_map::RandomState::new().hash_one(std::time::Instant::now())
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
mod tests {
    use super::*;

    #[test]
    fn backoff_doubles_with_jitter_and_is_capped() {
        let p = RetryPolicy {
            max_retries: 5,
            initial_backoff: Duration::from_millis(100),
            max_backoff: Duration::from_millis(350),
        };
        let within = |d: Duration, lo: u64, hi: u64| {
            assert!(
                d >= Duration::from_millis(lo) && d <= Duration::from_millis(hi),
                "{d:?} not in {lo}..={hi} ms"
            );
        };
        for _ in 0..50 {
            within(p.backoff(1, None), 100, 200);
            within(p.backoff(2, None), 200, 350);
            assert_eq!(p.backoff(3, None), Duration::from_millis(350));
        }
        // Jitter spreads the waits of clients that failed together.
        let waits: std::collections::HashSet<Duration> =
            (0..20).map(|_| p.backoff(1, None)).collect();
        assert!(waits.len() > 1);
        assert_eq!(
            p.backoff(1, Some(Duration::from_millis(250))),
            Duration::from_millis(250)
        );
        assert_eq!(
            p.backoff(1, Some(Duration::from_secs(60))),
            Duration::from_millis(350)
        );
    }

    #[test]
    fn retry_after_accepts_seconds_and_refuses_dates() {
        assert_eq!(parse_retry_after("2"), Some(Duration::from_secs(2)));
        assert_eq!(parse_retry_after("0.5"), Some(Duration::from_millis(500)));
        assert_eq!(parse_retry_after("Wed, 21 Oct 2015 07:28:00 GMT"), None);
        assert_eq!(parse_retry_after("-1"), None);
    }
}
