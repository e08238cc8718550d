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
/// players), in the order of their nights and then the order they were counted.
pub async fn games(pool: &PgPool, league_id: i64) -> sqlx::Result<Vec<SeasonGame>> {
    let sql = format!(
        "SELECT g.id, g.standings_order, n.id AS night_id, n.number AS night_number, n.night_date, \
           t.id AS table_id, g.east_player, g.outcome, g.line_id, g.winner, g.discarder, g.won_by, \
           g.jokerless, \
           array_agg(s.player_id ORDER BY array_position(ARRAY['E','S','W','N'], s.seat)) AS players, \
           array_agg(s.score ORDER BY array_position(ARRAY['E','S','W','N'], s.seat)) AS scores, \
           array_agg(s.dead ORDER BY array_position(ARRAY['E','S','W','N'], s.seat)) AS dead \
         FROM games g JOIN game_scores s ON s.game_id = g.id {LEAGUE_GAMES} \
         GROUP BY g.id, n.id, t.id ORDER BY n.number, g.standings_order"
    );
    sqlx::query_as(sqlx::AssertSqlSafe(sql))
        .bind(league_id)
        .fetch_all(pool)
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
