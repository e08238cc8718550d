//! Standings totals and ratings per league and player (`league_totals`), kept in step with
//! the games inside the transactions that write them.
//!
//! Every game write locks the league's row (bumping its standings revision), so the writes of
//! one league apply one after another. A new game takes the lock as its transaction's last
//! step, gets its place in the standings order there, and is added to its players' rows,
//! rating included, all in one statement: the new ratings are worked out before the lock from
//! those read with the table, and each rating row's stamp says whether another game rated the
//! player in between (then the game is rated again, under the lock). A change to the past — a correction or a void — takes the old game out of
//! its players' totals and puts the new one in, in its own transaction, and marks the ratings
//! dirty: ratings follow the games in the order they were recorded, so they are replayed
//! afterwards, off the request path (`recompute_ratings`), while the standings say so. Totals
//! written by hand (`standings_stale`) are rebuilt from the games on the next read
//! (`rebuild_if_stale`).

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

/// What the league's lock found.
#[derive(Debug, Clone, Copy)]
pub struct Locked {
    /// The totals must be rebuilt from the games (they were written by hand).
    pub totals_stale: bool,
    /// A correction changed the past and the ratings are being replayed.
    pub ratings_dirty: bool,
}

/// The league's row, locked for the rest of the transaction: bumps the standings revision.
pub async fn lock_league(
    tx: &mut Transaction<'_, Postgres>,
    league_id: i64,
) -> sqlx::Result<Locked> {
    let (totals_stale, ratings_dirty): (bool, bool) = sqlx::query_as(
        "UPDATE leagues SET revision = revision + 1 WHERE id = $1 \
         RETURNING standings_stale, ratings_dirty <> ratings_clean",
    )
    .bind(league_id)
    .fetch_one(&mut **tx)
    .await?;
    Ok(Locked {
        totals_stale,
        ratings_dirty,
    })
}

/// The totals columns of `league_totals`, in the order `CONTRIBUTIONS` yields them.
const TOTALS: &str =
    "games, wins, points, self_picks, jokerless_wins, deal_ins, dead_hands, wall_games";

/// `ON CONFLICT … DO UPDATE` assignments adding the proposed row's totals to the stored ones.
const ADD_TOTALS: &str = "games = t.games + excluded.games, \
       wins = t.wins + excluded.wins, points = t.points + excluded.points, \
       self_picks = t.self_picks + excluded.self_picks, \
       jokerless_wins = t.jokerless_wins + excluded.jokerless_wins, \
       deal_ins = t.deal_ins + excluded.deal_ins, \
       dead_hands = t.dead_hands + excluded.dead_hands, \
       wall_games = t.wall_games + excluded.wall_games";

/// `c`'s totals times `sign`, as values for `TOTALS`.
fn signed(sign: &str) -> String {
    TOTALS
        .split(", ")
        .map(|column| format!("{sign} * c.{column}"))
        .collect::<Vec<_>>()
        .join(", ")
}

/// Upserts a game's contributions into its players' totals (`$3` 1 adds, −1 takes away).
async fn apply(
    tx: &mut Transaction<'_, Postgres>,
    league_id: i64,
    game_id: i64,
    sign: i64,
) -> sqlx::Result<()> {
    let sql = format!(
        "WITH c AS (SELECT * FROM ({CONTRIBUTIONS} WHERE g.id = $2) x) \
         INSERT INTO league_totals AS t (league_id, player_id, {TOTALS}) \
         SELECT $1, c.player_id, {} FROM c ORDER BY c.player_id \
         ON CONFLICT (league_id, player_id) DO UPDATE SET {ADD_TOTALS}",
        signed("$3")
    );
    sqlx::query(sqlx::AssertSqlSafe(sql))
        .bind(league_id)
        .bind(game_id)
        .bind(sign)
        .execute(&mut **tx)
        .await?;
    Ok(())
}

/// A player's rating as read before a game's transaction: μ, σ and the stamp of the write that
/// set them (`None` when the player has no rating in the league yet).
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct Prior {
    pub mu: Option<f64>,
    pub sigma: Option<f64>,
    pub stamp: Option<i64>,
}

/// Takes league `$1`'s lock and, in the same statement: writes the events (`$2`, `$3`: see
/// `EMIT`), gives game `$4` its place in the standings order and, when it counts (`$5`) and the
/// totals are fresh, adds it to its players' totals with the ratings worked out before the
/// transaction (`$6` players, `$7` μ, `$8` σ; none while the ratings are being replayed). A
/// player's new rating is written only where the stamp read with the old one (`$9`) is still
/// there, and takes stamp `st.v`; `rated` says where it was.
const COUNT: &str = "WITH l AS (UPDATE leagues SET revision = revision + 1 WHERE id = $1 \
         RETURNING club_id, revision, standings_stale, ratings_dirty <> ratings_clean AS ratings_dirty), \
       {EMIT}, \
       o AS (UPDATE games g SET standings_order = nextval('game_standings_order') FROM l WHERE g.id = $4), \
       st AS (SELECT nextval('rating_stamps') AS v), \
       r AS (SELECT * FROM unnest($6::BIGINT[], $7::FLOAT8[], $8::FLOAT8[], $9::BIGINT[]) AS r (player_id, mu, sigma, seen)), \
       c AS (SELECT x.* FROM ({CONTRIBUTIONS} WHERE g.id = $4) x, l WHERE $5 AND NOT l.standings_stale), \
       up AS (INSERT INTO league_totals AS t (league_id, player_id, {TOTALS}, mu, sigma, rating_stamp) \
         SELECT $1, c.player_id, {VALUES}, \
                CASE WHEN r.mu IS NOT NULL AND NOT l.ratings_dirty THEN r.mu END, \
                CASE WHEN r.mu IS NOT NULL AND NOT l.ratings_dirty THEN r.sigma END, \
                CASE WHEN r.mu IS NOT NULL AND NOT l.ratings_dirty THEN st.v END \
         FROM c JOIN r ON r.player_id = c.player_id, l, st ORDER BY c.player_id \
         ON CONFLICT (league_id, player_id) DO UPDATE SET {ADD_TOTALS}, \
           mu = CASE WHEN {SAME} THEN excluded.mu ELSE t.mu END, \
           sigma = CASE WHEN {SAME} THEN excluded.sigma ELSE t.sigma END, \
           rating_stamp = CASE WHEN {SAME} THEN excluded.rating_stamp ELSE t.rating_stamp END \
         RETURNING t.player_id, t.rating_stamp IS NOT DISTINCT FROM (SELECT v FROM st) AS rated, t.mu, t.sigma) \
     SELECT l.standings_stale, l.ratings_dirty, up.player_id, up.rated, up.mu, up.sigma \
     FROM l LEFT JOIN up ON true ORDER BY up.player_id";

/// The new rating is to be written and nothing rated the player since the old one was read.
const SAME: &str = "excluded.rating_stamp IS NOT NULL AND \
     t.rating_stamp IS NOT DISTINCT FROM (SELECT r.seen FROM r WHERE r.player_id = t.player_id)";

/// Adds a just-inserted game to the league's standings: takes the league's lock (writing
/// `events` with it), gives the game its place in the standings order and, when it counts (not a
/// redeal) and the totals are fresh, adds it to its players' totals and (unless they are being
/// replayed) ratings. `seats` holds each seat's player, score and rating as read before the
/// transaction: the game is rated from those before the lock is taken, and rated again under it
/// only if another write changed one of them meanwhile. Call it as the transaction's last step:
/// the lock is held until the commit.
pub async fn count_game(
    tx: &mut Transaction<'_, Postgres>,
    league_id: i64,
    game_id: i64,
    counted: bool,
    events: &[(&str, serde_json::Value)],
    seats: &[(i64, i64, Prior)],
) -> sqlx::Result<()> {
    let mut seats = seats.to_vec();
    seats.sort_unstable_by_key(|s| s.0);
    let rate = |seats: &[(i64, i64, Prior)]| {
        let game: Vec<(i64, i64, Skill)> = seats
            .iter()
            .map(|(p, score, prior)| (*p, *score, skill(prior.mu, prior.sigma)))
            .collect();
        standings::rate_game(&game).map(|new| new.into_iter().collect::<HashMap<i64, Skill>>())
    };
    let new = if counted { rate(&seats) } else { None };
    let players: Vec<i64> = seats.iter().map(|s| s.0).collect();
    let skill_of = |p: &i64| new.as_ref().and_then(|n| n.get(p));
    let mu: Vec<Option<f64>> = players
        .iter()
        .map(|p| skill_of(p).map(|s| s.rating))
        .collect();
    let sigma: Vec<Option<f64>> = players
        .iter()
        .map(|p| skill_of(p).map(|s| s.uncertainty))
        .collect();
    let seen: Vec<Option<i64>> = seats.iter().map(|s| s.2.stamp).collect();
    let sql = COUNT
        .replace("{EMIT}", super::events::EMIT)
        .replace("{CONTRIBUTIONS}", CONTRIBUTIONS)
        .replace("{TOTALS}", TOTALS)
        .replace("{VALUES}", &signed("1"))
        .replace("{ADD_TOTALS}", ADD_TOTALS)
        .replace("{SAME}", SAME);
    let (kinds, data) = super::events::columns(events);
    #[allow(clippy::type_complexity)]
    let rows: Vec<(
        bool,
        bool,
        Option<i64>,
        Option<bool>,
        Option<f64>,
        Option<f64>,
    )> = sqlx::query_as(sqlx::AssertSqlSafe(sql))
        .bind(league_id)
        .bind(&kinds)
        .bind(&data)
        .bind(game_id)
        .bind(counted)
        .bind(&players)
        .bind(&mu)
        .bind(&sigma)
        .bind(&seen)
        .fetch_all(&mut **tx)
        .await?;
    let Some(&(stale, dirty, ..)) = rows.first() else {
        return Ok(());
    };
    if stale || dirty || new.is_none() || rows.iter().all(|r| r.3 == Some(true)) {
        return Ok(());
    }
    // Another game rated some of these players between the read and the lock: rate this one
    // again from the ratings before it (those read where its rating went in, those there now
    // elsewhere) and write them all.
    let before: Vec<(i64, i64, Prior)> = seats
        .iter()
        .map(|&(p, score, prior)| {
            let now = rows.iter().find(|r| r.2 == Some(p));
            match now {
                Some(&(_, _, _, Some(false), mu, sigma)) => (
                    p,
                    score,
                    Prior {
                        mu,
                        sigma,
                        stamp: None,
                    },
                ),
                _ => (p, score, prior),
            }
        })
        .collect();
    if let Some(again) = rate(&before) {
        write_ratings(tx, league_id, &again).await?;
    }
    Ok(())
}

/// A counted game changes (after `lock_league`): `sign` −1 takes it out of its players'
/// totals before its rows change, 1 puts the new version in after; the caller marks the
/// ratings for a replay. Nothing to do while the totals wait for a rebuild.
pub async fn adjust(
    tx: &mut Transaction<'_, Postgres>,
    locked: Locked,
    league_id: i64,
    game_id: i64,
    sign: i64,
) -> sqlx::Result<()> {
    if !locked.totals_stale {
        apply(tx, league_id, game_id, sign).await?;
    }
    Ok(())
}

/// Marks the league's ratings for a replay from the games (after `lock_league`).
pub async fn mark_ratings_dirty(
    tx: &mut Transaction<'_, Postgres>,
    league_id: i64,
) -> sqlx::Result<()> {
    sqlx::query("UPDATE leagues SET ratings_dirty = ratings_dirty + 1 WHERE id = $1")
        .bind(league_id)
        .execute(&mut **tx)
        .await?;
    Ok(())
}

/// The league's standings state in one read.
#[derive(Debug, Clone, Copy, sqlx::FromRow)]
pub struct LeagueState {
    pub revision: i64,
    /// The totals were written by hand and wait for a rebuild.
    pub stale: bool,
    /// The ratings are being replayed after a correction.
    pub updating: bool,
    /// Corrections so far (`ratings_dirty`).
    pub corrections: i64,
    /// The database's clock when this was read.
    pub at: chrono::DateTime<chrono::Utc>,
}

async fn league_state(pool: &PgPool, league_id: i64) -> sqlx::Result<LeagueState> {
    sqlx::query_as(
        "SELECT revision, standings_stale AS stale, ratings_dirty <> ratings_clean AS updating, \
                ratings_dirty AS corrections, clock_timestamp() AS at FROM leagues WHERE id = $1",
    )
    .bind(league_id)
    .fetch_one(pool)
    .await
}

/// (standings order, game, player, score) of the league's counted games after `after` in the
/// standings order, in that order.
pub async fn rows_after(
    db: impl sqlx::PgExecutor<'_>,
    league_id: i64,
    after: i64,
) -> sqlx::Result<Vec<(i64, i64, i64, i64)>> {
    let sql = format!(
        "SELECT g.standings_order, s.game_id, s.player_id, s.score FROM game_scores s JOIN games g ON g.id = s.game_id {LEAGUE_GAMES} \
         AND g.standings_order > $2 ORDER BY g.standings_order, s.player_id"
    );
    sqlx::query_as(sqlx::AssertSqlSafe(sql))
        .bind(league_id)
        .bind(after)
        .fetch_all(db)
        .await
}

/// The league's games corrected or voided since `since` (a game just recorded has `updated_at`
/// equal to `created_at`), with the rows of those that count now, as (game, player, score).
pub async fn changed_since(
    pool: &PgPool,
    league_id: i64,
    since: chrono::DateTime<chrono::Utc>,
) -> sqlx::Result<(Vec<i64>, Vec<(i64, i64, i64)>)> {
    let ids: Vec<i64> = sqlx::query_scalar(
        "SELECT g.id FROM games g JOIN night_tables t ON t.id = g.table_id JOIN nights n ON n.id = t.night_id \
         WHERE n.league_id = $1 AND g.updated_at >= $2 AND g.updated_at > g.created_at",
    )
    .bind(league_id)
    .bind(since)
    .fetch_all(pool)
    .await?;
    let sql = format!(
        "SELECT s.game_id, s.player_id, s.score FROM game_scores s JOIN games g ON g.id = s.game_id {LEAGUE_GAMES} \
         AND g.id = ANY($2) ORDER BY s.game_id, s.player_id"
    );
    let rows = sqlx::query_as(sqlx::AssertSqlSafe(sql))
        .bind(league_id)
        .bind(&ids)
        .fetch_all(pool)
        .await?;
    Ok((ids, rows))
}

/// Replays the league's ratings from its games after a correction, holding the league's lock
/// only for the last step: the games are read from a snapshot and rated outside any lock, then,
/// under the lock, the games counted since the snapshot are rated on top and the ratings
/// written. Answers `false` when another correction came meanwhile (call again).
pub async fn recompute_ratings(pool: &PgPool, league_id: i64) -> sqlx::Result<bool> {
    let dirty: Option<(i64, i64)> =
        sqlx::query_as("SELECT ratings_dirty, ratings_clean FROM leagues WHERE id = $1")
            .bind(league_id)
            .fetch_optional(pool)
            .await?;
    let Some((dirty, clean)) = dirty else {
        return Ok(true);
    };
    if dirty == clean {
        return Ok(true);
    }
    let mut snapshot = pool.begin().await?;
    sqlx::query("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ ONLY")
        .execute(&mut *snapshot)
        .await?;
    let rows = rows_after(&mut *snapshot, league_id, i64::MIN).await?;
    snapshot.commit().await?;
    let seen = rows.last().map_or(i64::MIN, |r| r.0);
    let games: Vec<(i64, i64, i64)> = rows.into_iter().map(|r| (r.1, r.2, r.3)).collect();
    let mut rating = tokio::task::spawn_blocking(move || standings::ratings(&games))
        .await
        .map_err(|e| sqlx::Error::Protocol(format!("rating the games: {e}")))?;

    let mut tx = pool.begin().await?;
    let locked = lock_league(&mut tx, league_id).await?;
    let now: i64 = sqlx::query_scalar("SELECT ratings_dirty FROM leagues WHERE id = $1")
        .bind(league_id)
        .fetch_one(&mut *tx)
        .await?;
    if now != dirty || locked.totals_stale {
        tx.rollback().await?;
        return Ok(locked.totals_stale);
    }
    // Games counted while the snapshot was being rated (orders are taken under the lock, so
    // every one of them is past the snapshot's last).
    let later = rows_after(&mut *tx, league_id, seen).await?;
    let later: Vec<(i64, i64, i64)> = later.into_iter().map(|r| (r.1, r.2, r.3)).collect();
    standings::replay(&mut rating, &later);
    write_ratings(&mut tx, league_id, &rating).await?;
    sqlx::query("UPDATE leagues SET ratings_clean = $2 WHERE id = $1")
        .bind(league_id)
        .bind(dirty)
        .execute(&mut *tx)
        .await?;
    tx.commit().await?;
    Ok(true)
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
        "UPDATE league_totals t SET mu = u.mu, sigma = u.sigma, rating_stamp = nextval('rating_stamps') \
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
    sqlx::query(
        "UPDATE leagues SET standings_stale = false, ratings_clean = ratings_dirty WHERE id = $1",
    )
    .bind(league_id)
    .execute(&mut *tx)
    .await?;
    tx.commit().await
}

/// The league's standings state and, in the same read, the totals of every player with a
/// counted game in the league and their ratings.
pub async fn lines(
    pool: &PgPool,
    league_id: i64,
) -> sqlx::Result<(LeagueState, Vec<(Line, Skill)>)> {
    #[derive(sqlx::FromRow)]
    struct Row {
        #[sqlx(flatten)]
        state: LeagueState,
        #[sqlx(flatten)]
        line: Line,
        mu: Option<f64>,
        sigma: Option<f64>,
    }
    let rows: Vec<Row> = sqlx::query_as(
        "SELECT l.revision, l.standings_stale AS stale, l.ratings_dirty <> l.ratings_clean AS updating, \
                l.ratings_dirty AS corrections, clock_timestamp() AS at, \
                t.player_id, p.name, t.games, t.wins, t.points, t.self_picks, t.jokerless_wins, t.deal_ins, \
                t.dead_hands, t.wall_games, t.mu, t.sigma \
         FROM leagues l JOIN league_totals t ON t.league_id = l.id AND t.games > 0 JOIN players p ON p.id = t.player_id \
         WHERE l.id = $1",
    )
    .bind(league_id)
    .fetch_all(pool)
    .await?;
    let state = match rows.first() {
        Some(r) => r.state,
        // No player has a counted game yet.
        None => league_state(pool, league_id).await?,
    };
    Ok((
        state,
        rows.into_iter()
            .map(|r| (r.line, skill(r.mu, r.sigma)))
            .collect(),
    ))
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
