//! Open play: matches members arrange (a table of four on a day, time and place), the players
//! in them, and each player's word on the games entered (confirmed or disputed).

//!
//! By the same names as the domain's open play: `proposals`, `entry`, `disputes`, `board`;
//! the match as stored and how it is read are here.

mod board;
mod disputes;
mod entry;
mod proposals;
pub use board::*;
pub use disputes::*;
pub use entry::*;
pub use proposals::*;

use chrono::{DateTime, NaiveDate, NaiveTime, Utc};
use sqlx::{PgConnection, PgPool, Postgres, Transaction};

use crate::storage::{play::nights, seasons::events, seasons::totals};

/// A match as stored, with its players in the order they joined.
#[derive(Debug, Clone, sqlx::FromRow)]
pub struct Match {
    pub id: i64,
    pub league_id: i64,
    pub match_date: NaiveDate,
    pub local_time: NaiveTime,
    pub starts_at: DateTime<Utc>,
    pub place: String,
    pub note: Option<String>,
    pub open: bool,
    /// `forming`, `locked` or `cancelled`.
    pub status: String,
    pub created_by: Option<i64>,
    pub created_at: DateTime<Utc>,
    pub locked_at: Option<DateTime<Utc>>,
    pub night_id: Option<i64>,
    /// The night's number once locked.
    pub night_number: Option<i32>,
    /// The match's table once locked.
    pub table_id: Option<i64>,
    /// Why an organizer called it off.
    pub cancel_reason: Option<String>,
    /// In the order they joined: (player id, name, linked account).
    #[sqlx(json)]
    pub players: Vec<(i64, String, Option<i64>)>,
    /// The players named in it who have not accepted yet (the match locks once none is left).
    #[sqlx(json)]
    pub waiting: Vec<i64>,
    /// The club's clock, for the match's time in words.
    pub time_zone: String,
}

const SELECT: &str = "SELECT m.id, m.league_id, m.match_date, m.local_time, m.starts_at, m.place, m.note, m.open, m.status, \
       m.created_by, m.created_at, m.locked_at, m.night_id, n.number AS night_number, m.cancel_reason, \
       (SELECT t.id FROM night_tables t WHERE t.night_id = m.night_id ORDER BY t.number LIMIT 1) AS table_id, \
       coalesce((SELECT jsonb_agg(jsonb_build_array(p.id, p.name, p.user_id) ORDER BY mp.joined_at, p.id) \
          FROM match_players mp JOIN players p ON p.id = mp.player_id WHERE mp.match_id = m.id), '[]'::jsonb) AS players, \
       coalesce((SELECT jsonb_agg(mp.player_id ORDER BY mp.joined_at, mp.player_id) \
          FROM match_players mp WHERE mp.match_id = m.id AND mp.accepted_at IS NULL), '[]'::jsonb) AS waiting, \
       (SELECT c.time_zone FROM leagues l JOIN clubs c ON c.id = l.club_id WHERE l.id = m.league_id) AS time_zone \
     FROM matches m LEFT JOIN nights n ON n.id = m.night_id";

pub async fn get(db: impl sqlx::PgExecutor<'_>, id: i64) -> sqlx::Result<Option<Match>> {
    sqlx::query_as(sqlx::AssertSqlSafe(format!("{SELECT} WHERE m.id = $1")))
        .bind(id)
        .fetch_optional(db)
        .await
}

/// The match whose night is `night_id`, if the night is a match's.
pub async fn of_night(pool: &PgPool, night_id: i64) -> sqlx::Result<Option<Match>> {
    sqlx::query_as(sqlx::AssertSqlSafe(format!(
        "{SELECT} WHERE m.night_id = $1"
    )))
    .bind(night_id)
    .fetch_optional(pool)
    .await
}

/// The league's matches starting from `from` (all when `None`), soonest first; at most `limit`.
pub async fn list(
    pool: &PgPool,
    league_id: i64,
    from: Option<DateTime<Utc>>,
    limit: i64,
) -> sqlx::Result<Vec<Match>> {
    sqlx::query_as(sqlx::AssertSqlSafe(format!(
        "{SELECT} WHERE m.league_id = $1 AND m.status <> 'cancelled' AND ($2::timestamptz IS NULL OR m.starts_at >= $2) \
         ORDER BY m.starts_at, m.id LIMIT $3"
    )))
    .bind(league_id)
    .bind(from)
    .bind(limit)
    .fetch_all(pool)
    .await
}

/// Accounts of the club's members to mail about a match: (user id, email, display name) of the
/// given players who have one and have not turned the league's mail off.
pub async fn readers_of(
    conn: &mut PgConnection,
    league_id: i64,
    players: &[i64],
) -> sqlx::Result<Vec<(i64, i64, String, String)>> {
    sqlx::query_as(
        "SELECT p.id, u.id, u.email, u.display_name FROM players p JOIN users u ON u.id = p.user_id \
         JOIN leagues l ON l.id = $1 JOIN memberships m ON m.club_id = l.club_id AND m.user_id = u.id \
         WHERE p.id = ANY($2) \
           AND NOT EXISTS (SELECT 1 FROM mail_unsubscribes x WHERE x.user_id = u.id AND x.league_id = l.id) \
         ORDER BY p.id",
    )
    .bind(league_id)
    .bind(players)
    .fetch_all(conn)
    .await
}
