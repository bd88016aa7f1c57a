//! Requests to the API server, with kf's one retry layer: 429 (honouring Retry-After, capped
//! at 30 s), 500/502/503/504, dropped connections, timeouts and the retryable kind of 409 are
//! tried again with exponential backoff; everything else is returned at once.
//!
//! kube's own retry layer (`Config::default_retry`, 15 retries with Retry-After uncapped and
//! a backoff up to 1000 s, kube-client 5 `src/client/retry.rs`) is switched off where the
//! client is built (`select::connect`), so there is exactly one layer, this one. Every
//! attempt has its own timeout, the whole command has a deadline (`--timeout`), and each
//! retry is said on stderr, so a CI log shows why a run takes long.

use std::time::{Duration, Instant};

use backon::{BackoffBuilder, ExponentialBuilder};
use http::{Method, Request, StatusCode};
use http_body_util::BodyExt;
use serde_json::Value;

use super::redact::{kube_error, redact, root_cause, server_message};
use super::select::Endpoint;
use super::version::MinorVersion;

/// The longest kf waits on a server's Retry-After.
pub const MAX_RETRY_AFTER: Duration = Duration::from_secs(30);

/// The words of the transport failures that say for certain no server is there.
const REFUSED: &str = "connection refused to";
const UNRESOLVED: &str = "cannot resolve the host of";

/// How hard to retry, and how long one attempt may take.
#[derive(Debug, Clone, Copy)]
pub struct RetryPolicy {
    pub attempts: usize,
    pub min_delay: Duration,
    pub max_delay: Duration,
    /// One attempt, from sending the request to the last byte of the reply.
    pub request_timeout: Duration,
}

impl Default for RetryPolicy {
    fn default() -> Self {
        RetryPolicy {
            attempts: 5,
            min_delay: Duration::from_millis(100),
            max_delay: Duration::from_secs(5),
            request_timeout: Duration::from_secs(30),
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
    /// No answer: connection refused or dropped, an attempt that timed out.
    Transport(String),
    /// The server answered success with a body that is not a JSON object.
    BadReply(String),
    /// The command's `--timeout` is spent.
    Deadline(String),
}

impl std::error::Error for Failure {}

impl std::fmt::Display for Failure {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Failure::Status(r) => write!(
                f,
                "{} ({})",
                server_message(&r.message()),
                r.status.as_u16()
            ),
            Failure::Transport(e) | Failure::BadReply(e) | Failure::Deadline(e) => {
                write!(f, "{e}")
            }
        }
    }
}

struct Attempt {
    failure: Failure,
    retry_after: Option<Duration>,
}

impl From<Failure> for Attempt {
    /// A failed attempt whose reply named no Retry-After.
    fn from(failure: Failure) -> Attempt {
        Attempt {
            failure,
            retry_after: None,
        }
    }
}

/// An attempt that had no reply within `limit`.
fn no_reply(what: &str, limit: Duration) -> Failure {
    Failure::Transport(format!("{what}: no reply within {}", humantime(limit)))
}

fn retryable(a: &Attempt) -> bool {
    match &a.failure {
        Failure::Transport(_) => true,
        Failure::BadReply(_) | Failure::Deadline(_) => false,
        Failure::Status(r) => match r.status.as_u16() {
            429 | 502 | 503 | 504 => true,
            // Most 500s say the request itself cannot be served (`failed to create typed
            // patch object`, a webhook with no endpoints): sending it again gives the same
            // answer. Only the storage layer's own hiccups are worth another try.
            500 => transient_internal_error(&r.message()),
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

/// Whether a 500's message is one of the API server's transient failures (etcd timing
/// out or changing leader, a request cut short), which a later attempt may get past.
fn transient_internal_error(message: &str) -> bool {
    const TRANSIENT: &[&str] = &[
        "etcdserver: request timed out",
        "etcdserver: leader changed",
        "etcdserver: too many requests",
        "context deadline exceeded",
        "the server was unable to return a response in the time allotted",
        "Timeout: request did not complete",
        "http2: client connection lost",
    ];
    TRANSIENT.iter().any(|t| message.contains(t))
}

/// The first bytes of a body, printable and [`redact`]ed (a proxy's error page may echo
/// the request's Authorization header), for an error message.
fn snippet(bytes: &[u8]) -> String {
    let text = String::from_utf8_lossy(bytes);
    let one_line = redact(&text.split_whitespace().collect::<Vec<_>>().join(" "));
    let mut s: String = one_line.chars().take(80).collect();
    if one_line.chars().count() > 80 {
        s.push('…');
    }
    s
}

/// The cluster connection kf uses for every request.
#[derive(Clone)]
pub struct Cluster {
    client: kube::Client,
    retry: RetryPolicy,
    deadline: Option<Instant>,
    /// The `--timeout` the deadline came from, for messages.
    budget: Duration,
    quiet: bool,
    /// Where requests go, to name it when they cannot get there.
    endpoint: Endpoint,
    /// The server's version, once read.
    version: Option<MinorVersion>,
    /// Requests in flight, shared by every clone: fewer when the server is overloaded.
    throttle: std::sync::Arc<super::throttle::Throttle>,
}

impl Cluster {
    pub fn new(client: kube::Client, retry: RetryPolicy) -> Self {
        Cluster {
            client,
            retry,
            deadline: None,
            budget: Duration::ZERO,
            quiet: false,
            endpoint: Endpoint::default(),
            version: None,
            throttle: Default::default(),
        }
    }

    /// The server's version (`/version`'s gitVersion), if it says. This is kf's first
    /// request: when it shows for certain that no server is there (connection refused, a
    /// host that does not resolve), that is the error, at once and without retries.
    pub async fn server_version(&self) -> Result<Option<(MinorVersion, String)>, Failure> {
        let reply = match self.bounded(&Method::GET, "/version", None, &[]).await {
            Ok(reply) => Some(reply),
            Err(Attempt {
                failure: Failure::Transport(why),
                ..
            }) if why.contains(REFUSED)
                || (why.contains(UNRESOLVED) && !why.to_lowercase().contains("temporary")) =>
            {
                return Err(Failure::Transport(why));
            }
            Err(_) => self.get("/version").await.ok(),
        };
        Ok(reply.and_then(|reply| {
            let git = reply.body["gitVersion"].as_str()?.to_string();
            Some((MinorVersion::parse(&git)?, git))
        }))
    }

    /// Remember the server's version (see [`Cluster::server_version`]).
    pub fn with_version(mut self, version: Option<MinorVersion>) -> Self {
        self.version = version;
        self
    }

    pub fn version(&self) -> Option<MinorVersion> {
        self.version
    }

    /// Where requests go: the context, the server's URL and any proxy.
    pub fn endpoint(&self) -> &Endpoint {
        &self.endpoint
    }

    /// Name this server (and proxy) when a request cannot reach it.
    pub fn with_endpoint(mut self, endpoint: Endpoint) -> Self {
        self.endpoint = endpoint;
        self
    }

    /// Why a request got no answer, naming where it was going: "connection refused to
    /// https://10.0.0.1:6443", with the proxy when the kubeconfig names one.
    fn unreachable(&self, e: &(dyn std::error::Error + 'static)) -> String {
        let target = if self.endpoint.server.is_empty() {
            "the API server".to_string()
        } else {
            self.endpoint.server.clone()
        };
        let via = self
            .endpoint
            .proxy
            .as_ref()
            .map(|p| format!(" via proxy {p}"))
            .unwrap_or_default();
        let cause = root_cause(e);
        let lower = cause.to_lowercase();
        if lower.contains("connection refused") {
            format!("{REFUSED} {target}{via}")
        } else if lower.contains("lookup address") || lower.contains("dns error") {
            format!("{UNRESOLVED} {target}{via} ({cause})")
        } else if lower.contains("certificate") || lower.contains("tls") {
            format!("TLS with {target}{via} failed: {cause}")
        } else {
            format!("cannot reach {target}{via}: {cause}")
        }
    }

    /// Bound every request (and its retries) by the command's total `timeout`, counted
    /// from `started`.
    pub fn with_timeout(mut self, timeout: Duration, started: Instant) -> Self {
        self.deadline = Some(started + timeout);
        self.budget = timeout;
        self
    }

    /// A line on stderr about the work (unless quiet).
    pub fn say(&self, line: &str) {
        if !self.quiet {
            eprintln!("{line}");
        }
    }

    /// Do not print retries on stderr (test helpers).
    pub fn quiet(mut self) -> Self {
        self.quiet = true;
        self
    }

    pub fn kube(&self) -> &kube::Client {
        &self.client
    }

    /// Time left before the command's deadline (`None`: no deadline).
    pub fn remaining(&self) -> Option<Duration> {
        self.deadline
            .map(|d| d.saturating_duration_since(Instant::now()))
    }

    /// The message for a spent `--timeout`.
    pub fn deadline_message(&self, what: &str) -> String {
        format!(
            "{what}: gave up, the command's --timeout of {} is spent; retry later or pass a longer --timeout",
            humantime(self.budget)
        )
    }

    async fn once(
        &self,
        method: &Method,
        path: &str,
        content_type: Option<&str>,
        body: &[u8],
    ) -> Result<Reply, Attempt> {
        let transport = |e: String| Attempt::from(Failure::Transport(e));
        let mut req = Request::builder().method(method.clone()).uri(path);
        if let Some(ct) = content_type {
            req = req.header(http::header::CONTENT_TYPE, ct);
        }
        req = req.header(http::header::ACCEPT, "application/json");
        let req = req
            .body(kube::client::Body::from(body.to_vec()))
            .map_err(|e| transport(format!("{method} {path}: bad request: {e}")))?;
        let res = self
            .client
            .send(req)
            .await
            .map_err(|e| transport(format!("{method} {path}: {}", self.unreachable(&e))))?;
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
            .map_err(|e| {
                transport(format!(
                    "{method} {path}: reading the reply: {}",
                    redact(&e.to_string())
                ))
            })?
            .to_bytes();
        let parsed = serde_json::from_slice::<Value>(&bytes);
        if status.is_success() {
            // A success whose body is not an object (a proxy's HTML page, a truncated reply)
            // says nothing about the object: an error, never "unchanged".
            return match parsed {
                Ok(body @ Value::Object(_)) => Ok(Reply { status, body }),
                _ => Err(Attempt::from(Failure::BadReply(format!(
                    "{method} {path}: the server answered {} with a body that is not a JSON object ({:?}); is a proxy in the way?",
                    status.as_u16(),
                    snippet(&bytes)
                )))),
            };
        }
        let body = parsed.unwrap_or_else(
            |_| serde_json::json!({"message": format!("HTTP {status}: {}", snippet(&bytes))}),
        );
        Err(Attempt {
            failure: Failure::Status(Reply { status, body }),
            retry_after,
        })
    }

    /// One attempt, bounded by the per-request timeout and the command's deadline.
    async fn bounded(
        &self,
        method: &Method,
        path: &str,
        content_type: Option<&str>,
        body: &[u8],
    ) -> Result<Reply, Attempt> {
        let limit = match self.remaining() {
            Some(left) if left.is_zero() => {
                return Err(Attempt::from(Failure::Deadline(
                    self.deadline_message(&format!("{method} {path}")),
                )));
            }
            Some(left) => self.retry.request_timeout.min(left),
            None => self.retry.request_timeout,
        };
        match tokio::time::timeout(limit, self.once(method, path, content_type, body)).await {
            Ok(r) => r,
            Err(_) if self.remaining().is_some_and(|l| l.is_zero()) => Err(Attempt::from(
                Failure::Deadline(self.deadline_message(&format!("{method} {path}"))),
            )),
            Err(_) => Err(Attempt::from(no_reply(&format!("{method} {path}"), limit))),
        }
    }

    /// Send a request, retrying what is worth retrying, within the command's deadline.
    pub async fn request(
        &self,
        method: Method,
        path: &str,
        content_type: Option<&str>,
        body: Vec<u8>,
    ) -> Result<Reply, Failure> {
        let what = format!("{method} {path}");
        self.retrying(&what, || self.bounded(&method, path, content_type, &body))
            .await
    }

    /// Run `op` (kube's own requests: discovery) under the same retries and deadline.
    pub async fn retry_kube<T, Fut>(&self, what: &str, op: impl Fn() -> Fut) -> Result<T, Failure>
    where
        Fut: std::future::Future<Output = Result<T, kube::Error>>,
    {
        let limit = self.retry.request_timeout;
        self.retrying(what, || async {
            let limit = self.remaining().map_or(limit, |left| left.min(limit));
            match tokio::time::timeout(limit, op()).await {
                Ok(Ok(v)) => Ok(v),
                Ok(Err(kube::Error::Api(status))) => {
                    let code = StatusCode::from_u16(status.code)
                        .unwrap_or(StatusCode::INTERNAL_SERVER_ERROR);
                    Err(Attempt::from(Failure::Status(Reply {
                        status: code,
                        body: serde_json::json!({"message": format!("{what}: {}", status.message)}),
                    })))
                }
                Ok(Err(e @ (kube::Error::HyperError(_) | kube::Error::Service(_)))) => {
                    Err(Attempt::from(Failure::Transport(format!(
                        "{what}: {}",
                        self.unreachable(&e)
                    ))))
                }
                // A reply kube could not read: asking again gets the same.
                Ok(Err(e)) => Err(Attempt::from(Failure::BadReply(format!(
                    "{what}: {}",
                    kube_error(&e)
                )))),
                Err(_) => Err(Attempt::from(no_reply(what, limit))),
            }
        })
        .await
    }

    /// kf's one retry loop: backoff (or Retry-After, capped) between attempts, each retry
    /// said on stderr, and never past the command's deadline.
    async fn retrying<T, Fut>(
        &self,
        what: &str,
        attempt_once: impl Fn() -> Fut,
    ) -> Result<T, Failure>
    where
        Fut: std::future::Future<Output = Result<T, Attempt>>,
    {
        let attempts = self.retry.attempts.max(1);
        let mut delays = ExponentialBuilder::default()
            .with_min_delay(self.retry.min_delay)
            .with_max_delay(self.retry.max_delay)
            .with_max_times(attempts - 1)
            .with_jitter()
            .build();
        let mut attempt = 1;
        loop {
            if self.remaining().is_some_and(|l| l.is_zero()) {
                return Err(Failure::Deadline(self.deadline_message(what)));
            }
            // A place in the shared window for each attempt, after any pause the server
            // asked of every request.
            let slot = match self.remaining() {
                Some(left) => tokio::time::timeout(left, self.throttle.slot())
                    .await
                    .map_err(|_| Failure::Deadline(self.deadline_message(what)))?,
                None => self.throttle.slot().await,
            };
            let result = attempt_once().await;
            drop(slot);
            let a = match result {
                Ok(r) => {
                    self.throttle.went_well();
                    return Ok(r);
                }
                Err(a) => a,
            };
            if let Failure::Status(r) = &a.failure
                && matches!(r.status.as_u16(), 429 | 503)
                && let Some(window) = self.throttle.slow_down()
                && !self.quiet
            {
                eprintln!(
                    "the server is overloaded ({}): kf now sends at most {window} request(s) at once",
                    r.status.as_u16()
                );
            }
            if !retryable(&a) {
                return Err(a.failure);
            }
            let Some(backoff) = delays.next() else {
                return Err(a.failure);
            };
            // Retry-After replaces the backoff's delay (never beyond 30 s), but never adds
            // an attempt.
            let delay = a
                .retry_after
                .map_or(backoff, |after| after.min(MAX_RETRY_AFTER));
            let overloaded =
                matches!(&a.failure, Failure::Status(r) if matches!(r.status.as_u16(), 429 | 503));
            // The wait the server asked for is every request's (one it would not have kf
            // honour at all, beyond 30 s, fails this request only).
            if overloaded && a.retry_after.is_none_or(|r| r <= MAX_RETRY_AFTER) {
                self.throttle
                    .pause(self.remaining().map_or(delay, |left| delay.min(left)));
            }
            if let Some(left) = self.remaining()
                && delay >= left
            {
                // Not spent yet: say what stopped it, and what was left.
                let why = match a.retry_after {
                    Some(asked) => format!("the server asked to wait {}", humantime(asked)),
                    None => format!("the next retry would be in {}", humantime(delay)),
                };
                return Err(Failure::Deadline(format!(
                    "{what}: gave up: {why}, longer than the {} left of the command's --timeout of {}; retry later or pass a longer --timeout; last error: {}",
                    humantime(left),
                    humantime(self.budget),
                    a.failure
                )));
            }
            if !self.quiet {
                // The failure may name the request already: say it once.
                let why = a.failure.to_string();
                let why = why.strip_prefix(&format!("{what}: ")).unwrap_or(&why);
                eprintln!(
                    "retrying {what} in {} (attempt {} of {attempts}): {why}",
                    humantime(delay),
                    attempt + 1,
                );
            }
            tokio::time::sleep(delay).await;
            attempt += 1;
        }
    }

    pub async fn get(&self, path: &str) -> Result<Reply, Failure> {
        self.request(Method::GET, path, None, Vec::new()).await
    }
}

/// `1.5s`, `30s`, `5m`, `250ms`: a duration for messages.
pub fn humantime(d: Duration) -> String {
    let ms = d.as_millis();
    if ms < 1000 {
        format!("{ms}ms")
    } else if ms.is_multiple_of(60_000) {
        format!("{}m", ms / 60_000)
    } else if ms.is_multiple_of(1000) {
        format!("{}s", ms / 1000)
    } else {
        format!("{:.1}s", d.as_secs_f64())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn durations_read_like_the_flags() {
        assert_eq!(humantime(Duration::from_millis(250)), "250ms");
        assert_eq!(humantime(Duration::from_secs(30)), "30s");
        assert_eq!(humantime(Duration::from_secs(300)), "5m");
        assert_eq!(humantime(Duration::from_millis(1500)), "1.5s");
    }

    #[test]
    fn only_transient_internal_errors_are_worth_a_retry() {
        for transient in [
            "etcdserver: request timed out",
            "rpc error: code = Unavailable desc = etcdserver: leader changed",
            "Timeout: request did not complete within requested timeout - context deadline exceeded",
        ] {
            assert!(transient_internal_error(transient), "{transient}");
        }
        for deterministic in [
            "failed to create typed patch object: .spec.ports: element 0: associative list with keys has an element that omits key field \"protocol\"",
            "Internal error occurred: failed calling webhook \"x\": no endpoints available for service \"w\"",
            "injected fault",
        ] {
            assert!(!transient_internal_error(deterministic), "{deterministic}");
        }
    }
}
