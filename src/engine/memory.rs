//! A memory cap for the kf process: Jsonnet can ask for any amount of memory
//! (`[x for x in std.range(0, 1e5) for y in std.range(0, 1e5)]` allocates 240 GB in one
//! go), and Rust aborts when an allocation fails. The binary installs [`CappedAllocator`]:
//! past the cap it ends kf with an error naming what was being evaluated instead of
//! letting the machine swap or the allocation abort.
//!
//! Under the cap, memory comes from mimalloc: a render is mostly small, short-lived
//! allocations, and mimalloc runs it in 13–20% fewer instructions than glibc's malloc
//! (docs/benchmarks.md, "mimalloc"). [`tune_allocator`] keeps its peak memory near glibc's.

use std::alloc::{GlobalAlloc, Layout};

use mimalloc::MiMalloc;
use std::cell::Cell;
use std::io::Write;
use std::sync::atomic::{AtomicIsize, AtomicUsize, Ordering};

/// The default cap; `KF_MAX_MEMORY_MB` changes it.
pub const DEFAULT_MAX_MEMORY_MB: usize = 4096;

/// Bytes in use as last counted: each thread adds what it allocated and freed in batches
/// ([`BATCH`]), so the count is behind by less than that per thread. Signed: one thread may
/// free what another allocated before either has counted it.
static IN_USE: AtomicIsize = AtomicIsize::new(0);

/// How far a thread's own count may run ahead of [`IN_USE`]. An allocation this large is
/// counted (and checked against the cap) before it is made. Counting every allocation
/// in one shared counter cost a locked instruction each, and threads evaluating at once
/// took turns on its cache line.
const BATCH: isize = 1 << 20;

thread_local! {
    /// Bytes this thread allocated, net of what it freed, not yet in [`IN_USE`].
    static UNCOUNTED: Cell<isize> = const { Cell::new(0) };
}
/// Bytes allowed; 0 while no cap is set (or after it was hit, so exiting can allocate).
static CAP: AtomicUsize = AtomicUsize::new(0);

/// Turn the cap on (from `KF_MAX_MEMORY_MB`, else the default).
pub fn enable_cap() {
    let mb = std::env::var("KF_MAX_MEMORY_MB")
        .ok()
        .and_then(|v| v.trim().parse::<usize>().ok())
        .filter(|mb| *mb > 0)
        .unwrap_or(DEFAULT_MAX_MEMORY_MB);
    CAP.store(mb.saturating_mul(1024 * 1024), Ordering::SeqCst);
}

// mimalloc's number for `purge_delay`, from `mi_option_e` in include/mimalloc.h (the same
// in the v2 and v3 sources libmimalloc-sys 0.1.49 carries), which the crate does not name.
const MI_OPTION_PURGE_DELAY: libmimalloc_sys::mi_option_t = 15;

/// How long mimalloc keeps freed memory before giving it back to the system: never (-1),
/// for a process that exits when its command is done. Each purge is an `madvise` and the
/// next use of the page faults again (the kernel zeroes it: half of a small render's time
/// went to zeroing pages). A 10 ms delay once kept the Kubeflow app's peak near glibc's
/// (42.3 MiB, against 45.7 with 1 s); since kf parses only the ksonnet-lib types a render
/// reaches, the peak is the same with and without purging (33.5 MiB on that app, 38.2 on
/// 500 components), and the small corpus app makes ~90 system calls fewer.
/// docs/benchmarks.md, "The fixed cost of a process", has the figures.
const PURGE_DELAY_MS: std::ffi::c_long = -1;

/// Set mimalloc's purge delay ([`PURGE_DELAY_MS`]). mimalloc reads it each time it
/// purges, so the start of `main` is in time; the `MIMALLOC_*` variables are read before
/// `main`, and this overrides theirs.
pub fn tune_allocator() {
    // A purge delay the user set (for a measurement) is theirs.
    if std::env::var_os("MIMALLOC_PURGE_DELAY").is_some() {
        return;
    }
    // SAFETY: mi_option_set only stores the value, 15 is a valid option of the linked
    // mimalloc, and no other thread exists yet.
    unsafe { libmimalloc_sys::mi_option_set(MI_OPTION_PURGE_DELAY, PURGE_DELAY_MS) };
}

pub struct CappedAllocator;

impl CappedAllocator {
    /// Count `delta` bytes allocated (negative: freed); past the cap, end kf.
    fn count(&self, delta: isize) {
        let batch = UNCOUNTED.try_with(|uncounted| {
            let now = uncounted.get().saturating_add(delta);
            if now.abs() < BATCH {
                uncounted.set(now);
                0
            } else {
                uncounted.set(0);
                now
            }
        });
        // A thread past its thread-locals' end counts directly.
        let batch = batch.unwrap_or(delta);
        if batch == 0 {
            return;
        }
        let now = IN_USE
            .fetch_add(batch, Ordering::Relaxed)
            .saturating_add(batch);
        let cap = CAP.load(Ordering::Relaxed);
        if batch > 0 && cap != 0 && usize::try_from(now).is_ok_and(|now| now > cap) {
            over_cap(cap, delta.unsigned_abs());
        }
    }
}

fn signed(size: usize) -> isize {
    isize::try_from(size).unwrap_or(isize::MAX)
}

#[cold]
fn over_cap(cap: usize, size: usize) -> ! {
    CAP.store(0, Ordering::SeqCst);
    let subject = super::watchdog::current_subject();
    let mut err = std::io::stderr().lock();
    let _ = writeln!(
        err,
        "error: {subject}: evaluation needs more than {} MiB of memory (it asked for {} MiB more at once); kf stops at KF_MAX_MEMORY_MB={} — look for a runaway std.range, comprehension or string, or raise KF_MAX_MEMORY_MB",
        cap / (1024 * 1024),
        size / (1024 * 1024),
        cap / (1024 * 1024)
    );
    drop(err);
    // Not `process::exit`: that runs the thread-local destructors, and the evaluator's
    // (its interner among them) may be borrowed by the very call that ran over the cap.
    // SAFETY: `_exit` ends the process at once; nothing runs after it.
    unsafe { libc::_exit(1) }
}

// SAFETY: every call is forwarded to mimalloc unchanged; only the byte count is kept
// beside it.
unsafe impl GlobalAlloc for CappedAllocator {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        self.count(signed(layout.size()));
        // SAFETY: the caller upholds `alloc`'s contract, which MiMalloc shares.
        unsafe { MiMalloc.alloc(layout) }
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        self.count(signed(layout.size()));
        // SAFETY: as above.
        unsafe { MiMalloc.alloc_zeroed(layout) }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        self.count(-signed(layout.size()));
        // SAFETY: `ptr` came from MiMalloc with this layout.
        unsafe { MiMalloc.dealloc(ptr, layout) }
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        self.count(signed(new_size).saturating_sub(signed(layout.size())));
        // SAFETY: as above.
        unsafe { MiMalloc.realloc(ptr, layout, new_size) }
    }
}
