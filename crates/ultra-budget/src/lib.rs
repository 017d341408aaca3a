//! What one request may use.
//!
//! A server's memory is shared by every client, and an allocation that fails aborts the
//! whole process. Work that can grow without bound (an awk program, a sed script, a
//! pipeline) therefore runs under a [`Meter`]: while a thread has [`Meter::enter`]ed it,
//! every allocation that thread makes is charged to the meter (and every free credited),
//! and the work asks [`Meter::over`] at its loop ticks to stop with an error instead of
//! growing until the allocator fails.
//!
//! Charging needs the binary to install [`Counting`] as its global allocator; without it
//! (library tests) meters see only the time limit. Charging is approximate by design:
//! memory freed on another thread or after the request ends is not credited to it.

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;
use std::sync::Arc;
use std::sync::atomic::{AtomicIsize, Ordering};
use std::time::Instant;

thread_local! {
    /// The meter this thread's allocations are charged to (null: none).
    static CHARGED: Cell<*const Meter> = const { Cell::new(std::ptr::null()) };
}

/// The system allocator (jemalloc, see [`allocator`]), charging each allocation to the
/// current thread's meter.
pub struct Counting;

fn charge(delta: isize) {
    // `try_with`: during thread teardown the slot may be gone; nothing is charged then.
    let _ = CHARGED.try_with(|c| {
        let m = c.get();
        if !m.is_null() {
            // SAFETY: a non-null pointer is set only by `Entered`, which keeps its `Arc`
            // alive and resets the slot before releasing it.
            unsafe { (*m).used.fetch_add(delta, Ordering::Relaxed) };
        }
    });
}

// SAFETY: every call forwards to `System` unchanged; charging only counts.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        // SAFETY: the caller's contract is passed on.
        let p = unsafe { System.alloc(layout) };
        if !p.is_null() {
            charge(layout.size() as isize);
        }
        p
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        // SAFETY: the caller's contract is passed on.
        let p = unsafe { System.alloc_zeroed(layout) };
        if !p.is_null() {
            charge(layout.size() as isize);
        }
        p
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: the caller's contract is passed on.
        unsafe { System.dealloc(ptr, layout) };
        charge(-(layout.size() as isize));
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        // SAFETY: the caller's contract is passed on.
        let p = unsafe { System.realloc(ptr, layout, new_size) };
        if !p.is_null() {
            charge(new_size as isize - layout.size() as isize);
        }
        p
    }
}

/// The process's allocator, as `jemalloc 5.3.0-…`: linking this crate makes jemalloc the
/// `malloc` of the whole process, Rust's and tree-sitter's C alike. glibc's arenas spent a
/// sixth of a cold index consolidating freed chunks between the parser's many small
/// allocations and the index's; jemalloc's size classes do not.
pub fn allocator() -> String {
    let mut version: *const std::ffi::c_char = std::ptr::null();
    let mut len = std::mem::size_of_val(&version);
    // SAFETY: "version" reads a `const char *` into `version`; `len` is its size.
    let rc = unsafe {
        tikv_jemalloc_sys::mallctl(
            c"version".as_ptr(),
            (&raw mut version).cast(),
            &mut len,
            std::ptr::null_mut(),
            0,
        )
    };
    if rc != 0 || version.is_null() {
        return "jemalloc".into();
    }
    // SAFETY: jemalloc's version is a static NUL-terminated string.
    let v = unsafe { std::ffi::CStr::from_ptr(version) };
    format!("jemalloc {}", v.to_string_lossy())
}

/// Hand freed memory back to the system now rather than as it decays: after a big index
/// the arenas hold the parser's freed trees and buffers (a server would hold over 100 MiB
/// more than its index needs for a while).
pub fn release_freed_memory() {
    // `arena.<MALLCTL_ARENAS_ALL>.purge`: every arena's unused dirty pages.
    // SAFETY: a purge takes and returns no value.
    unsafe {
        tikv_jemalloc_sys::mallctl(
            c"arena.4096.purge".as_ptr(),
            std::ptr::null_mut(),
            std::ptr::null_mut(),
            std::ptr::null_mut(),
            0,
        );
    }
}

/// Which limit a request ran past.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Over {
    /// Its time limit.
    Time,
    /// Its memory limit.
    Memory,
}

impl Over {
    /// "time" or "memory", for messages.
    pub fn what(self) -> &'static str {
        match self {
            Over::Time => "time",
            Over::Memory => "memory",
        }
    }
}

/// One request's limits and what it has used of them.
#[derive(Debug)]
pub struct Meter {
    used: AtomicIsize,
    memory: usize,
    deadline: Option<Instant>,
}

impl Meter {
    /// A meter allowing `memory` bytes held at once and, with `deadline`, time until then.
    pub fn new(memory: usize, deadline: Option<Instant>) -> Arc<Meter> {
        Arc::new(Meter {
            used: AtomicIsize::new(0),
            memory,
            deadline,
        })
    }

    /// Bytes charged and not yet credited (negative when the request freed more than it
    /// allocated, e.g. its own input).
    pub fn used(&self) -> isize {
        self.used.load(Ordering::Relaxed)
    }

    /// The memory limit in bytes.
    pub fn memory_limit(&self) -> usize {
        self.memory
    }

    /// Whether the request held more than its memory limit (cheap: one atomic load).
    pub fn over_memory(&self) -> bool {
        self.used() > self.memory.min(isize::MAX as usize) as isize
    }

    /// Whether the request's time is up.
    pub fn over_time(&self) -> bool {
        self.deadline.is_some_and(|d| Instant::now() >= d)
    }

    /// The first limit the request is past, if any.
    pub fn over(&self) -> Option<Over> {
        if self.over_memory() {
            Some(Over::Memory)
        } else if self.over_time() {
            Some(Over::Time)
        } else {
            None
        }
    }

    /// Charge this thread's allocations to the meter until the guard drops (nested
    /// entries restore the outer meter).
    pub fn enter(self: &Arc<Meter>) -> Entered {
        let keep = self.clone();
        let previous = CHARGED.with(|c| c.replace(Arc::as_ptr(&keep)));
        Entered {
            _keep: keep,
            previous,
        }
    }
}

/// While alive, the current thread's allocations are charged to a meter.
pub struct Entered {
    /// Keeps the meter alive while the slot points at it.
    _keep: Arc<Meter>,
    previous: *const Meter,
}

impl Drop for Entered {
    fn drop(&mut self) {
        CHARGED.with(|c| c.set(self.previous));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[global_allocator]
    static A: Counting = Counting;

    #[test]
    fn allocations_are_charged_only_while_entered() {
        let m = Meter::new(1 << 20, None);
        let before = Vec::<u8>::with_capacity(4 << 20);
        assert_eq!(m.used(), 0);
        {
            let _in = m.enter();
            let v = vec![1u8; 2 << 20];
            assert!(m.used() >= 2 << 20, "{}", m.used());
            assert_eq!(m.over(), Some(Over::Memory));
            drop(v);
            assert!(m.used() < 1 << 20, "{}", m.used());
            assert_eq!(m.over(), None);
        }
        let after = vec![0u8; 8 << 20];
        assert!(m.used() < 1 << 20, "outside the scope nothing is charged");
        drop((before, after));
    }

    #[test]
    fn c_and_rust_allocations_go_to_jemalloc() {
        assert!(allocator().starts_with("jemalloc 5."), "{}", allocator());
        // jemalloc rounds 100,000 bytes up to its 114,688 size class; glibc adds a word.
        // SAFETY: a plain malloc/free pair, as C code (tree-sitter) and `System` make.
        unsafe {
            let p = malloc(100_000);
            assert_eq!(malloc_usable_size(p), 114_688);
            free(p);
        }
        let v: Vec<u8> = Vec::with_capacity(100_000);
        // SAFETY: the Vec's buffer came from the global allocator, `System`'s malloc.
        assert_eq!(unsafe { malloc_usable_size(v.as_ptr() as *mut _) }, 114_688);
        drop(v);
        release_freed_memory();
    }

    unsafe extern "C" {
        fn malloc(size: usize) -> *mut std::ffi::c_void;
        fn free(p: *mut std::ffi::c_void);
        fn malloc_usable_size(p: *mut std::ffi::c_void) -> usize;
    }

    #[test]
    fn nested_entries_restore_the_outer_meter() {
        let outer = Meter::new(usize::MAX, None);
        let inner = Meter::new(usize::MAX, None);
        let _o = outer.enter();
        {
            let _i = inner.enter();
            let v = vec![0u8; 1 << 20];
            std::hint::black_box(&v);
            assert!(inner.used() >= 1 << 20);
            std::mem::forget(v);
        }
        let w = vec![0u8; 1 << 20];
        std::hint::black_box(&w);
        assert!(outer.used() >= 1 << 20);
        assert!(inner.used() < 2 << 20);
    }

    #[test]
    fn a_deadline_in_the_past_is_over_time() {
        let m = Meter::new(usize::MAX, Some(Instant::now()));
        assert_eq!(m.over(), Some(Over::Time));
        assert_eq!(Meter::new(usize::MAX, None).over(), None);
    }
}
