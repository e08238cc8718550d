//! Games listed page by page for apps: a league's or a night's games in id order, or those
//! that changed after a league event, each with its night, table and scores.

use chrono::{DateTime, NaiveDate, Utc};
use sqlx::PgPool;

/// A game with where it was played.
#[derive(Debug, Clone, sqlx::FromRow)]
pub struct ListedGame {
    pub id: i64,
    pub night_id: i64,
    pub night_number: i32,
    pub night_date: NaiveDate,
    pub table_id: i64,
    pub table_number: i32,
    pub number: i32,
    pub status: String,
    pub version: i32,
    pub outcome: String,
    pub won_by: Option<String>,
    pub winner: Option<i64>,
    pub discarder: Option<i64>,
    pub jokerless: bool,
    pub line_id: Option<String>,
    pub line_value: Option<i32>,
    pub east_player: i64,
    pub submitted: serde_json::Value,
    pub created_at: DateTime<Utc>,
    pub updated_at: DateTime<Utc>,
    /// For a list of changes: the league event that last changed the game.
    pub event_id: Option<i64>,
    /// Open play: not counted yet (waiting for the players, or an organizer after a dispute).
    pub awaiting: bool,
    pub disputed_at: Option<DateTime<Utc>>,
}

/// A player's line in a listed game.
#[derive(Debug, Clone, sqlx::FromRow)]
pub struct ListedScore {
    pub game_id: i64,
    pub player_id: i64,
    pub name: String,
    pub seat: String,
    pub score: i64,
    pub breakdown: String,
    pub dead: bool,
}

const GAME_COLUMNS: &str = "g.id, n.id AS night_id, n.number AS night_number, n.night_date, t.id AS table_id, \
     t.number AS table_number, g.number, g.status, g.version, g.outcome, g.won_by, g.winner, g.discarder, g.jokerless, \
     g.line_id, g.line_value, g.east_player, g.submitted, g.created_at, g.updated_at, g.awaiting, g.disputed_at";

/// The league's games (one night's when `night` is given) with ids after `after`, in id order;
/// at most `limit`.
pub async fn games_after(
    pool: &PgPool,
    league_id: i64,
    night: Option<i64>,
    after: i64,
    limit: i64,
) -> sqlx::Result<Vec<ListedGame>> {
    sqlx::query_as::<_, ListedGame>(sqlx::AssertSqlSafe(format!(
        "SELECT {GAME_COLUMNS}, NULL::BIGINT AS event_id FROM games g \
         JOIN night_tables t ON t.id = g.table_id JOIN nights n ON n.id = t.night_id \
         WHERE n.league_id = $1 AND ($2::BIGINT IS NULL OR n.id = $2) AND g.id > $3 \
         ORDER BY g.id LIMIT $4"
    )))
    .bind(league_id)
    .bind(night)
    .bind(after)
    .bind(limit)
    .fetch_all(pool)
    .await
}

/// The league's games (one night's when `night` is given) recorded, amended or voided by an
/// event after `after` and up to `upto`, each once, in the order of the last such event; at
/// most `limit`.
pub async fn changed_after(
    pool: &PgPool,
    league_id: i64,
    night: Option<i64>,
    after: i64,
    upto: i64,
    limit: i64,
) -> sqlx::Result<Vec<ListedGame>> {
    sqlx::query_as::<_, ListedGame>(sqlx::AssertSqlSafe(format!(
        "WITH changed AS ( \
           SELECT (e.data->>'id')::BIGINT AS game_id, max(e.id) AS event_id FROM league_events e \
           WHERE e.league_id = $1 AND e.id > $3 AND e.id <= $4 \
             AND e.kind IN ('game.recorded', 'game.amended', 'game.voided') \
             AND ($2::BIGINT IS NULL OR coalesce(e.data->'night'->>'id', e.data->>'night')::BIGINT = $2) \
           GROUP BY 1 ORDER BY 2 LIMIT $5) \
         SELECT {GAME_COLUMNS}, c.event_id FROM changed c JOIN games g ON g.id = c.game_id \
         JOIN night_tables t ON t.id = g.table_id JOIN nights n ON n.id = t.night_id \
         ORDER BY c.event_id"
    )))
    .bind(league_id)
    .bind(night)
    .bind(after)
    .bind(upto)
    .bind(limit)
    .fetch_all(pool)
    .await
}

/// The scores of the games `ids`, in seat order (E S W N) within each game.
pub async fn scores_of(
    db: impl sqlx::PgExecutor<'_>,
    ids: &[i64],
) -> sqlx::Result<Vec<ListedScore>> {
    sqlx::query_as::<_, ListedScore>(
        "SELECT s.game_id, s.player_id, p.name, s.seat, s.score, s.breakdown, s.dead \
         FROM game_scores s JOIN players p ON p.id = s.player_id WHERE s.game_id = ANY($1) \
         ORDER BY s.game_id, array_position(ARRAY['E','S','W','N'], s.seat)",
    )
    .bind(ids)
    .fetch_all(db)
    .await
}

/// One game with its scores, read on `conn` (inside a transaction it sees the transaction's
/// writes).
pub async fn one(
    conn: &mut sqlx::PgConnection,
    id: i64,
) -> sqlx::Result<Option<(ListedGame, Vec<ListedScore>)>> {
    let game = sqlx::query_as::<_, ListedGame>(sqlx::AssertSqlSafe(format!(
        "SELECT {GAME_COLUMNS}, NULL::BIGINT AS event_id FROM games g \
         JOIN night_tables t ON t.id = g.table_id JOIN nights n ON n.id = t.night_id \
         WHERE g.id = $1"
    )))
    .bind(id)
    .fetch_optional(&mut *conn)
    .await?;
    let Some(game) = game else {
        return Ok(None);
    };
    let scores = scores_of(&mut *conn, &[id]).await?;
    Ok(Some((game, scores)))
}
