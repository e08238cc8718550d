//! League events for screens and apps: a Server-Sent Events feed per league and the in-process
//! hub that feeds it.
//!
//! The events live in PostgreSQL (`storage::seasons::events`), written with the change they report. Each
//! process has one hub: when the process commits events or hears another's change notice, it
//! reads the new events of the leagues concerned (every quarter of a second, of every league
//! someone follows here) in one query and hands them to every open stream of that league in
//! the process. Events send no NOTIFY of their own (it would serialize the commits of every
//! league): the league's revision notice says which league moved. A stream that starts with
//! `Last-Event-ID` first reads what it missed from the table, so a reconnecting client misses
//! nothing.

use std::sync::Arc;
use std::time::Duration;

use chrono::{DateTime, Utc};
use serde::Serialize;
use tokio::sync::broadcast;
use utoipa::ToSchema;

use crate::domain::{AppState, Caller, Error, Need, Result};
use crate::state::{EVENTS_PAGE as PAGE, Subscription};
use crate::storage::seasons::events::{self as stored, Event};

pub use crate::storage::seasons::events::{GAME_RECORDED, GAME_VOIDED, STANDINGS_CHANGED};

/// An event as streams and webhooks send it.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct EventView {
    /// Unique across the service and increasing within a league: the stream's event id, and
    /// what a webhook receiver de-duplicates on.
    pub id: i64,
    /// game.recorded, game.amended, game.voided, night.closed, night.reopened,
    /// standings.changed; in open play match.opened, match.locked, match.changed,
    /// game.confirmed and game.disputed (and webhook.test, sent only by a webhook's test call,
    /// with id 0).
    #[serde(rename = "type")]
    #[schema(schema_with = event_kind)]
    pub kind: String,
    /// The league the event is about (0 for webhook.test).
    pub league: i64,
    pub at: DateTime<Utc>,
    /// By `type`: for game.recorded, game.amended, game.voided, game.confirmed and
    /// game.disputed the game as `GET /api/v1/games/{id}` shows it after the change (`Game`;
    /// its `awaiting` says whether it counts now); for night.closed and night.reopened
    /// `NightEventData`; for match.opened, match.locked and match.changed `MatchEventData`; for standings.changed `StandingsChangedData`; for
    /// webhook.test `WebhookTestData`.
    #[schema(schema_with = event_data)]
    pub data: serde_json::Value,
}

/// A night closed or reopened.
#[derive(Serialize, ToSchema)]
pub struct NightEventData {
    /// The night's id.
    pub night: i64,
    /// Its number in the league (a tournament's round).
    pub number: i32,
    /// Its date, in the league's `time_zone`.
    pub date: chrono::NaiveDate,
}

/// An open-play match was proposed (`match.opened`), got its four (`match.locked`), or a player
/// joined or left it (`match.changed`): read it with `GET /api/v1/matches/{match}`.
#[derive(Serialize, ToSchema)]
pub struct MatchEventData {
    /// The match's id.
    #[serde(rename = "match")]
    pub match_id: i64,
}

/// The standings changed: read them again when they are older than this.
#[derive(Serialize, ToSchema)]
pub struct StandingsChangedData {
    /// The standings' new revision (the standings' own `revision` once they include it).
    pub revision: i64,
}

/// A webhook's test event.
#[derive(Serialize, ToSchema)]
pub struct WebhookTestData {
    /// The webhook tested.
    pub webhook: i64,
    /// The club's slug.
    #[schema(example = "tuesday-tiles")]
    pub club: String,
    #[schema(
        example = "A test event from mahjong-league: your receiver got it and can check its signature."
    )]
    pub message: String,
}

fn event_kind() -> utoipa::openapi::RefOr<utoipa::openapi::schema::Schema> {
    let mut kinds = crate::storage::seasons::events::KINDS.to_vec();
    kinds.push("webhook.test");
    crate::storage::string_enum(&kinds, GAME_RECORDED)
}

fn event_data() -> utoipa::openapi::RefOr<utoipa::openapi::schema::Schema> {
    use utoipa::openapi::{OneOfBuilder, Ref};
    OneOfBuilder::new()
        .item(Ref::from_schema_name("Game"))
        .item(Ref::from_schema_name("NightEventData"))
        .item(Ref::from_schema_name("MatchEventData"))
        .item(Ref::from_schema_name("StandingsChangedData"))
        .item(Ref::from_schema_name("WebhookTestData"))
        .into()
}

impl From<&Event> for EventView {
    fn from(e: &Event) -> Self {
        EventView {
            id: e.id,
            kind: e.kind.clone(),
            league: e.league_id,
            at: e.created_at,
            data: e.data.clone(),
        }
    }
}

/// How often the hub reads every league followed here, whatever it was told: for what other
/// processes commit without a change notice, or one that was missed.
const SWEEP: Duration = Duration::from_millis(250);

/// The hub's task, for the process's life: reads the new events of the leagues with news (a
/// game committed here, a change notice from another process) when told, and every quarter of
/// a second those of every league followed here (a read only for leagues someone follows here,
/// all of them in one query).
pub async fn run_hub(state: Arc<AppState>) {
    let mut swept = tokio::time::Instant::now();
    loop {
        let due = swept + SWEEP;
        tokio::select! {
            _ = state.events.poked.notified() => {}
            _ = tokio::time::sleep_until(due) => {}
        }
        let news = state.events.take_news();
        let now = tokio::time::Instant::now();
        let sweep = now >= due;
        if sweep {
            // Counted from now whether or not anyone listens (a deadline left behind would
            // wake the loop at once, again and again).
            swept = now;
        }
        if !state.events.listening() {
            continue;
        }
        let only = if sweep { None } else { news.as_ref() };
        if only.is_some_and(|set| set.is_empty()) {
            continue;
        }
        if let Err(e) = state.events.read(&state.db, only).await {
            // What was told is read at the next sweep.
            tracing::warn!(error = %e, "league events could not be read; trying again");
            tokio::time::sleep(Duration::from_secs(1)).await;
        }
    }
}

/// Where a stream of the league's events starts: after `last_event_id` when the client sent
/// one (it is reconnecting), else at the league's latest event. Checks the caller may read the
/// league first.
pub async fn open(
    state: &AppState,
    caller: &Caller,
    league: i64,
    last_event_id: Option<&str>,
    address: Option<std::net::IpAddr>,
) -> Result<Opened> {
    let (league, _) = caller.league(state, league, Need::Read).await?;
    start(state, league.id, Follow::League, last_event_id, address).await
}

/// A stream of one table's events, for the screens scoring it: its games recorded, amended and
/// voided, and its night closed or reopened. Whoever may score the table may follow it (a
/// table code holder too, on a members-only league): it shows nothing its scoring screen does
/// not.
pub async fn open_table(
    state: &AppState,
    caller: &Caller,
    table: i64,
    last_event_id: Option<&str>,
    address: Option<std::net::IpAddr>,
) -> Result<Opened> {
    let (league, night) = crate::domain::play::games::followed(state, caller, table).await?;
    start(
        state,
        league,
        Follow::Table { table, night },
        last_event_id,
        address,
    )
    .await
}

/// Which of a league's events a stream sends.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Follow {
    /// Every event of the league.
    League,
    /// One table's: its games' events, and its night's closing and reopening.
    Table { table: i64, night: i64 },
}

impl Follow {
    pub fn wants(&self, e: &Event) -> bool {
        let Follow::Table { table, night } = *self else {
            return true;
        };
        // A game's event names its table as an object (`{"id", "number"}`); events stored
        // before games had one shape named it by id.
        let field = |name: &str| {
            e.data
                .get(name)
                .and_then(|v| v.as_i64().or_else(|| v.get("id")?.as_i64()))
        };
        if e.kind.starts_with("game.") {
            field("table") == Some(table)
        } else if e.kind.starts_with("night.") {
            field("night") == Some(night)
        } else {
            false
        }
    }
}

async fn start(
    state: &AppState,
    league: i64,
    follow: Follow,
    last_event_id: Option<&str>,
    address: Option<std::net::IpAddr>,
) -> Result<Opened> {
    let resume = match last_event_id.map(str::trim) {
        None | Some("") => None,
        Some(text) => Some(text.parse::<i64>().ok().filter(|n| *n >= 0).ok_or_else(|| {
            Error::invalid(
                "Last-Event-ID",
                format!("`{text}` is not an event id; send the id of the last event you received"),
            )
        })?),
    };
    if state.events.is_closing() {
        return Err(Error::Unavailable(
            "the service is stopping; connect again in a moment".into(),
        ));
    }
    let slot = match follow {
        Follow::League => state.events.hold(address).await.map_err(|cap| Error::TooManyRequests {
            detail: format!(
                "this address already holds {cap} event streams open, the most one address may; close one or try again later"
            ),
            retry_after_secs: 30,
        })?,
        Follow::Table { table, .. } => {
            Some(state.events.hold_table(table).await.map_err(|cap| Error::TooManyRequests {
                detail: format!(
                    "table {table} already has {cap} screens following it, the most one table may; close one or try again later"
                ),
                retry_after_secs: 30,
            })?)
        }
    };
    let permit = state
        .events
        .streams
        .clone()
        .try_acquire_owned()
        .map_err(|_| {
            Error::Unavailable("too many event streams are open on this server; try again".into())
        })?;
    let sub = state.events.subscribe(&state.db, league).await?;
    let from = resume.unwrap_or(sub.start);
    Ok(Opened {
        league,
        follow,
        sent: from,
        sub,
        _permit: permit,
        _slot: slot,
        closing: state.events.closing(),
    })
}

/// An open stream: what has been sent and what comes next.
pub struct Opened {
    pub league: i64,
    pub follow: Follow,
    /// The last event id sent (or the starting point).
    pub sent: i64,
    pub sub: Subscription,
    _permit: tokio::sync::OwnedSemaphorePermit,
    _slot: Option<crate::state::AddressSlot>,
    /// Turns true when the service stops: the stream ends at once.
    pub closing: tokio::sync::watch::Receiver<bool>,
}

/// The event as a Server-Sent Events frame (`id:`, `event:`, `data:` and a blank line), made
/// once per event however many streams send it.
pub fn frame(e: &Event) -> &str {
    e.frame.get_or_init(|| {
        let data = serde_json::to_string(&EventView::from(e)).unwrap_or_default();
        format!("id: {}\nevent: {}\ndata: {data}\n\n", e.id, e.kind)
    })
}

/// What a stream sends next.
pub enum Next {
    Events(Vec<Arc<Event>>),
    /// Nothing for a while: a comment keeps proxies from closing the connection.
    KeepAlive,
    /// The stream has run its course: the client reconnects (and its access is checked again).
    End,
}

impl Opened {
    /// Waits for the next events the stream follows, at most `idle`.
    pub async fn next(&mut self, state: &AppState, idle: Duration) -> Result<Next> {
        if self.follow == Follow::League {
            return self.next_any(state, idle).await;
        }
        let until = tokio::time::Instant::now() + idle;
        loop {
            let left = until.saturating_duration_since(tokio::time::Instant::now());
            if left.is_zero() {
                return Ok(Next::KeepAlive);
            }
            match self.next_any(state, left).await? {
                Next::Events(mut list) => {
                    list.retain(|e| self.follow.wants(e));
                    if !list.is_empty() {
                        return Ok(Next::Events(list));
                    }
                }
                other => return Ok(other),
            }
        }
    }

    /// Waits for the league's next events, at most `idle`. Events already in the table past
    /// `sent` (a resume, or a stream that fell behind) are read from it first.
    async fn next_any(&mut self, state: &AppState, idle: Duration) -> Result<Next> {
        if *self.closing.borrow() {
            return Ok(Next::End);
        }
        if self.sent < self.sub.start {
            let page = stored::after(&state.db, self.league, self.sent, PAGE).await?;
            if let Some(last) = page.last() {
                self.sent = last.id;
            }
            if page.len() as i64 != PAGE {
                // Caught up with the table: what the hub hands out from here on follows.
                self.sent = self.sent.max(self.sub.start);
            }
            if !page.is_empty() {
                return Ok(Next::Events(page.into_iter().map(Arc::new).collect()));
            }
        }
        let closing = &mut self.closing;
        let received = tokio::select! {
            r = tokio::time::timeout(idle, self.sub.rx.recv()) => r,
            _ = closing.wait_for(|c| *c) => return Ok(Next::End),
        };
        match received {
            Err(_) => Ok(Next::KeepAlive),
            Ok(Ok(event)) => {
                let mut out = Vec::new();
                let mut take = |e: Arc<Event>, sent: &mut i64| {
                    if e.id > *sent {
                        *sent = e.id;
                        out.push(e);
                    }
                };
                take(event, &mut self.sent);
                while let Ok(more) = self.sub.rx.try_recv() {
                    take(more, &mut self.sent);
                }
                Ok(Next::Events(out))
            }
            Ok(Err(broadcast::error::RecvError::Lagged(_))) => {
                // Fell behind the buffer: read the rest from the table.
                self.sub.start = stored::latest(&state.db, self.league).await?;
                Ok(Next::Events(Vec::new()))
            }
            Ok(Err(broadcast::error::RecvError::Closed)) => Ok(Next::End),
        }
    }
}
