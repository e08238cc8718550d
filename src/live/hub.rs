//! The league event streams open in this process.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use std::net::IpAddr;

use tokio::sync::{Semaphore, broadcast, watch};

use sqlx::PgPool;

use crate::storage::seasons::events::{self, Event};

/// The most streams one process keeps open; past it a new one is told to come back later.
pub const MAX_STREAMS: usize = 4096;
/// Streams one client address may hold open unless set otherwise (`--streams-per-address`).
const DEFAULT_PER_ADDRESS: u32 = 64;
/// Streams one table's events may have open at once: a device per player and a spare. Table
/// streams are held by the table, not the address: every device at a club's tables shares
/// the club's one address, and only whoever may score a table can follow it.
pub const PER_TABLE: u32 = 8;
/// How many events a slow stream may fall behind before it reads them from the table instead.
const BUFFER: usize = 256;
/// How many events one read of the table takes.
pub const EVENTS_PAGE: i64 = 500;

struct Channel {
    tx: broadcast::Sender<Arc<Event>>,
    /// The last event handed to the channel.
    last: i64,
}

/// The process's open streams, by league.
pub struct Hub {
    channels: Mutex<HashMap<i64, Channel>>,
    pub streams: Arc<Semaphore>,
    /// Streams open per client address (its limit key) or per followed table, and the most an
    /// address may hold.
    held: Arc<Mutex<HashMap<Holder, u32>>>,
    per_address_cap: std::sync::atomic::AtomicU32,
    /// Set when the service stops: every open stream ends at once.
    closing: watch::Sender<bool>,
    /// Woken when this process committed events: the hub reads them at once (events other
    /// processes commit are read at the next sweep).
    pub poked: tokio::sync::Notify,
    /// Woken likewise for the webhook worker.
    pub outbox: tokio::sync::Notify,
}

impl Default for Hub {
    fn default() -> Self {
        Hub {
            channels: Mutex::new(HashMap::new()),
            streams: Arc::new(Semaphore::new(MAX_STREAMS)),
            held: Arc::default(),
            per_address_cap: std::sync::atomic::AtomicU32::new(DEFAULT_PER_ADDRESS),
            closing: watch::channel(false).0,
            poked: tokio::sync::Notify::new(),
            outbox: tokio::sync::Notify::new(),
        }
    }
}

/// A stream's subscription: where it starts and what the hub hands it from then on.
pub struct Subscription {
    pub rx: broadcast::Receiver<Arc<Event>>,
    /// The last event the hub had handed out when the stream subscribed.
    pub start: i64,
}

/// Who holds a stream slot: a client address, or a table whose events are followed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
enum Holder {
    Address(IpAddr),
    Table(i64),
}

/// One client address's (or table's) hold on a stream: given back when the stream ends.
pub struct AddressSlot {
    held: Arc<Mutex<HashMap<Holder, u32>>>,
    key: Holder,
}

impl Drop for AddressSlot {
    fn drop(&mut self) {
        let mut held = self.held.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(n) = held.get_mut(&self.key) {
            *n -= 1;
            if *n == 0 {
                held.remove(&self.key);
            }
        }
    }
}

impl Hub {
    /// Sets how many streams one client address may hold open.
    pub fn set_per_address(&self, cap: u32) {
        self.per_address_cap
            .store(cap.max(1), std::sync::atomic::Ordering::Relaxed);
    }

    /// Takes one of `address`'s stream slots; `None` when it holds all it may. Streams with no
    /// known address (a unix socket) are bounded by the process's limit alone.
    pub fn hold(&self, address: Option<IpAddr>) -> Result<Option<AddressSlot>, u32> {
        let Some(ip) = address else { return Ok(None) };
        let cap = self
            .per_address_cap
            .load(std::sync::atomic::Ordering::Relaxed);
        self.take(Holder::Address(crate::auth::limits::limit_key(ip)), cap)
            .map(Some)
    }

    /// Takes one of a table's stream slots (`PER_TABLE`), for a stream of that table's events.
    pub fn hold_table(&self, table: i64) -> Result<AddressSlot, u32> {
        self.take(Holder::Table(table), PER_TABLE)
    }

    fn take(&self, key: Holder, cap: u32) -> Result<AddressSlot, u32> {
        let mut held = self.held.lock().unwrap_or_else(|e| e.into_inner());
        let n = held.entry(key).or_insert(0);
        if *n >= cap {
            return Err(cap);
        }
        *n += 1;
        Ok(AddressSlot {
            held: self.held.clone(),
            key,
        })
    }

    /// Ends every open stream now and refuses new ones (the service is stopping).
    pub fn close_all(&self) {
        self.closing.send_replace(true);
    }

    /// Whether the service is stopping (no new streams).
    pub fn is_closing(&self) -> bool {
        *self.closing.borrow()
    }

    /// What a stream watches to end when the service stops.
    pub fn closing(&self) -> watch::Receiver<bool> {
        self.closing.subscribe()
    }

    /// Event streams open in this process.
    pub fn open_streams(&self) -> usize {
        MAX_STREAMS - self.streams.available_permits()
    }

    /// Says that this process just committed events (a wake-up, not a message: several pokes
    /// before the hub and the worker look are one).
    pub fn poke(&self) {
        self.poked.notify_one();
        self.outbox.notify_one();
    }

    /// Whether any league has a stream open in this process.
    pub fn listening(&self) -> bool {
        self.channels.lock().is_ok_and(|c| !c.is_empty())
    }

    /// Subscribes to a league's events; the first subscriber of a league in this process sets
    /// its channel's starting point at the league's latest event.
    pub async fn subscribe(&self, db: &PgPool, league: i64) -> sqlx::Result<Subscription> {
        if let Some(sub) = self.existing(league) {
            return Ok(sub);
        }
        let latest = events::latest(db, league).await?;
        let mut channels = self.channels.lock().unwrap_or_else(|e| e.into_inner());
        let channel = channels.entry(league).or_insert_with(|| Channel {
            tx: broadcast::channel(BUFFER).0,
            last: latest,
        });
        Ok(Subscription {
            rx: channel.tx.subscribe(),
            start: channel.last,
        })
    }

    fn existing(&self, league: i64) -> Option<Subscription> {
        let channels = self.channels.lock().ok()?;
        channels.get(&league).map(|c| Subscription {
            rx: c.tx.subscribe(),
            start: c.last,
        })
    }

    /// Reads the new events of every league with streams open here and hands them out, in
    /// order. Only the hub's task calls it (one reader: events go out in the order read).
    pub async fn read(&self, db: &PgPool) -> sqlx::Result<()> {
        let wanted: Vec<(i64, i64)> = {
            let Ok(mut channels) = self.channels.lock() else {
                return Ok(());
            };
            // Channels nobody listens to any more are dropped.
            channels.retain(|_, c| c.tx.receiver_count() > 0);
            channels.iter().map(|(l, c)| (*l, c.last)).collect()
        };
        for (league, mut last) in wanted {
            loop {
                let page = events::after(db, league, last, EVENTS_PAGE).await?;
                let full = page.len() as i64 == EVENTS_PAGE;
                let Ok(mut channels) = self.channels.lock() else {
                    return Ok(());
                };
                let Some(channel) = channels.get_mut(&league) else {
                    break;
                };
                for event in page {
                    last = event.id;
                    channel.last = event.id;
                    // No receiver left is not an error: the channel goes at the next sweep.
                    let _ = channel.tx.send(Arc::new(event));
                }
                if !full {
                    break;
                }
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_address_holds_at_most_its_cap_and_an_ended_stream_gives_its_slot_back() {
        let hub = Hub::default();
        hub.set_per_address(2);
        let a: IpAddr = "2001:db8:1:2::1".parse().unwrap();
        let same_64: IpAddr = "2001:db8:1:2::99".parse().unwrap();
        let first = hub.hold(Some(a)).unwrap();
        let _second = hub.hold(Some(same_64)).unwrap();
        assert_eq!(hub.hold(Some(a)).err(), Some(2), "one /64 is one client");
        assert!(hub.hold(Some("192.0.2.1".parse().unwrap())).is_ok());
        assert!(
            hub.hold(None).unwrap().is_none(),
            "no address: the process cap only"
        );
        drop(first);
        assert!(hub.hold(Some(a)).is_ok(), "the slot came back");
        let tables: Vec<_> = (0..PER_TABLE).map(|_| hub.hold_table(7).unwrap()).collect();
        assert_eq!(hub.hold_table(7).err(), Some(PER_TABLE));
        assert!(hub.hold_table(8).is_ok(), "another table has its own");
        assert!(
            hub.hold(Some("192.0.2.2".parse().unwrap())).is_ok(),
            "tables hold no address's slots"
        );
        drop(tables);
        assert!(hub.hold_table(7).is_ok());
    }
}
