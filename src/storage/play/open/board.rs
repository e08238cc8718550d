//! What open play's board reads: games waiting, each player's match scores for a weekly board,
//! who sits where and who is waited for.

use super::*;

/// Games of the league still waiting: (waiting for players, waiting for an organizer).
pub async fn waiting_counts(pool: &PgPool, league_id: i64) -> sqlx::Result<(i64, i64)> {
    sqlx::query_as(
        "SELECT count(*) FILTER (WHERE g.disputed_at IS NULL), count(*) FILTER (WHERE g.disputed_at IS NOT NULL) \
         FROM games g JOIN night_tables t ON t.id = g.table_id JOIN nights n ON n.id = t.night_id \
         WHERE n.league_id = $1 AND g.awaiting AND g.status = 'recorded'",
    )
    .bind(league_id)
    .fetch_one(pool)
    .await
}

/// A player's match scores (the sum of their counted games at a table of a night) with the
/// night's date and the table's players, for boards by week: (player, night number, date,
/// score, games, the table's players in id order).
pub async fn match_scores(
    pool: &PgPool,
    league_id: i64,
) -> sqlx::Result<Vec<(i64, i32, NaiveDate, i64, i64, Vec<i64>)>> {
    sqlx::query_as(
        "SELECT s.player_id, n.number, n.night_date, sum(s.score)::BIGINT, count(*), \
                (SELECT array_agg(DISTINCT ts.player_id ORDER BY ts.player_id) FROM night_tables t2 JOIN table_seats ts ON ts.table_id = t2.id WHERE t2.id = t.id) \
         FROM game_scores s JOIN games g ON g.id = s.game_id JOIN night_tables t ON t.id = g.table_id JOIN nights n ON n.id = t.night_id \
         WHERE n.league_id = $1 AND g.status = 'recorded' AND g.outcome <> 'redeal' AND NOT g.awaiting \
         GROUP BY s.player_id, n.number, n.night_date, t.id",
    )
    .bind(league_id)
    .fetch_all(pool)
    .await
}

/// The player of the club linked to `user_id`, if any: (id, name).
pub async fn player_of_user(
    db: impl sqlx::PgExecutor<'_>,
    club_id: i64,
    user_id: i64,
) -> sqlx::Result<Option<(i64, String)>> {
    sqlx::query_as("SELECT id, name FROM players WHERE club_id = $1 AND user_id = $2")
        .bind(club_id)
        .bind(user_id)
        .fetch_optional(db)
        .await
}

/// Whether `player_id` sits at table `table_id`.
pub async fn seated(pool: &PgPool, table_id: i64, player_id: i64) -> sqlx::Result<bool> {
    sqlx::query_scalar(
        "SELECT EXISTS (SELECT 1 FROM table_seats WHERE table_id = $1 AND player_id = $2)",
    )
    .bind(table_id)
    .bind(player_id)
    .fetch_one(pool)
    .await
}

/// The league's matches with games waiting for this player's word: (match, date, time, place,
/// games), soonest first.
pub async fn waiting_for(
    pool: &PgPool,
    league_id: i64,
    player_id: i64,
) -> sqlx::Result<Vec<(i64, NaiveDate, NaiveTime, String, i64)>> {
    sqlx::query_as(
        "SELECT m.id, m.match_date, m.local_time, m.place, count(*) FROM matches m \
         JOIN night_tables t ON t.night_id = m.night_id JOIN games g ON g.table_id = t.id \
         JOIN game_scores s ON s.game_id = g.id AND s.player_id = $2 \
         WHERE m.league_id = $1 AND g.awaiting AND g.disputed_at IS NULL AND g.status = 'recorded' \
           AND NOT EXISTS (SELECT 1 FROM game_checks c WHERE c.game_id = g.id AND c.player_id = $2) \
         GROUP BY m.id ORDER BY m.match_date, m.local_time, m.id",
    )
    .bind(league_id)
    .bind(player_id)
    .fetch_all(pool)
    .await
}
