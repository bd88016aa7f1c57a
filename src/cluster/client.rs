//! Requests to the API server, with retries: 429 (honouring Retry-After), 5xx, dropped
//! connections and the retryable kind of 409 are tried again with exponential backoff;
//! everything else is returned at once.

use std::time::Duration;

use backon::{ExponentialBuilder, Retryable};
use http::{Method, Request, StatusCode};
use http_body_util::BodyExt;
use serde_json::Value;

/// How hard to retry.
#[derive(Debug, Clone, Copy)]
pub struct RetryPolicy {
    pub attempts: usize,
    pub min_delay: Duration,
    pub max_delay: Duration,
}

impl Default for RetryPolicy {
    fn default() -> Self {
        RetryPolicy {
            attempts: 5,
            min_delay: Duration::from_millis(100),
            max_delay: Duration::from_secs(5),
        }
    }
}

/// A reply from the API server.
#[derive(Debug, Clone)]
pub struct Reply {
    pub status: StatusCode,
    pub body: Value,
}

impl Reply {
    /// The server's message for a failed request (a `Status` object's `message`).
    pub fn message(&self) -> String {
        self.body
            .get("message")
            .and_then(Value::as_str)
            .map(str::to_string)
            .unwrap_or_else(|| format!("HTTP {}", self.status))
    }
}

/// Why a request failed after its retries.
#[derive(Debug, Clone)]
pub enum Failure {
    /// The server answered with an error status.
    Status(Reply),
    /// No answer: connection refused or dropped, timeout.
    Transport(String),
}

impl std::fmt::Display for Failure {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Failure::Status(r) => write!(f, "{} ({})", r.message(), r.status.as_u16()),
            Failure::Transport(e) => write!(f, "{e}"),
        }
    }
}

struct Attempt {
    failure: Failure,
    retry_after: Option<Duration>,
}

fn retryable(a: &Attempt) -> bool {
    match &a.failure {
        Failure::Transport(_) => true,
        Failure::Status(r) => match r.status.as_u16() {
            429 | 500 | 502 | 503 | 504 => true,
            // An optimistic-concurrency conflict is worth retrying; a field-manager
            // conflict of server-side apply is not (it needs --force-conflicts).
            409 => {
                let m = r.message();
                !m.contains("Apply failed with") && !m.contains("Precondition")
            }
            _ => false,
        },
    }
}

/// The cluster connection kf uses for every request.
#[derive(Clone)]
pub struct Cluster {
    client: kube::Client,
    retry: RetryPolicy,
}

impl Cluster {
    pub fn new(client: kube::Client, retry: RetryPolicy) -> Self {
        Cluster { client, retry }
    }

    pub fn kube(&self) -> &kube::Client {
        &self.client
    }

    async fn once(
        &self,
        method: &Method,
        path: &str,
        content_type: Option<&str>,
        body: &[u8],
    ) -> Result<Reply, Attempt> {
        let mut req = Request::builder().method(method.clone()).uri(path);
        if let Some(ct) = content_type {
            req = req.header(http::header::CONTENT_TYPE, ct);
        }
        req = req.header(http::header::ACCEPT, "application/json");
        let req = req
            .body(kube::client::Body::from(body.to_vec()))
            .map_err(|e| Attempt {
                failure: Failure::Transport(format!("bad request {path}: {e}")),
                retry_after: None,
            })?;
        let res = self.client.send(req).await.map_err(|e| Attempt {
            failure: Failure::Transport(e.to_string()),
            retry_after: None,
        })?;
        let status = res.status();
        let retry_after = res
            .headers()
            .get(http::header::RETRY_AFTER)
            .and_then(|v| v.to_str().ok())
            .and_then(|v| v.trim().parse::<u64>().ok())
            .map(Duration::from_secs);
        let bytes = res
            .into_body()
            .collect()
            .await
            .map_err(|e| Attempt {
                failure: Failure::Transport(format!("reading the reply: {e}")),
                retry_after: None,
            })?
            .to_bytes();
        let body = serde_json::from_slice(&bytes).unwrap_or(Value::Null);
        let reply = Reply { status, body };
        if status.is_success() {
            Ok(reply)
        } else {
            Err(Attempt {
                failure: Failure::Status(reply),
                retry_after,
            })
        }
    }

    /// Send a request, retrying what is worth retrying.
    pub async fn request(
        &self,
        method: Method,
        path: &str,
        content_type: Option<&str>,
        body: Vec<u8>,
    ) -> Result<Reply, Failure> {
        let backoff = ExponentialBuilder::default()
            .with_min_delay(self.retry.min_delay)
            .with_max_delay(self.retry.max_delay)
            .with_max_times(self.retry.attempts.saturating_sub(1))
            .with_jitter();
        let max = self.retry.max_delay.max(Duration::from_secs(30));
        (|| self.once(&method, path, content_type, &body))
            .retry(backoff)
            .when(retryable)
            // Retry-After replaces the backoff's delay, but never adds an attempt.
            .adjust(move |a: &Attempt, d| match (a.retry_after, d) {
                (Some(after), Some(_)) => Some(after.min(max)),
                (_, d) => d,
            })
            .await
            .map_err(|a| a.failure)
    }

    pub async fn get(&self, path: &str) -> Result<Reply, Failure> {
        self.request(Method::GET, path, None, Vec::new()).await
    }
}
