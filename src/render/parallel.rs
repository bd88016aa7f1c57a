//! Components evaluated on several threads at once. Each thread sets the env up for
//! itself ([`Worker`]) and takes the next component of the render's list (the heaviest
//! first, see [`Queue`]) until none is left; the outcomes are put back in list order, so
//! objects, errors and the error that ends a render are the same as on one thread.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc;
use std::sync::{Arc, Mutex};

use super::worker::{Outcome, Worker};
use super::{ComponentError, RenderError, RenderOptions, RenderedObject, sort_objects};
use crate::app::{App, Component};

/// Threads a render uses at most when [`RenderOptions::workers`] leaves it to the machine:
/// each sets the env up and parses the libraries its components import for itself.
const MAX_WORKERS: usize = 4;

/// Evaluating a component recurses once per level of its source; a helper thread gets the
/// stack the command's own thread has (address space, committed only as used).
pub(super) const HELPER_STACK_BYTES: usize = 1 << 30;

/// The render's list, handed out one component at a time. On several threads the first
/// to ask weighs the list (render/cost.rs) while the others take from it in list order;
/// from then on each module's heaviest component not yet taken goes first.
#[derive(Default)]
struct Queue {
    /// Whether the list is still to be weighed: the first thread to ask clears it.
    to_weigh: AtomicBool,
    stopped: AtomicBool,
    state: Mutex<Places>,
}

#[derive(Default)]
struct Places {
    /// Whether each place of the list is taken (sized by the first thread to ask).
    taken: Vec<bool>,
    /// Where to look on in list order, and in `order`: every place before is taken.
    in_list: usize,
    in_order: usize,
    /// The places heaviest first, once weighed.
    order: Option<Vec<usize>>,
}

impl Places {
    /// The first place not yet taken in `sequence` from `*from` on, taken.
    fn take_first(
        taken: &mut [bool],
        from: &mut usize,
        sequence: impl Iterator<Item = usize>,
    ) -> Option<usize> {
        for (n, place) in sequence.enumerate().skip(*from) {
            if taken.get(place) == Some(&false) {
                taken[place] = true;
                *from = n + 1;
                return Some(place);
            }
        }
        *from = usize::MAX;
        None
    }
}

impl Queue {
    fn new(by_weight: bool) -> Queue {
        Queue {
            to_weigh: AtomicBool::new(by_weight),
            ..Queue::default()
        }
    }

    /// The place in `worker`'s list of the next component; `None` when all are taken or
    /// the render has stopped. A thread whose list is not the first asker's length (the
    /// app changed while the render read it) takes nothing: the render's own thread then
    /// renders what is left, from its own list.
    fn take(&self, worker: &Worker) -> Option<usize> {
        if !self.stopped.load(Ordering::SeqCst) && self.to_weigh.swap(false, Ordering::SeqCst) {
            let order = worker.heaviest_first();
            self.lock().order = Some(order);
        }
        if self.stopped.load(Ordering::SeqCst) {
            return None;
        }
        let mut state = self.lock();
        if state.taken.is_empty() {
            state.taken = vec![false; worker.len()];
        }
        if state.taken.len() != worker.len() {
            return None;
        }
        let Places {
            taken,
            in_list,
            in_order,
            order,
        } = &mut *state;
        match order {
            Some(order) => Places::take_first(taken, in_order, order.iter().copied()),
            None => {
                let len = taken.len();
                Places::take_first(taken, in_list, 0..len)
            }
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Places> {
        self.state
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    fn stop(&self) {
        self.stopped.store(true, Ordering::SeqCst);
    }
}

/// Take components from `queue` until none is left or one ends the render.
fn work(worker: &mut Worker, queue: &Queue) -> Vec<(usize, Outcome)> {
    let mut done = Vec::new();
    while let Some(index) = queue.take(worker) {
        let outcome = worker.render(index);
        if outcome.is_err() {
            queue.stop();
        }
        done.push((index, outcome));
    }
    done
}

struct Helper {
    results: mpsc::Receiver<Vec<(usize, Outcome)>>,
    /// Joined when the render is done; `None` when the thread outlives it (it parks,
    /// keeping its object graph, until the process exits).
    thread: Option<std::thread::JoinHandle<()>>,
}

/// Components a thread should have before a render takes another: each thread sets the
/// env up and parses the ksonnet-lib for itself, which a render of a few components does
/// not win back (on the corpus' two-component apps a second thread made `kf show` slower
/// and added 210 system calls and 1,300 page faults).
const COMPONENTS_PER_THREAD: usize = 6;

/// How many threads besides this one render `options` of an app with `all` components.
fn helper_count(all: usize, options: &RenderOptions) -> usize {
    let components = if options.components.is_empty() {
        all
    } else {
        options.components.len()
    };
    let workers = match options.workers {
        0 => match components.div_ceil(COMPONENTS_PER_THREAD).min(MAX_WORKERS) {
            // Asking the machine reads its cgroup's files: only when it matters.
            wanted @ 2.. => std::thread::available_parallelism().map_or(1, |n| n.get().min(wanted)),
            _ => 1,
        },
        n => n,
    };
    // One component needs no second thread.
    if components < 2 {
        return 0;
    }
    workers.saturating_sub(1)
}

/// Start `helpers` threads on `queue`. `all` is the app's components as this thread read
/// them (`None`: it could not, and reports why): a helper does not walk the folder again.
fn spawn_helpers(
    app: &App,
    env: &str,
    options: &RenderOptions,
    all: Option<&Vec<Component>>,
    helpers: usize,
    queue: &Arc<Queue>,
) -> Vec<Helper> {
    let Some(all) = all else {
        return Vec::new();
    };
    (0..helpers)
        .filter_map(|_| {
            let (sender, results) = mpsc::channel();
            let (app, env, options) = (app.clone(), env.to_string(), options.clone());
            let all = all.clone();
            let queue = queue.clone();
            let outlives = options.leak_engines;
            let thread = std::thread::Builder::new()
                .name("kf-render".into())
                .stack_size(HELPER_STACK_BYTES)
                .spawn(move || {
                    // A helper that cannot set the env up leaves its share to the others:
                    // this thread reports the same error.
                    let done = match Worker::new(&app, &env, &options, Ok(all)) {
                        Ok(mut worker) => {
                            let done = work(&mut worker, &queue);
                            worker.finish();
                            done
                        }
                        Err(_) => Vec::new(),
                    };
                    let _ = sender.send(done);
                    // Ending the thread would free its object graph piece by piece (its
                    // thread-local destructors walk it): the process exits first.
                    if outlives {
                        loop {
                            std::thread::park();
                        }
                    }
                })
                .ok()?;
            Some(Helper {
                results,
                thread: (!outlives).then_some(thread),
            })
        })
        .collect()
}

/// Render `env_name` on this thread and as many helpers as `options` allows.
pub(super) fn render_partial(
    app: &App,
    env_name: &str,
    options: &RenderOptions,
) -> Result<(Vec<RenderedObject>, Vec<ComponentError>), RenderError> {
    let all = app.components();
    let count = helper_count(all.as_ref().map_or(0, Vec::len), options);
    let queue = Arc::new(Queue::new(count > 0));
    let helpers = spawn_helpers(app, env_name, options, all.as_ref().ok(), count, &queue);
    let mut worker = match Worker::new(app, env_name, options, all) {
        Ok(worker) => worker,
        Err(e) => {
            queue.stop();
            for thread in helpers.into_iter().filter_map(|h| h.thread) {
                let _ = thread.join();
            }
            return Err(e);
        }
    };
    let len = worker.len();
    let mut outcomes: Vec<Option<Outcome>> = (0..len).map(|_| None).collect();
    let mut place = |done: Vec<(usize, Outcome)>| {
        for (index, outcome) in done {
            if let Some(slot) = outcomes.get_mut(index) {
                *slot = Some(outcome);
            }
        }
    };
    place(work(&mut worker, &queue));
    for helper in helpers {
        // A helper that died took nothing it did not report, or left it unreported:
        // either way this thread renders what is missing below.
        if let Ok(done) = helper.results.recv() {
            place(done);
        }
        if let Some(thread) = helper.thread {
            let _ = thread.join();
        }
    }
    let end = outcomes
        .iter()
        .position(|o| matches!(o, Some(Err(_))))
        .unwrap_or(len);
    for (index, slot) in outcomes.iter_mut().enumerate().take(end) {
        if slot.is_none() {
            let outcome = worker.render(index);
            let ends = outcome.is_err();
            *slot = Some(outcome);
            if ends {
                break;
            }
        }
    }
    worker.finish();
    let mut objects = Vec::new();
    let mut errors = Vec::new();
    for outcome in outcomes.into_iter().flatten() {
        match outcome? {
            Ok(mut objs) => objects.append(&mut objs),
            Err(e) => errors.push(e),
        }
    }
    sort_objects(&mut objects);
    Ok((objects, errors))
}

#[cfg(test)]
mod tests {
    use super::Places;

    #[test]
    fn every_place_is_taken_once_in_list_order_then_heaviest_first() {
        let mut taken = vec![false; 5];
        let (mut in_list, mut in_order) = (0, 0);
        // While the first thread weighs, the others take in list order.
        let list = |len| 0..len;
        assert_eq!(
            Places::take_first(&mut taken, &mut in_list, list(5)),
            Some(0)
        );
        assert_eq!(
            Places::take_first(&mut taken, &mut in_list, list(5)),
            Some(1)
        );
        // Then the heaviest not yet taken; a place past the list is never handed out.
        let order = [9, 4, 1, 3, 0, 2];
        let mut by_weight = Vec::new();
        while let Some(place) = Places::take_first(&mut taken, &mut in_order, order.iter().copied())
        {
            by_weight.push(place);
        }
        assert_eq!(by_weight, [4, 3, 2]);
        assert!(taken.iter().all(|t| *t));
        assert_eq!(Places::take_first(&mut taken, &mut in_list, list(5)), None);
        assert_eq!(
            Places::take_first(&mut taken, &mut in_order, order.iter().copied()),
            None
        );
    }
}
