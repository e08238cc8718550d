//! A league's counted games read whole, one row per game, for the season's pictures
//! (`domain::seasons::season`): the same games the standings count.

use sqlx::PgPool;

use super::totals::LEAGUE_GAMES;

/// One counted game of a league, its seats in seat order (East, South, West, North).
#[derive(Debug, Clone, sqlx::FromRow)]
pub struct SeasonGame {
    pub id: i64,
    /// Where the game stands in the order its league counted games (ratings follow it).
    pub standings_order: i64,
    pub night_id: i64,
    pub night_number: i32,
    pub night_date: chrono::NaiveDate,
    pub table_id: i64,
    pub east_player: i64,
    /// `mahjong` or `wall`.
    pub outcome: String,
    pub line_id: Option<String>,
    pub winner: Option<i64>,
    pub discarder: Option<i64>,
    pub won_by: Option<String>,
    pub jokerless: bool,
    pub players: Vec<i64>,
    pub scores: Vec<i64>,
    pub dead: Vec<bool>,
}

/// Every counted game of league `league_id` (recorded, not a redeal, not waiting for its
/// players) counted after `after` in the standings order (0: all of them), in the order of their
/// nights and then the order they were counted.
pub async fn games(
    db: impl sqlx::PgExecutor<'_>,
    league_id: i64,
    after: i64,
) -> sqlx::Result<Vec<SeasonGame>> {
    let sql = format!(
        "SELECT g.id, g.standings_order, n.id AS night_id, n.number AS night_number, n.night_date, \
           t.id AS table_id, g.east_player, g.outcome, g.line_id, g.winner, g.discarder, g.won_by, \
           g.jokerless, \
           array_agg(s.player_id ORDER BY array_position(ARRAY['E','S','W','N'], s.seat)) AS players, \
           array_agg(s.score ORDER BY array_position(ARRAY['E','S','W','N'], s.seat)) AS scores, \
           array_agg(s.dead ORDER BY array_position(ARRAY['E','S','W','N'], s.seat)) AS dead \
         FROM games g JOIN game_scores s ON s.game_id = g.id {LEAGUE_GAMES} AND g.standings_order > $2 \
         GROUP BY g.id, n.id, t.id ORDER BY n.number, g.standings_order"
    );
    sqlx::query_as(sqlx::AssertSqlSafe(sql))
        .bind(league_id)
        .bind(after)
        .fetch_all(db)
        .await
}

/// How many times the league's past changed: its corrections, voids and confirmations (the
/// counter the ratings replay follows, `leagues.ratings_dirty`). Games are counted in the
/// standings order under the league's lock, so while this stands, the games up to the last one
/// read are as they were read, and later games are all new.
pub async fn corrections(db: impl sqlx::PgExecutor<'_>, league_id: i64) -> sqlx::Result<i64> {
    sqlx::query_scalar("SELECT ratings_dirty FROM leagues WHERE id = $1")
        .bind(league_id)
        .fetch_one(db)
        .await
}

/// The names of these players (id, name).
pub async fn names(pool: &PgPool, ids: &[i64]) -> sqlx::Result<Vec<(i64, String)>> {
    sqlx::query_as("SELECT id, name FROM players WHERE id = ANY($1)")
        .bind(ids)
        .fetch_all(pool)
        .await
}

/// The names of those of these players who are the club's (id, name).
pub async fn names_in_club(
    pool: &PgPool,
    club_id: i64,
    ids: &[i64],
) -> sqlx::Result<Vec<(i64, String)>> {
    sqlx::query_as("SELECT id, name FROM players WHERE club_id = $2 AND id = ANY($1)")
        .bind(ids)
        .bind(club_id)
        .fetch_all(pool)
        .await
}

/// What `read` found: whether the games held before may be kept (`kept`), the games to add to
/// them (or all of them), the last game now in the standings order, and the league's
/// corrections then.
pub struct Read {
    pub kept: bool,
    pub games: Vec<SeasonGame>,
    pub last: i64,
    pub corrections: i64,
}

/// The league's counted games in one snapshot: given the last game held before and the
/// league's corrections then (`before`), only the games after it while no correction came
/// since; else every game.
pub async fn read(pool: &PgPool, league_id: i64, before: Option<(i64, i64)>) -> sqlx::Result<Read> {
    let mut tx = pool.begin().await?;
    sqlx::query("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ ONLY")
        .execute(&mut *tx)
        .await?;
    let now = corrections(&mut *tx, league_id).await?;
    let after = match before {
        Some((last, was)) if was == now => last,
        _ => 0,
    };
    let games = games(&mut *tx, league_id, after).await?;
    tx.commit().await?;
    let last = games
        .iter()
        .map(|g| g.standings_order)
        .max()
        .unwrap_or(after);
    Ok(Read {
        kept: after > 0,
        games,
        last,
        corrections: now,
    })
}
