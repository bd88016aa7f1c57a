//! Flow control shared by every request of a command: a window of requests in flight that
//! halves when the server says it is overloaded (429, 503) and grows back by one after a
//! window's worth of successes (additive increase, multiplicative decrease), so that a
//! throttling server is obeyed by the client as a whole, not by each request on its own.
//!
//! A wait the server asks for (Retry-After, or the backoff after a 503) holds every
//! request, not only the one it answered: a request gives its place back while it waits,
//! and takes one again (after the shared pause) to retry. Under a server that answers
//! every request 429 with Retry-After 1, kf sends about one request a second, as kubectl
//! (one object at a time) does. Streams above (apply's, prune's, diff's `--concurrency`)
//! still bound the window from above; a healthy server never meets the window at all.

use std::sync::Mutex;
use std::time::{Duration, Instant};

use tokio::sync::Notify;

/// The window's start and ceiling: above every `--concurrency`, so that it only ever
/// lowers what the streams ask for.
const CEILING: usize = 64;

#[derive(Debug)]
pub struct Throttle {
    state: Mutex<State>,
    freed: Notify,
}

#[derive(Debug)]
struct State {
    limit: usize,
    in_flight: usize,
    /// Successes since the window last grew.
    successes: usize,
    /// No request starts before this: the wait the server last asked for.
    not_before: Option<Instant>,
}

/// A place in the window, given back on drop.
pub struct Slot<'a> {
    throttle: &'a Throttle,
}

impl Drop for Slot<'_> {
    fn drop(&mut self) {
        self.throttle.lock().in_flight -= 1;
        self.throttle.freed.notify_waiters();
    }
}

impl Default for Throttle {
    fn default() -> Self {
        Throttle {
            state: Mutex::new(State {
                limit: CEILING,
                in_flight: 0,
                successes: 0,
                not_before: None,
            }),
            freed: Notify::new(),
        }
    }
}

impl Throttle {
    fn lock(&self) -> std::sync::MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Wait for the shared pause to end and a place in the window.
    pub async fn slot(&self) -> Slot<'_> {
        loop {
            // Made before the check: a place freed in between still wakes it.
            let freed = self.freed.notified();
            let pause = {
                let mut s = self.lock();
                match s.not_before {
                    Some(t) if t > Instant::now() => Some(t),
                    _ if s.in_flight < s.limit => {
                        s.in_flight += 1;
                        return Slot { throttle: self };
                    }
                    _ => None,
                }
            };
            match pause {
                Some(until) => tokio::time::sleep_until(until.into()).await,
                None => freed.await,
            }
        }
    }

    /// The server asked to wait `delay` before the next request: every request waits.
    pub fn pause(&self, delay: Duration) {
        let until = Instant::now() + delay;
        let mut s = self.lock();
        s.not_before = Some(s.not_before.map_or(until, |t| t.max(until)));
    }

    /// The server said it is overloaded: halve the window (from what is in flight, never
    /// below one). Returns the new window when it shrank.
    pub fn slow_down(&self) -> Option<usize> {
        let mut s = self.lock();
        let halved = (s.limit.min(s.in_flight) / 2).max(1);
        s.successes = 0;
        if halved < s.limit {
            s.limit = halved;
            Some(halved)
        } else {
            None
        }
    }

    /// A request went through: after a window's worth of them, one place more.
    pub fn went_well(&self) {
        let grew = {
            let mut s = self.lock();
            s.successes += 1;
            if s.successes >= s.limit && s.limit < CEILING {
                s.limit += 1;
                s.successes = 0;
                true
            } else {
                false
            }
        };
        if grew {
            self.freed.notify_waiters();
        }
    }

    /// The window now.
    pub fn limit(&self) -> usize {
        self.lock().limit
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_window_halves_on_overload_and_grows_back_by_one() {
        let t = Throttle::default();
        let rt = tokio::runtime::Builder::new_current_thread()
            .enable_time()
            .build()
            .unwrap();
        rt.block_on(async {
            let held: Vec<Slot> = {
                let mut v = Vec::new();
                for _ in 0..8 {
                    v.push(t.slot().await);
                }
                v
            };
            // Halved from what is in flight, not from the ceiling.
            assert_eq!(t.slow_down(), Some(4));
            assert_eq!(t.slow_down(), Some(2));
            assert_eq!(t.slow_down(), Some(1));
            assert_eq!(t.slow_down(), None);
            drop(held);
            let one = t.slot().await;
            // A second place waits until the first is given back.
            let second = tokio::time::timeout(std::time::Duration::from_millis(20), t.slot()).await;
            assert!(second.is_err());
            drop(one);
            let _again = t.slot().await;
            drop(_again);
            // A pause holds every new request.
            t.pause(Duration::from_millis(150));
            let start = Instant::now();
            let _after = t.slot().await;
            assert!(start.elapsed() >= Duration::from_millis(140));
        });
        t.went_well();
        assert_eq!(t.limit(), 2);
        t.went_well();
        assert_eq!(t.limit(), 2);
        t.went_well();
        assert_eq!(t.limit(), 3);
    }
}
