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
    /// The leagues with news since the hub last read (`None`: read every league followed here).
    news: Mutex<Option<std::collections::HashSet<i64>>>,
    /// Where every instance's streams are counted (the database, and this process's id in
    /// it), once the service shares its caps.
    shared: std::sync::OnceLock<(PgPool, uuid::Uuid)>,
}

/// A process not seen for this long holds no streams.
pub const INSTANCE_GONE_SECS: i64 = 20;
/// How often a process says it is alive and writes down the streams it holds.
pub const HEARTBEAT: std::time::Duration = std::time::Duration::from_secs(5);

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
            news: Mutex::new(None),
            shared: std::sync::OnceLock::new(),
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
    /// Set when the slot is counted in the database too: given back there as well.
    shared: Option<(PgPool, uuid::Uuid)>,
}

impl Holder {
    /// How the holder is named in the database.
    fn name(self) -> String {
        match self {
            Holder::Address(ip) => format!("address:{ip}"),
            Holder::Table(t) => format!("table:{t}"),
        }
    }
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
        drop(held);
        if let (Some((db, instance)), Ok(rt)) =
            (self.shared.take(), tokio::runtime::Handle::try_current())
        {
            let name = self.key.name();
            // A release that never arrives is mended by the next heartbeat.
            rt.spawn(async move {
                let _ = crate::storage::limits::release_stream(&db, instance, &name).await;
            });
        }
    }
}

impl Hub {
    /// Sets how many streams one client address may hold open.
    pub fn set_per_address(&self, cap: u32) {
        self.per_address_cap
            .store(cap.max(1), std::sync::atomic::Ordering::Relaxed);
    }

    /// Counts this process's streams in `db` with every other instance's, as `instance`.
    pub fn share(&self, db: PgPool, instance: uuid::Uuid) {
        let _ = self.shared.set((db, instance));
    }

    /// Takes one of `address`'s stream slots; `None` when it holds all it may. Streams with no
    /// known address (a unix socket) are bounded by the process's limit alone.
    pub async fn hold(&self, address: Option<IpAddr>) -> Result<Option<AddressSlot>, u32> {
        let Some(ip) = address else { return Ok(None) };
        let cap = self
            .per_address_cap
            .load(std::sync::atomic::Ordering::Relaxed);
        self.take_shared(Holder::Address(crate::auth::limits::limit_key(ip)), cap)
            .await
            .map(Some)
    }

    /// Takes one of a table's stream slots (`PER_TABLE`), for a stream of that table's events.
    pub async fn hold_table(&self, table: i64) -> Result<AddressSlot, u32> {
        self.take_shared(Holder::Table(table), PER_TABLE).await
    }

    /// Takes a slot here, then in the database where every instance's are counted. When the
    /// database does not answer within half a second, this process's count decides.
    async fn take_shared(&self, key: Holder, cap: u32) -> Result<AddressSlot, u32> {
        let mut slot = self.take(key, cap)?;
        let Some((db, instance)) = self.shared.get() else {
            return Ok(slot);
        };
        let asked = tokio::time::timeout(
            std::time::Duration::from_millis(500),
            crate::storage::limits::hold_stream(
                db,
                *instance,
                &key.name(),
                cap,
                INSTANCE_GONE_SECS,
            ),
        )
        .await;
        match asked {
            Ok(Ok(true)) => slot.shared = Some((db.clone(), *instance)),
            Ok(Ok(false)) => return Err(cap),
            Ok(Err(e)) => {
                tracing::warn!(error = %e, "stream caps: the database did not answer; this process counts alone")
            }
            Err(_) => tracing::warn!(
                "stream caps: the database took over half a second; this process counts alone"
            ),
        }
        Ok(slot)
    }

    /// Says every `HEARTBEAT` that this process is alive and which streams it holds, so the
    /// caps count them (and stop counting a process that went away), and tells `alive` how many
    /// processes are; runs until the service stops.
    pub async fn keep_shared(&self, alive: impl Fn(u32)) {
        let Some((db, instance)) = self.shared.get() else {
            return;
        };
        loop {
            let held: Vec<(String, i32)> = {
                let held = self.held.lock().unwrap_or_else(|e| e.into_inner());
                held.iter()
                    .map(|(k, n)| (k.name(), (*n).min(i32::MAX as u32) as i32))
                    .collect()
            };
            match crate::storage::limits::heartbeat(db, *instance, INSTANCE_GONE_SECS, &held).await
            {
                Ok(n) => alive(n),
                Err(e) => {
                    tracing::warn!(error = %e, "stream caps: could not say this process is alive")
                }
            }
            tokio::time::sleep(HEARTBEAT).await;
        }
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
            shared: None,
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
    /// before the hub and the worker look are one): the hub reads every league followed here.
    pub fn poke(&self) {
        *self.news.lock().unwrap_or_else(|e| e.into_inner()) = None;
        self.poked.notify_one();
        self.outbox.notify_one();
    }

    /// Says that `league` has new events (committed here, or heard of from another process):
    /// the hub reads that league's (and any other poked since it last looked). The webhook
    /// worker is not woken: a commit here wakes it itself (`outbox`); the process that commits
    /// wakes its own.
    pub fn poke_league(&self, league: i64) {
        if let Some(set) = self.news.lock().unwrap_or_else(|e| e.into_inner()).as_mut() {
            set.insert(league);
        }
        self.poked.notify_one();
    }

    /// The leagues poked since the last call (`None`: every league), and from now on none.
    pub fn take_news(&self) -> Option<std::collections::HashSet<i64>> {
        self.news
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .replace(std::collections::HashSet::new())
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

    /// Reads the new events of the leagues with streams open here and hands them out, in
    /// order: one query for all those leagues (again for those with a full page). Only the
    /// hub's task calls it (one reader: events go out in the order read).
    /// `only`: just these leagues (those with news), else every league followed here.
    pub async fn read(
        &self,
        db: &PgPool,
        only: Option<&std::collections::HashSet<i64>>,
    ) -> sqlx::Result<()> {
        let mut wanted: Vec<(i64, i64)> = {
            let Ok(mut channels) = self.channels.lock() else {
                return Ok(());
            };
            // Channels nobody listens to any more are dropped.
            channels.retain(|_, c| c.tx.receiver_count() > 0);
            channels
                .iter()
                .filter(|(l, _)| only.is_none_or(|set| set.contains(l)))
                .map(|(l, c)| (*l, c.last))
                .collect()
        };
        while !wanted.is_empty() {
            let found = events::after_each(db, &wanted, EVENTS_PAGE).await?;
            let Ok(mut channels) = self.channels.lock() else {
                return Ok(());
            };
            let mut counts: HashMap<i64, i64> = HashMap::new();
            for event in found {
                *counts.entry(event.league_id).or_default() += 1;
                // A channel gone meanwhile has nobody to hand its events to.
                if let Some(channel) = channels.get_mut(&event.league_id) {
                    channel.last = event.id;
                    // No receiver left is not an error: the channel goes at the next sweep.
                    let _ = channel.tx.send(Arc::new(event));
                }
            }
            // Leagues with a full page may have more: read them again from where they are.
            wanted = counts
                .into_iter()
                .filter(|(_, n)| *n == EVENTS_PAGE)
                .filter_map(|(league, _)| channels.get(&league).map(|c| (league, c.last)))
                .collect();
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn an_address_holds_at_most_its_cap_and_an_ended_stream_gives_its_slot_back() {
        let hub = Hub::default();
        hub.set_per_address(2);
        let a: IpAddr = "2001:db8:1:2::1".parse().unwrap();
        let same_64: IpAddr = "2001:db8:1:2::99".parse().unwrap();
        let first = hub.hold(Some(a)).await.unwrap();
        let _second = hub.hold(Some(same_64)).await.unwrap();
        assert_eq!(
            hub.hold(Some(a)).await.err(),
            Some(2),
            "one /64 is one client"
        );
        assert!(hub.hold(Some("192.0.2.1".parse().unwrap())).await.is_ok());
        assert!(
            hub.hold(None).await.unwrap().is_none(),
            "no address: the process cap only"
        );
        drop(first);
        assert!(hub.hold(Some(a)).await.is_ok(), "the slot came back");
        let mut tables = Vec::new();
        for _ in 0..PER_TABLE {
            tables.push(hub.hold_table(7).await.unwrap());
        }
        assert_eq!(hub.hold_table(7).await.err(), Some(PER_TABLE));
        assert!(hub.hold_table(8).await.is_ok(), "another table has its own");
        assert!(
            hub.hold(Some("192.0.2.2".parse().unwrap())).await.is_ok(),
            "tables hold no address's slots"
        );
        drop(tables);
        assert!(hub.hold_table(7).await.is_ok());
    }
}
