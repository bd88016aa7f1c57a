//! A memory cap for the kf process: Jsonnet can ask for any amount of memory
//! (`[x for x in std.range(0, 1e5) for y in std.range(0, 1e5)]` allocates 240 GB in one
//! go), and Rust aborts when an allocation fails. The binary installs [`CappedAllocator`]:
//! past the cap it ends kf with an error naming what was being evaluated instead of
//! letting the machine swap or the allocation abort.

use std::alloc::{GlobalAlloc, Layout, System};
use std::io::Write;
use std::sync::atomic::{AtomicUsize, Ordering};

/// The default cap; `KF_MAX_MEMORY_MB` changes it.
pub const DEFAULT_MAX_MEMORY_MB: usize = 4096;

static IN_USE: AtomicUsize = AtomicUsize::new(0);
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

pub struct CappedAllocator;

impl CappedAllocator {
    fn reserve(&self, size: usize) {
        let now = IN_USE
            .fetch_add(size, Ordering::Relaxed)
            .saturating_add(size);
        let cap = CAP.load(Ordering::Relaxed);
        if cap != 0 && now > cap {
            over_cap(cap, size);
        }
    }
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
    std::process::exit(1)
}

// SAFETY: every call is forwarded to the system allocator unchanged; only the byte
// count is kept beside it.
unsafe impl GlobalAlloc for CappedAllocator {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        self.reserve(layout.size());
        // SAFETY: the caller upholds `alloc`'s contract, which System shares.
        unsafe { System.alloc(layout) }
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        self.reserve(layout.size());
        // SAFETY: as above.
        unsafe { System.alloc_zeroed(layout) }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        IN_USE.fetch_sub(layout.size(), Ordering::Relaxed);
        // SAFETY: `ptr` came from System with this layout.
        unsafe { System.dealloc(ptr, layout) }
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        if new_size > layout.size() {
            self.reserve(new_size - layout.size());
        } else {
            IN_USE.fetch_sub(layout.size() - new_size, Ordering::Relaxed);
        }
        // SAFETY: as above.
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}
