//! The league event streams open in this process.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use tokio::sync::{Semaphore, broadcast};

use sqlx::PgPool;

use crate::storage::events::{self, Event};

/// The most streams one process keeps open; past it a new one is told to come back later.
pub const MAX_STREAMS: usize = 4096;
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

impl Hub {
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
