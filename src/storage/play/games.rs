//! Games, their scores, idempotency keys and the audit log.

use sqlx::{PgPool, Postgres, Transaction};

use crate::standings::Line;
use crate::storage::people::clubs::Club;
use crate::storage::seasons::leagues::{League, LeagueAndClub, WITH_CLUB_COLUMNS};
pub use crate::storage::seasons::new_game::{InsertError, NewGame};
use crate::storage::{seasons::events, seasons::totals};

/// The seat winds as stored in `game_scores.seat`, East first and on round the table.
pub const SEAT_WINDS: [&str; 4] = ["E", "S", "W", "N"];

/// A table with everything game entry needs to know about it.
#[derive(Debug, Clone, sqlx::FromRow)]
pub struct TableContext {
    pub table_id: i64,
    pub table_number: i32,
    pub night_id: i64,
    /// The night's number in its league (what people call it: night 7, round 2).
    pub night_number: i32,
    pub night_status: String,
    pub night_date: chrono::NaiveDate,
    pub league_id: i64,
}

pub async fn table_context(pool: &PgPool, table_id: i64) -> sqlx::Result<Option<TableContext>> {
    sqlx::query_as::<_, TableContext>(
        "SELECT t.id AS table_id, t.number AS table_number, n.id AS night_id, n.number AS night_number, n.status AS night_status, n.night_date, n.league_id \
         FROM night_tables t JOIN nights n ON n.id = t.night_id WHERE t.id = $1",
    )
    .bind(table_id)
    .fetch_optional(pool)
    .await
}

/// A table as game entry reads it, in one round trip: its context, its league and club, its
/// players in seat order with their ratings in the league, and the next game's number.
#[derive(Debug, Clone)]
pub struct TableSheet {
    pub ctx: TableContext,
    pub league: League,
    pub club: Club,
    /// (player, name) in seat order.
    pub players: Vec<(i64, String)>,
    /// The players' ratings in the league, in seat order.
    pub priors: Vec<totals::Prior>,
    pub next_number: i32,
    /// An id taken for a new game (when asked for).
    pub game_id: Option<i64>,
    /// In open play, the caller's player when they sit at this table (set by game entry).
    pub seated: Option<i64>,
}

/// The table as game entry reads it; with `reserve`, an id is taken for a new game too.
pub async fn table_sheet(
    pool: &PgPool,
    table_id: i64,
    reserve: bool,
) -> sqlx::Result<Option<TableSheet>> {
    #[derive(sqlx::FromRow)]
    struct Row {
        #[sqlx(flatten)]
        ctx: TableContext,
        #[sqlx(flatten)]
        league: LeagueAndClub,
        next_number: i32,
        game_id: Option<i64>,
        ids: Option<Vec<i64>>,
        names: Option<Vec<String>>,
        mus: Option<Vec<Option<f64>>>,
        sigmas: Option<Vec<Option<f64>>>,
        stamps: Option<Vec<Option<i64>>>,
    }
    let row = sqlx::query_as::<_, Row>(sqlx::AssertSqlSafe(format!(
        "SELECT t.id AS table_id, t.number AS table_number, n.id AS night_id, n.number AS night_number, n.status AS night_status, n.night_date, n.league_id, \
                {WITH_CLUB_COLUMNS}, \
                (SELECT coalesce(max(number), 0) + 1 FROM games WHERE table_id = t.id AND status = 'recorded' AND outcome <> 'redeal') AS next_number, \
                CASE WHEN $2 THEN nextval('games_id_seq') END AS game_id, s.ids, s.names, s.mus, s.sigmas, s.stamps \
         FROM night_tables t JOIN nights n ON n.id = t.night_id JOIN leagues l ON l.id = n.league_id JOIN clubs c ON c.id = l.club_id \
         CROSS JOIN LATERAL (SELECT array_agg(p.id ORDER BY s.seat) AS ids, array_agg(p.name ORDER BY s.seat) AS names, \
                array_agg(lt.mu ORDER BY s.seat) AS mus, array_agg(lt.sigma ORDER BY s.seat) AS sigmas, \
                array_agg(lt.rating_stamp ORDER BY s.seat) AS stamps \
              FROM table_seats s JOIN players p ON p.id = s.player_id \
              LEFT JOIN league_totals lt ON lt.league_id = n.league_id AND lt.player_id = p.id \
              WHERE s.table_id = t.id) s \
         WHERE t.id = $1"
    )))
    .bind(table_id)
    .bind(reserve)
    .fetch_optional(pool)
    .await?;
    Ok(row.map(|r| {
        let (league, club) = r.league.split();
        let ids = r.ids.unwrap_or_default();
        let (mus, sigmas, stamps) = (
            r.mus.unwrap_or_default(),
            r.sigmas.unwrap_or_default(),
            r.stamps.unwrap_or_default(),
        );
        let priors = (0..ids.len())
            .map(|i| totals::Prior {
                mu: mus.get(i).copied().flatten(),
                sigma: sigmas.get(i).copied().flatten(),
                stamp: stamps.get(i).copied().flatten(),
            })
            .collect();
        TableSheet {
            ctx: r.ctx,
            league,
            club,
            players: ids.into_iter().zip(r.names.unwrap_or_default()).collect(),
            priors,
            next_number: r.next_number,
            game_id: r.game_id,
            seated: None,
        }
    }))
}

/// Players at a table in seat order.
pub async fn table_players(pool: &PgPool, table_id: i64) -> sqlx::Result<Vec<(i64, String)>> {
    sqlx::query_as("SELECT p.id, p.name FROM table_seats s JOIN players p ON p.id = s.player_id WHERE s.table_id = $1 ORDER BY s.seat")
        .bind(table_id)
        .fetch_all(pool)
        .await
}

/// The recorded game holding a number at a table.
pub async fn holder(pool: &PgPool, table_id: i64, number: i32) -> sqlx::Result<Option<i64>> {
    sqlx::query_scalar(
        "SELECT id FROM games WHERE table_id = $1 AND number = $2 AND status = 'recorded' AND outcome <> 'redeal'",
    )
    .bind(table_id)
    .bind(number)
    .fetch_optional(pool)
    .await
}

/// A game's scores: (player, seat, score, breakdown, dead).
type Scores = [(i64, String, i64, String, bool)];

async fn insert_scores(
    tx: &mut Transaction<'_, Postgres>,
    game_id: i64,
    scores: &Scores,
) -> sqlx::Result<()> {
    // One statement for the table's seats.
    let players: Vec<i64> = scores.iter().map(|s| s.0).collect();
    let seats: Vec<&str> = scores.iter().map(|s| s.1.as_str()).collect();
    let points: Vec<i64> = scores.iter().map(|s| s.2).collect();
    let breakdowns: Vec<&str> = scores.iter().map(|s| s.3.as_str()).collect();
    let dead: Vec<bool> = scores.iter().map(|s| s.4).collect();
    sqlx::query(
        "INSERT INTO game_scores (game_id, player_id, seat, score, breakdown, dead) \
         SELECT $1, * FROM unnest($2::BIGINT[], $3::TEXT[], $4::BIGINT[], $5::TEXT[], $6::BOOL[])",
    )
    .bind(game_id)
    .bind(&players)
    .bind(&seats)
    .bind(&points)
    .bind(&breakdowns)
    .bind(&dead)
    .execute(&mut **tx)
    .await?;
    Ok(())
}

#[derive(Debug, Clone, sqlx::FromRow)]
pub struct GameRow {
    pub id: i64,
    pub table_id: i64,
    pub number: i32,
    pub east_player: i64,
    pub outcome: String,
    pub submitted: serde_json::Value,
    pub engine: serde_json::Value,
    pub line_id: Option<String>,
    pub line_value: Option<i32>,
    pub status: String,
    pub version: i32,
    pub created_at: chrono::DateTime<chrono::Utc>,
    /// Open play: waiting for its players (or an organizer) before it counts.
    pub awaiting: bool,
    /// Open play: a player disputed it; it waits for an organizer.
    pub disputed: bool,
}

pub async fn get(db: impl sqlx::PgExecutor<'_>, id: i64) -> sqlx::Result<Option<GameRow>> {
    sqlx::query_as::<_, GameRow>(
        "SELECT id, table_id, number, east_player, outcome, submitted, engine, line_id, line_value, status, version, created_at, awaiting, disputed_at IS NOT NULL AS disputed FROM games WHERE id = $1",
    )
    .bind(id)
    .fetch_optional(db)
    .await
}

/// Claims an idempotency key inside the transaction; `false` when it is already taken.
/// A stored key: (request hash, response code, response body).
pub async fn saved_response(
    pool: &PgPool,
    club_id: i64,
    key: &str,
) -> sqlx::Result<Option<(String, Option<i32>, Option<serde_json::Value>)>> {
    sqlx::query_as("SELECT request_hash, response_code, response_body FROM idempotency_keys WHERE club_id = $1 AND key = $2")
        .bind(club_id)
        .bind(key)
        .fetch_optional(pool)
        .await
}

/// One row per player per game of the league, for the CSV export.
#[derive(Debug, Clone, sqlx::FromRow)]
pub struct GameLine {
    pub game_id: i64,
    pub night: i32,
    pub night_date: chrono::NaiveDate,
    pub table_number: i32,
    pub number: i32,
    pub status: String,
    pub outcome: String,
    pub line_id: Option<String>,
    pub line_value: Option<i32>,
    pub player_id: i64,
    pub player: String,
    pub seat: String,
    pub score: i64,
    pub breakdown: String,
    pub won_by: Option<String>,
    /// `winner`, `discarder` or empty.
    pub role: String,
    pub dead: bool,
    pub jokerless: bool,
    pub recorded_at: chrono::DateTime<chrono::Utc>,
}

pub async fn league_game_lines(pool: &PgPool, league_id: i64) -> sqlx::Result<Vec<GameLine>> {
    sqlx::query_as::<_, GameLine>(
        "SELECT g.id AS game_id, n.number AS night, n.night_date, t.number AS table_number, g.number, \
                CASE WHEN g.awaiting AND g.disputed_at IS NOT NULL THEN 'disputed' WHEN g.awaiting THEN 'awaiting' ELSE g.status END AS status, g.outcome, \
                g.line_id, g.line_value, p.id AS player_id, p.name AS player, s.seat, s.score, s.breakdown, \
                g.won_by, CASE WHEN g.winner = s.player_id THEN 'winner' WHEN g.discarder = s.player_id THEN 'discarder' ELSE '' END AS role, \
                s.dead, g.jokerless, g.created_at AS recorded_at \
         FROM games g JOIN night_tables t ON t.id = g.table_id JOIN nights n ON n.id = t.night_id \
         JOIN game_scores s ON s.game_id = g.id JOIN players p ON p.id = s.player_id \
         WHERE n.league_id = $1 \
         ORDER BY n.number, t.number, g.number, g.id, array_position(ARRAY['E','S','W','N'], s.seat)",
    )
    .bind(league_id)
    .fetch_all(pool)
    .await
}

/// Outcome of a versioned change.
pub enum Change {
    Done,
    /// The version did not match: the current one.
    Stale(i32),
    Gone,
    Taken,
}

/// Replaces a recorded game's result and scores if it is still at `version`; audited. The
/// league's totals change with it; its ratings are marked for a replay.
pub async fn amend(
    pool: &PgPool,
    league_id: i64,
    id: i64,
    version: i32,
    g: &NewGame,
    actor: &str,
    event: serde_json::Value,
) -> sqlx::Result<Change> {
    let mut tx = pool.begin().await?;
    let locked = totals::lock_league(&mut tx, league_id).await?;
    let before: Option<(serde_json::Value, String, i32, bool)> = sqlx::query_as(
        "SELECT submitted, outcome, version, awaiting FROM games WHERE id = $1 AND status = 'recorded' FOR NO KEY UPDATE",
    )
    .bind(id)
    .fetch_optional(&mut *tx)
    .await?;
    let Some((before, old_outcome, current, awaiting)) = before else {
        return Ok(Change::Gone);
    };
    if current != version {
        return Ok(Change::Stale(current));
    }
    // Out of the totals as it was, back in as it becomes (nothing commits unless both do). An
    // open-play game still waiting for confirmation is in no totals: it waits again, from now,
    // for the players to confirm it as corrected (the corrector's word stands for them).
    let counts = !awaiting;
    if awaiting {
        sqlx::query("DELETE FROM game_checks WHERE game_id = $1")
            .bind(id)
            .execute(&mut *tx)
            .await?;
        // A redeal never counts: it waits for nothing.
        sqlx::query("UPDATE games SET disputed_at = NULL, awaiting = $2 <> 'redeal' WHERE id = $1")
            .bind(id)
            .bind(&g.outcome)
            .execute(&mut *tx)
            .await?;
        if let Some(p) = g.entered_by {
            sqlx::query(
                "INSERT INTO game_checks (game_id, player_id, answer) VALUES ($1, $2, 'confirmed')",
            )
            .bind(id)
            .bind(p)
            .execute(&mut *tx)
            .await?;
        }
    }
    if counts && old_outcome != "redeal" {
        totals::adjust(&mut tx, locked, league_id, id, -1).await?;
    }
    let updated = sqlx::query(
        "UPDATE games SET number = $3, east_player = $4, outcome = $5, submitted = $6, engine = $7, line_id = $8, line_value = $9, \
         winner = $10, discarder = $11, won_by = $12, jokerless = $13, version = version + 1, updated_at = $14 \
         WHERE id = $1 AND version = $2",
    )
    .bind(id)
    .bind(version)
    .bind(g.number)
    .bind(g.east_player)
    .bind(&g.outcome)
    .bind(&g.submitted)
    .bind(&g.engine)
    .bind(&g.line_id)
    .bind(g.line_value)
    .bind(g.winner)
    .bind(g.discarder)
    .bind(&g.won_by)
    .bind(g.jokerless)
    .bind(g.at)
    .execute(&mut *tx)
    .await;
    match updated {
        Err(sqlx::Error::Database(d)) if d.constraint() == Some("games_table_number") => {
            return Ok(Change::Taken);
        }
        Err(e) => return Err(e),
        // The row is locked and its version was checked: only a guard.
        Ok(r) if r.rows_affected() == 0 => return Ok(Change::Stale(current)),
        Ok(_) => {}
    }
    sqlx::query("DELETE FROM game_scores WHERE game_id = $1")
        .bind(id)
        .execute(&mut *tx)
        .await?;
    insert_scores(&mut tx, id, &g.scores).await?;
    sqlx::query("INSERT INTO game_audit (game_id, actor, action, before, after) VALUES ($1, $2, 'amended', $3, $4)")
        .bind(id)
        .bind(actor)
        .bind(&before)
        .bind(&g.submitted)
        .execute(&mut *tx)
        .await?;
    if counts && g.outcome != "redeal" {
        totals::adjust(&mut tx, locked, league_id, id, 1).await?;
    }
    let mut news = vec![("game.amended", event)];
    if counts && (old_outcome != "redeal" || g.outcome != "redeal") {
        totals::mark_ratings_dirty(&mut tx, league_id).await?;
        news.push(("standings.changed", serde_json::Value::Null));
    } else if awaiting {
        // The count of games waiting (and of those disputed) the standings say may move.
        news.push(("standings.changed", serde_json::Value::Null));
    }
    events::emit(&mut tx, league_id, &news).await?;
    tx.commit().await?;
    Ok(Change::Done)
}

/// Voids a recorded game if it is still at `version`; audited. The league's totals lose it; its
/// ratings are marked for a replay.
pub async fn void(
    pool: &PgPool,
    league_id: i64,
    id: i64,
    version: i32,
    at: chrono::DateTime<chrono::Utc>,
    actor: &str,
    event: serde_json::Value,
) -> sqlx::Result<Change> {
    let mut tx = pool.begin().await?;
    let locked = totals::lock_league(&mut tx, league_id).await?;
    let row: Option<(String, i32, serde_json::Value, String, bool)> = sqlx::query_as(
        "SELECT status, version, submitted, outcome, awaiting FROM games WHERE id = $1 FOR NO KEY UPDATE",
    )
    .bind(id)
    .fetch_optional(&mut *tx)
    .await?;
    let Some((status, current, submitted, outcome, awaiting)) = row else {
        return Ok(Change::Gone);
    };
    if status != "recorded" {
        return Ok(Change::Gone);
    }
    if version != current {
        return Ok(Change::Stale(current));
    }
    let mut news = vec![("game.voided", event)];
    if outcome != "redeal" {
        // A game still waiting for confirmation was in no totals (only in the count of those
        // waiting, which the standings say too).
        if !awaiting {
            totals::adjust(&mut tx, locked, league_id, id, -1).await?;
            totals::mark_ratings_dirty(&mut tx, league_id).await?;
        }
        news.push(("standings.changed", serde_json::Value::Null));
    }
    events::emit(&mut tx, league_id, &news).await?;
    sqlx::query(
        "UPDATE games SET status = 'voided', awaiting = false, version = version + 1, updated_at = $2 WHERE id = $1",
    )
    .bind(id)
    .bind(at)
    .execute(&mut *tx)
    .await?;
    sqlx::query("INSERT INTO game_audit (game_id, actor, action, before, after) VALUES ($1, $2, 'voided', $3, NULL)")
        .bind(id)
        .bind(actor)
        .bind(&submitted)
        .execute(&mut *tx)
        .await?;
    tx.commit().await?;
    Ok(Change::Done)
}

#[derive(Debug, Clone, sqlx::FromRow, serde::Serialize, utoipa::ToSchema)]
pub struct AuditEntry {
    pub at: chrono::DateTime<chrono::Utc>,
    pub actor: String,
    /// recorded, amended or voided.
    pub action: String,
    #[schema(required = true, value_type = Option<Object>)]
    pub before: Option<serde_json::Value>,
    #[schema(required = true, value_type = Option<Object>)]
    pub after: Option<serde_json::Value>,
}

pub async fn audit(pool: &PgPool, game_id: i64) -> sqlx::Result<Vec<AuditEntry>> {
    sqlx::query_as::<_, AuditEntry>(
        "SELECT at, actor, action, before, after FROM game_audit WHERE game_id = $1 ORDER BY id",
    )
    .bind(game_id)
    .fetch_all(pool)
    .await
}

/// Games of a public league only when `public_only` (`$2`): the condition on `l`, a player's
/// game's league, in the queries below.
const PUBLIC_ONLY: &str = "(NOT $2 OR l.visibility = 'public')";

/// A player's totals over every league of the club (or its public leagues only); voided games
/// and redeals do not count.
pub async fn player_totals(
    pool: &PgPool,
    player_id: i64,
    public_only: bool,
) -> sqlx::Result<Option<Line>> {
    sqlx::query_as::<_, Line>(sqlx::AssertSqlSafe(format!(
        "SELECT p.id AS player_id, p.name, count(g.id) AS games, \
                count(g.id) FILTER (WHERE g.winner = p.id) AS wins, \
                coalesce(sum(s.score) FILTER (WHERE g.id IS NOT NULL), 0)::BIGINT AS points, \
                count(g.id) FILTER (WHERE g.winner = p.id AND g.won_by IN ('self_pick', 'heavenly', 'earthly')) AS self_picks, \
                count(g.id) FILTER (WHERE g.winner = p.id AND g.jokerless) AS jokerless_wins, \
                count(g.id) FILTER (WHERE g.discarder = p.id) AS deal_ins, \
                count(g.id) FILTER (WHERE s.dead) AS dead_hands, \
                count(g.id) FILTER (WHERE g.outcome = 'wall') AS wall_games \
         FROM players p LEFT JOIN game_scores s ON s.player_id = p.id \
         LEFT JOIN (games g JOIN night_tables t ON t.id = g.table_id JOIN nights n ON n.id = t.night_id \
                    JOIN leagues l ON l.id = n.league_id) \
           ON g.id = s.game_id AND g.status = 'recorded' AND g.outcome <> 'redeal' AND {PUBLIC_ONLY} \
         WHERE p.id = $1 GROUP BY p.id, p.name"
    )))
    .bind(player_id)
    .bind(public_only)
    .fetch_optional(pool)
    .await
}

/// The lines a player won with: (line, value, times), most valuable first.
pub async fn best_hands(pool: &PgPool, player_id: i64) -> sqlx::Result<Vec<(String, i32, i64)>> {
    sqlx::query_as(
        "SELECT line_id, line_value, count(*) FROM games WHERE winner = $1 AND status = 'recorded' AND line_id IS NOT NULL \
         GROUP BY line_id, line_value ORDER BY line_value DESC, count(*) DESC, line_id LIMIT 10",
    )
    .bind(player_id)
    .fetch_all(pool)
    .await
}

/// One player's score in a game of a night, for the night page.
#[derive(Debug, Clone, sqlx::FromRow)]
pub struct NightScore {
    pub table_id: i64,
    pub game_id: i64,
    pub number: i32,
    pub outcome: String,
    pub status: String,
    pub line_id: Option<String>,
    pub player_id: i64,
    pub score: i64,
}

/// Every game of a night with its scores, redeals and voided games included, in table and
/// game order.
pub async fn night_scores(pool: &PgPool, night_id: i64) -> sqlx::Result<Vec<NightScore>> {
    sqlx::query_as::<_, NightScore>(
        "SELECT g.table_id, g.id AS game_id, g.number, g.outcome, g.status, g.line_id, s.player_id, s.score \
         FROM games g JOIN night_tables t ON t.id = g.table_id JOIN game_scores s ON s.game_id = g.id \
         WHERE t.night_id = $1 ORDER BY t.number, g.number, g.id",
    )
    .bind(night_id)
    .fetch_all(pool)
    .await
}

/// Every game at one table with its scores, in game order (voided games and redeals included).
pub async fn table_scores(pool: &PgPool, table_id: i64) -> sqlx::Result<Vec<NightScore>> {
    sqlx::query_as::<_, NightScore>(
        "SELECT g.table_id, g.id AS game_id, g.number, g.outcome, g.status, g.line_id, s.player_id, s.score \
         FROM games g JOIN game_scores s ON s.game_id = g.id \
         WHERE g.table_id = $1 ORDER BY g.number, g.id",
    )
    .bind(table_id)
    .fetch_all(pool)
    .await
}

/// A player's night: (league id, league name, night id, night number, date, games, points).
pub type NightLine = (i64, String, i64, i32, chrono::NaiveDate, i64, i64);

/// A player's nights, latest first (counted games only; public leagues only when `public_only`).
pub async fn player_nights(
    pool: &PgPool,
    player_id: i64,
    public_only: bool,
) -> sqlx::Result<Vec<NightLine>> {
    sqlx::query_as(sqlx::AssertSqlSafe(format!(
        "SELECT l.id, l.name, n.id, n.number, n.night_date, count(*), sum(s.score)::BIGINT \
         FROM game_scores s JOIN games g ON g.id = s.game_id JOIN night_tables t ON t.id = g.table_id \
         JOIN nights n ON n.id = t.night_id JOIN leagues l ON l.id = n.league_id \
         WHERE s.player_id = $1 AND g.status = 'recorded' AND g.outcome <> 'redeal' AND {PUBLIC_ONLY} \
         GROUP BY l.id, l.name, n.id, n.number, n.night_date ORDER BY n.night_date DESC, n.id DESC LIMIT 100"
    )))
    .bind(player_id)
    .bind(public_only)
    .fetch_all(pool)
    .await
}

/// A player's leagues and seasons, newest first: (league id, name, first and last night
/// played, games, points); public leagues only when `public_only`.
pub type SeasonLine = (i64, String, chrono::NaiveDate, chrono::NaiveDate, i64, i64);

pub async fn player_seasons(
    pool: &PgPool,
    player_id: i64,
    public_only: bool,
) -> sqlx::Result<Vec<SeasonLine>> {
    sqlx::query_as(sqlx::AssertSqlSafe(format!(
        "SELECT l.id, l.name, min(n.night_date), max(n.night_date), count(*), sum(s.score)::BIGINT \
         FROM game_scores s JOIN games g ON g.id = s.game_id JOIN night_tables t ON t.id = g.table_id \
         JOIN nights n ON n.id = t.night_id JOIN leagues l ON l.id = n.league_id \
         WHERE s.player_id = $1 AND g.status = 'recorded' AND g.outcome <> 'redeal' AND {PUBLIC_ONLY} \
         GROUP BY l.id, l.name ORDER BY min(n.night_date) DESC, l.id DESC"
    )))
    .bind(player_id)
    .bind(public_only)
    .fetch_all(pool)
    .await
}

/// The player's most valuable winning hands: (line, value, the hand as submitted); public
/// leagues only when `public_only`.
pub async fn winning_hands(
    pool: &PgPool,
    player_id: i64,
    public_only: bool,
) -> sqlx::Result<Vec<(String, i32, serde_json::Value, serde_json::Value)>> {
    sqlx::query_as(sqlx::AssertSqlSafe(format!(
        "SELECT g.line_id, g.line_value, coalesce(g.submitted->'hand', 'null'), \
                coalesce(g.engine->'line'->'jokers', '[]') FROM games g \
         JOIN night_tables t ON t.id = g.table_id JOIN nights n ON n.id = t.night_id \
         JOIN leagues l ON l.id = n.league_id \
         WHERE g.winner = $1 AND g.status = 'recorded' AND g.line_id IS NOT NULL AND {PUBLIC_ONLY} \
         ORDER BY g.line_value DESC, g.id DESC LIMIT 6"
    )))
    .bind(player_id)
    .bind(public_only)
    .fetch_all(pool)
    .await
}

/// One game of a player's history.
#[derive(Debug, Clone, sqlx::FromRow)]
pub struct PlayerGame {
    pub night_id: i64,
    pub night_date: chrono::NaiveDate,
    pub league: String,
    pub table_number: i32,
    pub number: i32,
    pub outcome: String,
    pub line_id: Option<String>,
    pub won: bool,
    pub dealt_in: bool,
    pub score: i64,
}

/// A player's counted games, latest first (at most `limit`; public leagues only when
/// `public_only`).
pub async fn player_games(
    pool: &PgPool,
    player_id: i64,
    public_only: bool,
    limit: i64,
) -> sqlx::Result<Vec<PlayerGame>> {
    sqlx::query_as::<_, PlayerGame>(sqlx::AssertSqlSafe(format!(
        "SELECT n.id AS night_id, n.night_date, l.name AS league, t.number AS table_number, g.number, g.outcome, \
                g.line_id, coalesce(g.winner = $1, false) AS won, coalesce(g.discarder = $1, false) AS dealt_in, s.score \
         FROM game_scores s JOIN games g ON g.id = s.game_id JOIN night_tables t ON t.id = g.table_id \
         JOIN nights n ON n.id = t.night_id JOIN leagues l ON l.id = n.league_id \
         WHERE s.player_id = $1 AND g.status = 'recorded' AND g.outcome <> 'redeal' AND {PUBLIC_ONLY} \
         ORDER BY n.night_date DESC, n.number DESC, g.number DESC, g.id DESC LIMIT $3"
    )))
    .bind(player_id)
    .bind(public_only)
    .bind(limit)
    .fetch_all(pool)
    .await
}

/// Whether the player has a counted game in a public league.
pub async fn plays_in_public(pool: &PgPool, player_id: i64) -> sqlx::Result<bool> {
    sqlx::query_scalar(
        "SELECT EXISTS (SELECT 1 FROM game_scores s JOIN games g ON g.id = s.game_id JOIN night_tables t ON t.id = g.table_id \
         JOIN nights n ON n.id = t.night_id JOIN leagues l ON l.id = n.league_id \
         WHERE s.player_id = $1 AND l.visibility = 'public')",
    )
    .bind(player_id)
    .fetch_one(pool)
    .await
}
