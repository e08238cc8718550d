//! League events (what screens and apps follow) and the webhook outbox they feed.
//!
//! An event is written inside the transaction of the change it reports, while that transaction
//! holds the league's row lock: one league's events therefore commit in the order of their ids,
//! and a reader that has seen a league's event n has seen every earlier one of that league.

use chrono::{DateTime, Utc};
use sqlx::{PgPool, Postgres, Transaction};

/// The kinds that game entry and imports write by name.
pub const GAME_RECORDED: &str = "game.recorded";
pub const STANDINGS_CHANGED: &str = "standings.changed";
pub const GAME_VOIDED: &str = "game.voided";

/// Every kind of league event.
pub const KINDS: &[&str] = &[
    "game.recorded",
    "game.amended",
    "game.voided",
    "night.closed",
    "night.reopened",
    "standings.changed",
    "match.opened",
    "match.locked",
    "match.changed",
    "game.confirmed",
    "game.disputed",
];

#[derive(Debug, Clone, sqlx::FromRow)]
pub struct Event {
    pub id: i64,
    pub league_id: i64,
    pub kind: String,
    pub data: serde_json::Value,
    pub created_at: DateTime<Utc>,
    /// The event as a stream sends it, made once however many streams send it.
    #[sqlx(skip)]
    pub frame: std::sync::OnceLock<String>,
}

/// The CTEs that write events, after a CTE `l` that yields the league's `club_id` and
/// `revision` (its row locked): the events in order (`$2` kinds, `$3` data; a
/// `standings.changed` gets the revision as its data) and one outbox row per webhook of the
/// league's club.
pub const EMIT: &str = "e AS (INSERT INTO league_events (league_id, kind, data) \
       SELECT $1, u.k, CASE WHEN u.k = 'standings.changed' THEN jsonb_build_object('revision', l.revision) ELSE u.d END \
       FROM unnest($2::TEXT[], $3::JSONB[]) WITH ORDINALITY AS u(k, d, i), l ORDER BY u.i RETURNING id), \
     d AS (INSERT INTO webhook_deliveries (webhook_id, event_id) \
       SELECT w.id, e.id FROM e, webhooks w, l WHERE w.club_id = l.club_id)";

/// The events as the statement's array parameters.
pub fn columns<'a>(
    events: &'a [(&'a str, serde_json::Value)],
) -> (Vec<&'a str>, Vec<&'a serde_json::Value>) {
    (
        events.iter().map(|e| e.0).collect(),
        events.iter().map(|e| &e.1).collect(),
    )
}

/// Writes events of a league, in order, with one outbox row per webhook of the league's club.
/// The transaction must hold the league's row lock.
pub async fn emit(
    tx: &mut Transaction<'_, Postgres>,
    league_id: i64,
    events: &[(&str, serde_json::Value)],
) -> sqlx::Result<()> {
    let (kinds, data) = columns(events);
    let sql = format!(
        "WITH l AS (SELECT club_id, revision FROM leagues WHERE id = $1), {EMIT} SELECT count(*) FROM e"
    );
    sqlx::query(sqlx::AssertSqlSafe(sql))
        .bind(league_id)
        .bind(&kinds)
        .bind(&data)
        .execute(&mut **tx)
        .await?;
    Ok(())
}

/// The league's events after `after`, oldest first, at most `limit`.
pub async fn after(
    pool: &PgPool,
    league_id: i64,
    after: i64,
    limit: i64,
) -> sqlx::Result<Vec<Event>> {
    sqlx::query_as::<_, Event>(
        "SELECT id, league_id, kind, data, created_at FROM league_events \
         WHERE league_id = $1 AND id > $2 ORDER BY id LIMIT $3",
    )
    .bind(league_id)
    .bind(after)
    .bind(limit)
    .fetch_all(pool)
    .await
}

/// The events of several leagues, each after its own id (`wanted`: league and last id seen),
/// at most `limit` a league, in one round trip: by league, oldest first.
pub async fn after_each(
    pool: &PgPool,
    wanted: &[(i64, i64)],
    limit: i64,
) -> sqlx::Result<Vec<Event>> {
    let (leagues, lasts): (Vec<i64>, Vec<i64>) = wanted.iter().copied().unzip();
    sqlx::query_as::<_, Event>(
        "SELECT e.id, e.league_id, e.kind, e.data, e.created_at \
         FROM unnest($1::BIGINT[], $2::BIGINT[]) AS w(league, last) \
         CROSS JOIN LATERAL (SELECT * FROM league_events x \
             WHERE x.league_id = w.league AND x.id > w.last ORDER BY x.id LIMIT $3) e \
         ORDER BY e.league_id, e.id",
    )
    .bind(&leagues)
    .bind(&lasts)
    .bind(limit)
    .fetch_all(pool)
    .await
}

/// The id of the league's latest event (0 when it has none).
pub async fn latest(pool: &PgPool, league_id: i64) -> sqlx::Result<i64> {
    sqlx::query_scalar(
        "SELECT coalesce(max(id), 0)::BIGINT FROM league_events WHERE league_id = $1",
    )
    .bind(league_id)
    .fetch_one(pool)
    .await
}
