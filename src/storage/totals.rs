//! Standings totals and ratings per league and player (`league_totals`), kept in step with
//! the games inside the transactions that write them.
//!
//! Every game write locks the league's row (bumping its standings revision), so the writes of
//! one league apply one after another. A new game takes the lock as its transaction's last
//! step, gets its place in the standings order there, and is added to its players' rows,
//! rating included. A change to the past — a correction
//! or a void — marks the league stale instead, and the next read rebuilds the rows from the
//! games (`rebuild_if_stale`). Ratings follow the games in the order they were recorded.

use std::collections::HashMap;

use sqlx::{PgPool, Postgres, Transaction};

use crate::standings::{self, Line, Skill};

/// One row per seat of the games selected by the caller's WHERE clause: the seat's player and
/// what the game adds to their totals.
const CONTRIBUTIONS: &str = "SELECT s.player_id, 1 AS games, \
       coalesce(g.winner = s.player_id, false)::INT AS wins, s.score AS points, \
       coalesce(g.winner = s.player_id AND g.won_by IN ('self_pick', 'heavenly', 'earthly'), false)::INT AS self_picks, \
       coalesce(g.winner = s.player_id AND g.jokerless, false)::INT AS jokerless_wins, \
       coalesce(g.discarder = s.player_id, false)::INT AS deal_ins, \
       s.dead::INT AS dead_hands, (g.outcome = 'wall')::INT AS wall_games \
     FROM game_scores s JOIN games g ON g.id = s.game_id";

/// The counted games of league `$1` (recorded, not redeals), for joining after `games g`.
const LEAGUE_GAMES: &str = "JOIN night_tables t ON t.id = g.table_id JOIN nights n ON n.id = t.night_id \
     WHERE n.league_id = $1 AND g.status = 'recorded' AND g.outcome <> 'redeal'";

/// The league's row, locked for the rest of the transaction: bumps the standings revision and
/// answers whether the league's totals are stale.
pub async fn lock_league(tx: &mut Transaction<'_, Postgres>, league_id: i64) -> sqlx::Result<bool> {
    sqlx::query_scalar(
        "UPDATE leagues SET revision = revision + 1 WHERE id = $1 RETURNING standings_stale",
    )
    .bind(league_id)
    .fetch_one(&mut **tx)
    .await
}

/// Marks the league's totals for a rebuild (after `lock_league`).
pub async fn mark_stale(tx: &mut Transaction<'_, Postgres>, league_id: i64) -> sqlx::Result<()> {
    sqlx::query("UPDATE leagues SET standings_stale = true WHERE id = $1")
        .bind(league_id)
        .execute(&mut **tx)
        .await?;
    Ok(())
}

/// Adds a just-inserted game to the league's standings: takes the league's lock, gives the game
/// its place in the standings order and, when it counts (not a redeal) and the totals are
/// fresh, adds it to its players' totals and ratings. Call it as the transaction's last step:
/// the lock is held until the commit.
pub async fn count_game(
    tx: &mut Transaction<'_, Postgres>,
    league_id: i64,
    game_id: i64,
    counted: bool,
) -> sqlx::Result<()> {
    let stale = lock_league(tx, league_id).await?;
    sqlx::query("UPDATE games SET standings_order = nextval('game_standings_order') WHERE id = $1")
        .bind(game_id)
        .execute(&mut **tx)
        .await?;
    if stale || !counted {
        return Ok(());
    }
    let sql = format!(
        "INSERT INTO league_totals (league_id, player_id, games, wins, points, self_picks, jokerless_wins, deal_ins, dead_hands, wall_games) \
         SELECT $1, c.* FROM ({CONTRIBUTIONS} WHERE g.id = $2 ORDER BY s.player_id) c \
         ON CONFLICT (league_id, player_id) DO UPDATE SET games = league_totals.games + excluded.games, \
           wins = league_totals.wins + excluded.wins, points = league_totals.points + excluded.points, \
           self_picks = league_totals.self_picks + excluded.self_picks, \
           jokerless_wins = league_totals.jokerless_wins + excluded.jokerless_wins, \
           deal_ins = league_totals.deal_ins + excluded.deal_ins, \
           dead_hands = league_totals.dead_hands + excluded.dead_hands, \
           wall_games = league_totals.wall_games + excluded.wall_games"
    );
    sqlx::query(sqlx::AssertSqlSafe(sql))
        .bind(league_id)
        .bind(game_id)
        .execute(&mut **tx)
        .await?;
    let seats: Vec<(i64, i64, Option<f64>, Option<f64>)> = sqlx::query_as(
        "SELECT s.player_id, s.score, t.mu, t.sigma FROM game_scores s \
         JOIN league_totals t ON t.league_id = $1 AND t.player_id = s.player_id \
         WHERE s.game_id = $2 ORDER BY s.player_id",
    )
    .bind(league_id)
    .bind(game_id)
    .fetch_all(&mut **tx)
    .await?;
    let game: Vec<(i64, i64, Skill)> = seats
        .into_iter()
        .map(|(p, score, mu, sigma)| (p, score, skill(mu, sigma)))
        .collect();
    if let Some(new) = standings::rate_game(&game) {
        write_ratings(tx, league_id, &new.into_iter().collect()).await?;
    }
    Ok(())
}

fn skill(mu: Option<f64>, sigma: Option<f64>) -> Skill {
    match (mu, sigma) {
        (Some(rating), Some(uncertainty)) => Skill {
            rating,
            uncertainty,
        },
        _ => Skill::default(),
    }
}

async fn write_ratings(
    tx: &mut Transaction<'_, Postgres>,
    league_id: i64,
    ratings: &HashMap<i64, Skill>,
) -> sqlx::Result<()> {
    let mut players: Vec<i64> = ratings.keys().copied().collect();
    players.sort_unstable();
    let mu: Vec<f64> = players.iter().map(|p| ratings[p].rating).collect();
    let sigma: Vec<f64> = players.iter().map(|p| ratings[p].uncertainty).collect();
    sqlx::query(
        "UPDATE league_totals t SET mu = u.mu, sigma = u.sigma \
         FROM unnest($2::BIGINT[], $3::FLOAT8[], $4::FLOAT8[]) AS u (player_id, mu, sigma) \
         WHERE t.league_id = $1 AND t.player_id = u.player_id",
    )
    .bind(league_id)
    .bind(&players)
    .bind(&mu)
    .bind(&sigma)
    .execute(&mut **tx)
    .await?;
    Ok(())
}

/// Rebuilds the league's totals and ratings from its games if a write marked them stale.
pub async fn rebuild_if_stale(pool: &PgPool, league_id: i64) -> sqlx::Result<()> {
    let stale: Option<bool> =
        sqlx::query_scalar("SELECT standings_stale FROM leagues WHERE id = $1")
            .bind(league_id)
            .fetch_optional(pool)
            .await?;
    if stale != Some(true) {
        return Ok(());
    }
    let mut tx = pool.begin().await?;
    // Writers wait while the rows are rebuilt; a rebuild that lost the race finds them fresh.
    let stale: bool =
        sqlx::query_scalar("SELECT standings_stale FROM leagues WHERE id = $1 FOR UPDATE")
            .bind(league_id)
            .fetch_one(&mut *tx)
            .await?;
    if !stale {
        return Ok(());
    }
    sqlx::query("DELETE FROM league_totals WHERE league_id = $1")
        .bind(league_id)
        .execute(&mut *tx)
        .await?;
    let sql = format!(
        "INSERT INTO league_totals (league_id, player_id, games, wins, points, self_picks, jokerless_wins, deal_ins, dead_hands, wall_games) \
         SELECT $1, c.player_id, count(*), sum(c.wins), sum(c.points)::BIGINT, sum(c.self_picks), sum(c.jokerless_wins), \
                sum(c.deal_ins), sum(c.dead_hands), sum(c.wall_games) \
         FROM ({CONTRIBUTIONS} {LEAGUE_GAMES}) c GROUP BY c.player_id"
    );
    sqlx::query(sqlx::AssertSqlSafe(sql))
        .bind(league_id)
        .execute(&mut *tx)
        .await?;
    let sql = format!(
        "SELECT s.game_id, s.player_id, s.score FROM game_scores s JOIN games g ON g.id = s.game_id {LEAGUE_GAMES} \
         ORDER BY g.standings_order, s.player_id"
    );
    let games: Vec<(i64, i64, i64)> = sqlx::query_as(sqlx::AssertSqlSafe(sql))
        .bind(league_id)
        .fetch_all(&mut *tx)
        .await?;
    write_ratings(&mut tx, league_id, &standings::ratings(&games)).await?;
    sqlx::query("UPDATE leagues SET standings_stale = false WHERE id = $1")
        .bind(league_id)
        .execute(&mut *tx)
        .await?;
    tx.commit().await
}

/// The totals of every player with a counted game in the league, and their ratings.
pub async fn lines(pool: &PgPool, league_id: i64) -> sqlx::Result<Vec<(Line, Skill)>> {
    #[derive(sqlx::FromRow)]
    struct Row {
        #[sqlx(flatten)]
        line: Line,
        mu: Option<f64>,
        sigma: Option<f64>,
    }
    let rows: Vec<Row> = sqlx::query_as(
        "SELECT t.player_id, p.name, t.games, t.wins, t.points, t.self_picks, t.jokerless_wins, t.deal_ins, \
                t.dead_hands, t.wall_games, t.mu, t.sigma \
         FROM league_totals t JOIN players p ON p.id = t.player_id WHERE t.league_id = $1 AND t.games > 0",
    )
    .bind(league_id)
    .fetch_all(pool)
    .await?;
    Ok(rows
        .into_iter()
        .map(|r| (r.line, skill(r.mu, r.sigma)))
        .collect())
}

/// Head-to-head points of tied players: for each player of each group in `groups`, the points
/// they scored in the league's counted games shared with at least one other player of their
/// group. Computed in the database, so only one row per tied player comes back.
pub async fn head_to_head(
    pool: &PgPool,
    league_id: i64,
    groups: &[Vec<i64>],
) -> sqlx::Result<HashMap<i64, i64>> {
    let (players, group): (Vec<i64>, Vec<i32>) = groups
        .iter()
        .enumerate()
        .flat_map(|(i, g)| g.iter().map(move |p| (*p, i as i32)))
        .unzip();
    if players.is_empty() {
        return Ok(HashMap::new());
    }
    let sql = format!(
        "SELECT player_id, sum(score)::BIGINT FROM ( \
           SELECT s.player_id, s.score, count(*) OVER (PARTITION BY s.game_id, u.grp) AS together \
           FROM unnest($2::BIGINT[], $3::INT[]) AS u (player_id, grp) \
           JOIN game_scores s ON s.player_id = u.player_id JOIN games g ON g.id = s.game_id {LEAGUE_GAMES} \
         ) x WHERE together > 1 GROUP BY player_id"
    );
    let rows: Vec<(i64, i64)> = sqlx::query_as(sqlx::AssertSqlSafe(sql))
        .bind(league_id)
        .bind(&players)
        .bind(&group)
        .fetch_all(pool)
        .await?;
    Ok(rows.into_iter().collect())
}

/// (night number, player, points that night) of the given players in the league's counted
/// games, for the points chart.
pub async fn points_by_night(
    pool: &PgPool,
    league_id: i64,
    players: &[i64],
) -> sqlx::Result<Vec<(i32, i64, i64)>> {
    if players.is_empty() {
        return Ok(Vec::new());
    }
    let sql = format!(
        "SELECT n.number, s.player_id, sum(s.score)::BIGINT FROM game_scores s JOIN games g ON g.id = s.game_id {LEAGUE_GAMES} \
         AND s.player_id = ANY($2) GROUP BY n.number, s.player_id ORDER BY n.number"
    );
    sqlx::query_as(sqlx::AssertSqlSafe(sql))
        .bind(league_id)
        .bind(players)
        .fetch_all(pool)
        .await
}
