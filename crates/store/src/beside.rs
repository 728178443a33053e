//! Threads kept waiting to run the second half of a read split in two (see
//! `Store::read_beside`), so that half starts at once.
//!
//! A thread started for each split waited about 1.8 ms at the median before
//! it first ran on the 2-core machine the benchmarks use (the new thread
//! queues behind its busy parent), most of what the split saves; a thread
//! already started and woken from its wait runs within about 0.1 ms. The
//! threads are rayon's (a pool that runs borrowed work and waits for it
//! without `unsafe`), started on the first split, so a small database that
//! never splits starts none.

use std::sync::OnceLock;
use std::sync::atomic::{AtomicUsize, Ordering};

/// The waiting threads and how many of them are running a half now.
pub(super) struct Helpers {
    pool: OnceLock<Option<rayon::ThreadPool>>,
    busy: AtomicUsize,
    most: usize,
}

impl Helpers {
    /// Up to one thread per core but one: the calling thread runs the other
    /// half on its own core.
    pub(super) fn new() -> Self {
        let cores = std::thread::available_parallelism().map_or(1, usize::from);
        Self::with_threads(cores.saturating_sub(1))
    }

    /// At most `most` threads (at least one).
    fn with_threads(most: usize) -> Self {
        Self {
            pool: OnceLock::new(),
            busy: AtomicUsize::new(0),
            most: most.max(1),
        }
    }

    /// A thread free to start a half at once, held until the claim is
    /// dropped; `None` when every one is busy (a split never queues behind
    /// another) or none could be started.
    pub(super) fn claim(&self) -> Option<Claim<'_>> {
        let pool = self.pool()?;
        self.busy
            .fetch_update(Ordering::AcqRel, Ordering::Acquire, |busy| {
                (busy < self.most).then_some(busy + 1)
            })
            .ok()?;
        Some(Claim {
            helpers: self,
            pool,
        })
    }

    fn pool(&self) -> Option<&rayon::ThreadPool> {
        self.pool
            .get_or_init(|| {
                rayon::ThreadPoolBuilder::new()
                    .num_threads(self.most)
                    .thread_name(|i| format!("copydesk-read-beside-{i}"))
                    .build()
                    .map_err(|err| {
                        tracing::warn!(%err, "no threads for split reads; every read runs in one pass")
                    })
                    .ok()
            })
            .as_ref()
    }
}

/// One claimed thread (see [`Helpers::claim`]).
pub(super) struct Claim<'h> {
    helpers: &'h Helpers,
    pool: &'h rayon::ThreadPool,
}

impl Claim<'_> {
    /// Runs `here` on the calling thread and `far` on the claimed one at the
    /// same time, and returns when both are done; a panic in `far` is
    /// caught and returned.
    pub(super) fn run<A, B: Send>(
        self,
        here: impl FnOnce() -> A,
        far: impl FnOnce() -> B + Send,
    ) -> (A, std::thread::Result<B>) {
        let mut far_out = None;
        let near = self.pool.in_place_scope(|scope| {
            scope.spawn(|_| {
                far_out = Some(std::panic::catch_unwind(std::panic::AssertUnwindSafe(far)));
            });
            here()
        });
        // A scope returns once the work it spawned has run, so `far_out`
        // is always filled by then.
        let far = far_out.unwrap_or_else(|| Err(Box::new("the far half never ran")));
        (near, far)
    }
}

impl Drop for Claim<'_> {
    fn drop(&mut self) {
        self.helpers.busy.fetch_sub(1, Ordering::AcqRel);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::mpsc;
    use std::time::Duration;

    #[test]
    fn a_claim_is_refused_while_every_thread_is_busy() {
        let helpers = Helpers::with_threads(1);
        let first = helpers.claim().expect("a thread is free");
        assert!(helpers.claim().is_none(), "the only thread is claimed");
        drop(first);
        assert!(helpers.claim().is_some(), "the thread is free again");
    }

    #[test]
    fn the_far_half_runs_on_a_waiting_thread_while_the_near_half_runs() {
        let helpers = Helpers::with_threads(1);
        let (far_began, far_seen) = mpsc::channel();
        let (near, far) = helpers.claim().expect("a thread is free").run(
            // Waits for the far half to begin: it fails unless both run at once.
            || far_seen.recv_timeout(Duration::from_secs(10)).is_ok(),
            move || {
                far_began.send(()).expect("the near half waits");
                std::thread::current().name().map(str::to_owned)
            },
        );
        assert!(near, "the far half began while the near half was running");
        let name = far.expect("the far half ran").expect("a named thread");
        assert!(name.starts_with("copydesk-read-beside-"), "{name}");
    }

    #[test]
    fn a_panic_in_the_far_half_is_returned_and_frees_the_thread() {
        let helpers = Helpers::with_threads(1);
        let (near, far) = helpers
            .claim()
            .expect("a thread is free")
            .run(|| 1, || -> i32 { panic!("the far half fails") });
        assert_eq!(near, 1);
        assert!(far.is_err(), "the panic comes back as an error");
        let (near, far) = helpers
            .claim()
            .expect("the thread is free again")
            .run(|| 2, || 3);
        assert_eq!((near, far.expect("the far half ran")), (2, 3));
    }
}
