//! A pool of connections opened as use overlaps, up to a limit, for either engine.

use std::sync::{Condvar, Mutex, MutexGuard};

use super::lock;
use crate::error::{Result, StoreError};

type Open<C> = Box<dyn Fn() -> Result<C> + Send + Sync>;

/// Connections opened as uses overlap, up to `max`; a connection found
/// broken when it comes back is dropped and a new one opened next time.
pub(super) struct Pool<C> {
    state: Mutex<Idle<C>>,
    returned: Condvar,
    max: usize,
    open: Open<C>,
    healthy: fn(&mut C) -> bool,
}

/// The connections not in use, and how many are open.
struct Idle<C> {
    idle: Vec<C>,
    opened: usize,
}

pub(super) struct Pooled<'a, C> {
    pool: &'a Pool<C>,
    conn: Option<C>,
}

impl<C> Pool<C> {
    pub(super) fn new(
        first: Option<C>,
        max: usize,
        open: Open<C>,
        healthy: fn(&mut C) -> bool,
    ) -> Self {
        let opened = usize::from(first.is_some());
        Self {
            state: Mutex::new(Idle {
                idle: first.into_iter().collect(),
                opened,
            }),
            returned: Condvar::new(),
            max: max.max(1),
            open,
            healthy,
        }
    }

    /// A connection, waiting for one to come back when every one allowed
    /// is in use.
    pub(super) fn take(&self) -> Result<Pooled<'_, C>> {
        let mut state = lock(&self.state)?;
        loop {
            match self.take_now(state)? {
                Ok(pooled) => return Ok(pooled),
                Err(full) => {
                    state = self.returned.wait(full).map_err(|_| {
                        StoreError::Internal("a connection pool was poisoned by a panic".into())
                    })?;
                }
            }
        }
    }

    /// An idle connection or a new one within the limit; the pool's state
    /// given back when every one allowed is in use.
    fn take_now<'p>(
        &'p self,
        mut state: MutexGuard<'p, Idle<C>>,
    ) -> Result<std::result::Result<Pooled<'p, C>, MutexGuard<'p, Idle<C>>>> {
        if let Some(conn) = state.idle.pop() {
            return Ok(Ok(Pooled {
                pool: self,
                conn: Some(conn),
            }));
        }
        if state.opened >= self.max {
            return Ok(Err(state));
        }
        // Counted before opening, so that two uses cannot both open the
        // last one allowed; uncounted again if it fails.
        state.opened += 1;
        drop(state);
        match (self.open)() {
            Ok(conn) => Ok(Ok(Pooled {
                pool: self,
                conn: Some(conn),
            })),
            Err(err) => {
                lock(&self.state)?.opened -= 1;
                self.returned.notify_one();
                Err(err)
            }
        }
    }

    /// Closes every idle connection: the server they lead to went away (a
    /// failover), so each would fail its next use.
    pub(super) fn discard_idle(&self) {
        if let Ok(mut state) = self.state.lock() {
            let discarded = state.idle.len();
            state.idle.clear();
            state.opened -= discarded;
            self.returned.notify_all();
        }
    }

    /// How many connections are open now (in use or idle).
    #[cfg(test)]
    pub(super) fn opened(&self) -> usize {
        self.state.lock().map(|s| s.opened).unwrap_or(0)
    }
}

impl<C> Pooled<'_, C> {
    pub(super) fn conn_mut(&mut self) -> &mut C {
        // The connection is only taken out in `drop`.
        self.conn
            .as_mut()
            .expect("a pooled connection is held until dropped")
    }
}

impl<C> Pooled<'_, C> {
    /// Closes this connection rather than give it back (it leads to a
    /// server that went away or takes no writes).
    pub(super) fn discard(mut self) {
        if self.conn.take().is_some()
            && let Ok(mut state) = self.pool.state.lock()
        {
            state.opened -= 1;
            self.pool.returned.notify_one();
        }
    }
}

impl<C> Drop for Pooled<'_, C> {
    fn drop(&mut self) {
        let Some(mut conn) = self.conn.take() else {
            return;
        };
        let healthy = (self.pool.healthy)(&mut conn);
        if let Ok(mut state) = self.pool.state.lock() {
            if healthy {
                state.idle.push(conn);
            } else {
                state.opened -= 1;
            }
            self.pool.returned.notify_one();
        }
    }
}
