//! What this process knows of the changes made in the database (the change notices heard).

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

use super::StandingsCache;

/// What this process knows of changes made in the database: every process listens to the change
/// notices (`storage::notices`), and what it held before a notice it may have missed is checked
/// against the database again.
///
/// A *stamp* names a stretch of time during which this process heard every notice: a new one
/// starts when the listening connection is made, when it is lost (none until it is back), and at
/// each notice that something other than a league's standings revision changed (a league's
/// settings, a token revoked), and at each such change this process makes itself. Anything read
/// from the database under a stamp (taken before the read) may be used without reading it
/// again while the stamp is current. A league's standings are current while nothing has moved
/// its revision past the one they were computed at.
#[derive(Default)]
pub struct Freshness {
    /// A counter that only grows, odd while listening (its value then is the stamp).
    state: AtomicU64,
    /// Each league's latest standings revision heard of (from notices and this process's writes
    /// and reads).
    known: Mutex<HashMap<i64, i64>>,
}

impl Freshness {
    /// The current stamp: `None` while not listening (then nothing is taken from memory).
    pub fn stamp(&self) -> Option<u64> {
        let s = self.state.load(Ordering::SeqCst);
        (s & 1 == 1).then_some(s)
    }

    fn next(&self, listening: bool) {
        let _ = self
            .state
            .fetch_update(Ordering::SeqCst, Ordering::SeqCst, |s| {
                Some((s | 1) + 1 + u64::from(listening))
            });
    }

    /// Listening (again): a new stamp.
    pub fn listening(&self) {
        self.next(true);
    }

    /// The listening connection is lost: notices may be missed until it is back.
    pub fn deaf(&self) {
        self.next(false);
    }

    /// Something other than a standings revision changed: everything is read again.
    pub fn changed(&self) {
        let listening = self.stamp().is_some();
        self.next(listening);
    }

    /// A write begins (see `Unheard`).
    pub fn unheard(self: &Arc<Self>) -> Unheard {
        Unheard {
            freshness: self.clone(),
            armed: true,
        }
    }

    /// A league's standings revision `revision` was committed (heard of, written or read).
    pub fn saw(&self, league: i64, revision: i64) {
        if let Ok(mut known) = self.known.lock() {
            if known.len() > StandingsCache::MAX && !known.contains_key(&league) {
                known.clear();
            }
            let r = known.entry(league).or_insert(revision);
            *r = (*r).max(revision);
        }
    }

    /// The league's latest standings revision heard of.
    pub fn known(&self, league: i64) -> Option<i64> {
        self.known.lock().ok()?.get(&league).copied()
    }
}

/// A write of this process that moves a league's standings revision or changes what is held
/// in memory: this process does not wait for its own notices, so when it is dropped everything
/// held is read again — after the write, or when the request is cut short while it writes —
/// unless `heard` says the write was taken in otherwise.
pub struct Unheard {
    freshness: Arc<Freshness>,
    armed: bool,
}

impl Unheard {
    /// The write was taken in (its rows pushed, its revision noted).
    pub fn heard(mut self) {
        self.armed = false;
    }
}

impl Drop for Unheard {
    fn drop(&mut self) {
        if self.armed {
            self.freshness.changed();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_stamp_lasts_only_while_every_notice_is_heard() {
        let f = Arc::new(Freshness::default());
        assert_eq!(
            f.stamp(),
            None,
            "nothing is taken from memory before listening"
        );
        f.listening();
        let first = f.stamp().unwrap();
        f.saw(1, 5);
        f.saw(1, 3);
        assert_eq!(f.known(1), Some(5), "revisions only move forward");
        assert_eq!(f.stamp(), Some(first), "a revision leaves the stamp");
        f.changed();
        let second = f.stamp().unwrap();
        assert_ne!(second, first);
        drop(f.unheard());
        let third = f.stamp().unwrap();
        assert_ne!(third, second, "a write dropped unheard starts a new stamp");
        f.unheard().heard();
        assert_eq!(f.stamp(), Some(third), "a write taken in leaves it");
        f.deaf();
        assert_eq!(f.stamp(), None);
        f.changed();
        assert_eq!(f.stamp(), None, "still deaf");
        f.listening();
        assert!(f.stamp().is_some_and(|s| s != third));
    }
}
