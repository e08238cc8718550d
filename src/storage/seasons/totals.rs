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
use crate::storage::people::clubs::Club;
use crate::storage::seasons::leagues::{League, LeagueAndClub, WITH_CLUB_COLUMNS};
use crate::storage::seasons::new_game::{InsertError, NewGame};

/// What a game adds to each seat's totals, from the seats `s` (player_id, score, dead) and
/// the game `g` (winner, discarder, won_by, jokerless, outcome), as the columns of `TOTALS`.
macro_rules! contributions {
    () => {
        "s.player_id, 1 AS games, \
       coalesce(g.winner = s.player_id, false)::INT AS wins, s.score AS points, \
       coalesce(g.winner = s.player_id AND g.won_by IN ('self_pick', 'heavenly', 'earthly'), false)::INT AS self_picks, \
       coalesce(g.winner = s.player_id AND g.jokerless, false)::INT AS jokerless_wins, \
       coalesce(g.discarder = s.player_id, false)::INT AS deal_ins, \
       s.dead::INT AS dead_hands, (g.outcome = 'wall')::INT AS wall_games"
    };
}

/// One row per seat of the games selected by the caller's WHERE clause: the seat's player and
/// what the game adds to their totals.
const CONTRIBUTIONS: &str = concat!(
    "SELECT ",
    contributions!(),
    " FROM game_scores s JOIN games g ON g.id = s.game_id"
);

/// The counted games of league `$1` (recorded, not redeals, not waiting for confirmation), for joining after `games g`.
pub(crate) const LEAGUE_GAMES: &str = "JOIN night_tables t ON t.id = g.table_id JOIN nights n ON n.id = t.night_id \
     WHERE n.league_id = $1 AND g.status = 'recorded' AND g.outcome <> 'redeal' AND NOT g.awaiting";

/// The opening balances of league `$1` as rows of `CONTRIBUTIONS`, to follow its games: what
/// players carried in counts in their totals as games do.
const CARRIED_IN: &str = "UNION ALL SELECT b.player_id, b.games, b.wins, b.points, 0, 0, 0, 0, 0 \
     FROM opening_balances b WHERE b.league_id = $1";

/// What the league's lock found.
#[derive(Debug, Clone, Copy)]
pub struct Locked {
    /// The league's standings revision this transaction writes at.
    pub revision: i64,
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
    let (revision, totals_stale, ratings_dirty): (i64, bool, bool) = sqlx::query_as(
        "UPDATE leagues SET revision = revision + 1 WHERE id = $1 \
         RETURNING revision, standings_stale, ratings_dirty <> ratings_clean",
    )
    .bind(league_id)
    .fetch_one(&mut **tx)
    .await?;
    Ok(Locked {
        revision,
        totals_stale,
        ratings_dirty,
    })
}

/// The totals columns of `league_totals`, in the order `CONTRIBUTIONS` yields them.
const TOTALS: &str =
    "games, wins, points, self_picks, jokerless_wins, deal_ins, dead_hands, wall_games";

/// `ON CONFLICT … DO UPDATE` assignments adding the proposed row's totals to the stored ones
/// (and taking its `changed_at`).
const ADD_TOTALS: &str = "games = t.games + excluded.games, \
       wins = t.wins + excluded.wins, points = t.points + excluded.points, \
       self_picks = t.self_picks + excluded.self_picks, \
       jokerless_wins = t.jokerless_wins + excluded.jokerless_wins, \
       deal_ins = t.deal_ins + excluded.deal_ins, \
       dead_hands = t.dead_hands + excluded.dead_hands, \
       wall_games = t.wall_games + excluded.wall_games, changed_at = excluded.changed_at";

/// Each column of `TOTALS` as `each` writes it, in a list.
fn each_total(each: impl Fn(&str) -> String) -> String {
    TOTALS.split(", ").map(each).collect::<Vec<_>>().join(", ")
}

/// `c`'s totals times `sign`, as values for `TOTALS`.
fn signed(sign: &str) -> String {
    each_total(|column| format!("{sign} * c.{column}"))
}

/// Upserts a game's contributions into its players' totals (`$3` 1 adds, −1 takes away), at
/// standings revision `$4`.
async fn apply(
    tx: &mut Transaction<'_, Postgres>,
    league_id: i64,
    game_id: i64,
    sign: i64,
    revision: i64,
) -> sqlx::Result<()> {
    let sql = format!(
        "WITH c AS (SELECT * FROM ({CONTRIBUTIONS} WHERE g.id = $2) x) \
         INSERT INTO league_totals AS t (league_id, player_id, {TOTALS}, changed_at) \
         SELECT $1, c.player_id, {}, $4 FROM c ORDER BY c.player_id \
         ON CONFLICT (league_id, player_id) DO UPDATE SET {ADD_TOTALS}",
        signed("$3")
    );
    sqlx::query(sqlx::AssertSqlSafe(sql))
        .bind(league_id)
        .bind(game_id)
        .bind(sign)
        .bind(revision)
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

/// One statement, so one transaction: claims the idempotency key (`{KEY}`: `k` yields a row
/// when it is this request's), then takes league `$1`'s lock and writes the events (`$2`, `$3`:
/// see `EMIT`); inserts game `$4` (`$10`…`$21`) with its place in the standings order, its
/// seats (`$23`…`$27`), its time (`$28`), whether it waits for confirmation (`$29`) and who
/// entered it at the table (`$30`, confirming it), and its audit entry (by `$22`); and, when it counts (`$5`) and the totals
/// are fresh, adds it to its players' totals with the ratings worked out before (`$6` players,
/// `$7` μ, `$8` σ; none while the ratings are being replayed). A player's new rating is written
/// only where the stamp read with the old one (`$9`) is still there, and takes stamp `st.v`;
/// `rated` says where it was. The key is claimed before the lock is taken, and the game goes in
/// after: a request waits for another's key or game number only while holding no lock.
const COUNT: &str = concat!(
    "WITH {KEY} \
       l AS (UPDATE leagues SET revision = revision + 1 WHERE id = $1 {CLAIMED} \
         RETURNING club_id, revision, standings_stale, ratings_dirty <> ratings_clean AS ratings_dirty), \
       {EMIT}, \
       g AS (INSERT INTO games (id, table_id, number, east_player, outcome, submitted, engine, line_id, line_value, \
                                winner, discarder, won_by, jokerless, standings_order, created_at, updated_at, awaiting) \
         SELECT $4, $10, $11, $12, $13, $14, $15, $16, $17, $18, $19, $20, $21, nextval('game_standings_order'), $28, $28, $29 FROM l \
         RETURNING id, winner, discarder, won_by, jokerless, outcome), \
       ck AS (INSERT INTO game_checks (game_id, player_id, answer) SELECT g.id, $30, 'confirmed' FROM g WHERE $30::BIGINT IS NOT NULL), \
       s AS (INSERT INTO game_scores (game_id, player_id, seat, score, breakdown, dead) \
         SELECT g.id, u.* FROM g, unnest($23::BIGINT[], $24::TEXT[], $25::BIGINT[], $26::TEXT[], $27::BOOL[]) AS u \
         RETURNING game_id, player_id, score, dead), \
       a AS (INSERT INTO game_audit (game_id, actor, action, after) SELECT g.id, $22, 'recorded', $14 FROM g), \
       st AS (SELECT nextval('rating_stamps') AS v), \
       r AS (SELECT * FROM unnest($6::BIGINT[], $7::FLOAT8[], $8::FLOAT8[], $9::BIGINT[]) AS r (player_id, mu, sigma, seen)), \
       c AS (SELECT ",
    contributions!(),
    " FROM s JOIN g ON g.id = s.game_id, l WHERE $5 AND NOT l.standings_stale), \
       up AS (INSERT INTO league_totals AS t (league_id, player_id, {TOTALS}, changed_at, mu, sigma, rating_stamp) \
         SELECT $1, c.player_id, {VALUES}, l.revision, \
                CASE WHEN r.mu IS NOT NULL AND NOT l.ratings_dirty THEN r.mu END, \
                CASE WHEN r.mu IS NOT NULL AND NOT l.ratings_dirty THEN r.sigma END, \
                CASE WHEN r.mu IS NOT NULL AND NOT l.ratings_dirty THEN st.v END \
         FROM c JOIN r ON r.player_id = c.player_id, l, st ORDER BY c.player_id \
         ON CONFLICT (league_id, player_id) DO UPDATE SET {ADD_TOTALS}, \
           mu = CASE WHEN {SAME} THEN excluded.mu ELSE t.mu END, \
           sigma = CASE WHEN {SAME} THEN excluded.sigma ELSE t.sigma END, \
           rating_stamp = CASE WHEN {SAME} THEN excluded.rating_stamp ELSE t.rating_stamp END \
         RETURNING t.player_id, t.rating_stamp IS NOT DISTINCT FROM (SELECT v FROM st) AS rated, t.mu, t.sigma, \
           {RETURNED}) \
     SELECT l.revision, l.standings_stale, l.ratings_dirty, up.* FROM l LEFT JOIN up ON true ORDER BY up.player_id"
);

/// The new rating is to be written and nothing rated the player since the old one was read.
const SAME: &str = "excluded.rating_stamp IS NOT NULL AND \
     t.rating_stamp IS NOT DISTINCT FROM (SELECT r.seen FROM r WHERE r.player_id = t.player_id)";

/// The totals columns of `table`, as a list of `table.column`.
fn prefixed(table: &str) -> String {
    each_total(|column| format!("{table}.{column}"))
}

/// A row of `record_game`'s answer: the league's state, and a player's row after the game if
/// the game counted.
#[derive(sqlx::FromRow)]
struct CountRow {
    revision: i64,
    standings_stale: bool,
    ratings_dirty: bool,
    rated: Option<bool>,
    #[sqlx(flatten)]
    row: MaybeCounted,
}

/// The columns of a `league_totals` row from an outer join: all null when there is no row.
#[derive(sqlx::FromRow)]
struct MaybeCounted {
    player_id: Option<i64>,
    games: Option<i64>,
    wins: Option<i64>,
    points: Option<i64>,
    self_picks: Option<i64>,
    jokerless_wins: Option<i64>,
    deal_ins: Option<i64>,
    dead_hands: Option<i64>,
    wall_games: Option<i64>,
    mu: Option<f64>,
    sigma: Option<f64>,
}

impl MaybeCounted {
    fn counted(self) -> Option<CountedRow> {
        Some(CountedRow {
            player_id: self.player_id?,
            games: self.games?,
            wins: self.wins?,
            points: self.points?,
            self_picks: self.self_picks?,
            jokerless_wins: self.jokerless_wins?,
            deal_ins: self.deal_ins?,
            dead_hands: self.dead_hands?,
            wall_games: self.wall_games?,
            mu: self.mu,
            sigma: self.sigma,
        })
    }
}

/// An idempotency key to claim with a game: the club, the key, the hash of the request and the
/// answer it gets.
pub struct Claim<'a> {
    pub club_id: i64,
    pub key: &'a str,
    pub request_hash: &'a str,
    pub body: &'a serde_json::Value,
}

/// A new game to store: its league, the id taken for it, the game, who enters it, the events
/// it makes, its players' ratings as read before (by player) and the idempotency key to claim.
pub struct Entry<'a> {
    pub league_id: i64,
    pub game_id: i64,
    pub game: &'a NewGame,
    pub actor: &'a str,
    pub events: &'a [(&'a str, serde_json::Value)],
    pub priors: &'a HashMap<i64, Prior>,
    pub claim: Option<Claim<'a>>,
}

/// What became of a new game.
#[derive(Debug, Clone, PartialEq)]
pub enum Stored {
    /// Stored and counted.
    Counted(Counted),
    /// Stored and counted, but another game rated some of its players between the read of their
    /// ratings and the lock: the league's ratings are marked for a replay.
    Replay,
    /// The key was another request's: nothing was written.
    KeyTaken,
}

/// A new game as counted: the league's standings revision it was counted at, whether the ratings
/// are being replayed, and its players' rows as they stand after it (`None` while the totals wait
/// for a rebuild).
#[derive(Debug, Clone, PartialEq)]
pub struct Counted {
    pub revision: i64,
    pub updating: bool,
    pub rows: Option<Vec<CountedRow>>,
}

/// A player's row of `league_totals` after a game: totals and rating.
#[derive(Debug, Clone, PartialEq)]
pub struct CountedRow {
    pub player_id: i64,
    pub games: i64,
    pub wins: i64,
    pub points: i64,
    pub self_picks: i64,
    pub jokerless_wins: i64,
    pub deal_ins: i64,
    pub dead_hands: i64,
    pub wall_games: i64,
    pub mu: Option<f64>,
    pub sigma: Option<f64>,
}

impl CountedRow {
    /// The row as the standings hold it, under the player's `name`.
    pub fn rated(&self, name: String) -> Option<Rated> {
        (self.games > 0).then(|| {
            (
                Line {
                    player_id: self.player_id,
                    name,
                    games: self.games,
                    wins: self.wins,
                    points: self.points,
                    self_picks: self.self_picks,
                    jokerless_wins: self.jokerless_wins,
                    deal_ins: self.deal_ins,
                    dead_hands: self.dead_hands,
                    wall_games: self.wall_games,
                    counted: None,
                },
                skill(self.mu, self.sigma),
            )
        })
    }
}

/// A new game's players (by id) with their ratings after it, and the stamps of the ratings it
/// started from (a game that does not count, or that cannot be rated, changes no rating).
struct NewRatings {
    players: Vec<i64>,
    mu: Vec<Option<f64>>,
    sigma: Vec<Option<f64>>,
    seen: Vec<Option<i64>>,
    /// The game changed ratings.
    rated: bool,
}

impl NewRatings {
    fn of(g: &NewGame, priors: &HashMap<i64, Prior>, counted: bool) -> NewRatings {
        let mut seats: Vec<(i64, i64, Prior)> = g
            .scores
            .iter()
            .map(|s| (s.0, s.2, priors.get(&s.0).copied().unwrap_or_default()))
            .collect();
        seats.sort_unstable_by_key(|s| s.0);
        let game: Vec<(i64, i64, Skill)> = seats
            .iter()
            .map(|(p, score, prior)| (*p, *score, skill(prior.mu, prior.sigma)))
            .collect();
        let new: Option<HashMap<i64, Skill>> = counted
            .then(|| standings::rate_game(&game))
            .flatten()
            .map(|new| new.into_iter().collect());
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
        NewRatings {
            players,
            mu,
            sigma,
            seen,
            rated: new.is_some(),
        }
    }
}

/// The statement that stores a game with its key (when there is one), events, totals and
/// ratings.
fn count_sql(claimed: bool) -> String {
    COUNT
        .replace("{EMIT}", crate::storage::seasons::events::EMIT)
        .replace("{TOTALS}", TOTALS)
        .replace("{VALUES}", &signed("1"))
        .replace("{ADD_TOTALS}", ADD_TOTALS)
        .replace("{SAME}", SAME)
        .replace("{RETURNED}", &prefixed("t"))
        .replace(
            "{KEY}",
            if claimed {
                "k AS (INSERT INTO idempotency_keys (club_id, key, request_hash, response_code, response_body) \
                 VALUES ($31, $32, $33, 201, $34) ON CONFLICT DO NOTHING RETURNING 1),"
            } else {
                ""
            },
        )
        .replace(
            "{CLAIMED}",
            if claimed {
                "AND EXISTS (SELECT 1 FROM k)"
            } else {
                ""
            },
        )
}

/// Stores a new game as id `game_id` and counts it, in one statement (one transaction): claims
/// the idempotency key if there is one (with the answer), takes the league's lock (writing
/// `events` with it), inserts the game, its scores and its audit entry (by `actor`) with its
/// place in the standings order and, when it counts (not a redeal) and the totals are fresh,
/// adds it to its players' totals and (unless they are being replayed) ratings. `priors` holds
/// each player's rating as read before: the game is rated from those before the lock is taken.
/// If another game rated one of them meanwhile, the ratings are marked for a replay (which the
/// caller starts), a rare race: a player is at one table at a time.
pub async fn record_game(pool: &PgPool, entry: Entry<'_>) -> Result<Stored, InsertError> {
    let Entry {
        league_id,
        game_id,
        game: g,
        actor,
        events,
        priors,
        claim,
    } = entry;
    let counted = g.outcome != "redeal" && !g.awaiting;
    let rated = NewRatings::of(g, priors, counted);
    let (players, mu, sigma, seen) = (&rated.players, &rated.mu, &rated.sigma, &rated.seen);
    let sql = count_sql(claim.is_some());
    let (kinds, data) = crate::storage::seasons::events::columns(events);
    let seat_players: Vec<i64> = g.scores.iter().map(|s| s.0).collect();
    let winds: Vec<&str> = g.scores.iter().map(|s| s.1.as_str()).collect();
    let points: Vec<i64> = g.scores.iter().map(|s| s.2).collect();
    let breakdowns: Vec<&str> = g.scores.iter().map(|s| s.3.as_str()).collect();
    let dead: Vec<bool> = g.scores.iter().map(|s| s.4).collect();
    let mut query = sqlx::query_as(sqlx::AssertSqlSafe(sql))
        .bind(league_id)
        .bind(&kinds)
        .bind(&data)
        .bind(game_id)
        .bind(counted)
        .bind(players)
        .bind(mu)
        .bind(sigma)
        .bind(seen)
        .bind(g.table_id)
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
        .bind(actor)
        .bind(&seat_players)
        .bind(&winds)
        .bind(&points)
        .bind(&breakdowns)
        .bind(&dead)
        .bind(g.at)
        .bind(g.awaiting)
        .bind(g.entered_by);
    if let Some(c) = &claim {
        query = query
            .bind(c.club_id)
            .bind(c.key)
            .bind(c.request_hash)
            .bind(c.body);
    }
    let rows: Vec<CountRow> = query.fetch_all(pool).await?;
    let Some(first) = rows.first() else {
        return match claim {
            Some(_) => Ok(Stored::KeyTaken),
            // The league's row was not there to lock.
            None => Err(InsertError::Db(sqlx::Error::RowNotFound)),
        };
    };
    let (revision, stale, dirty) = (first.revision, first.standings_stale, first.ratings_dirty);
    let all_rated = rows.iter().all(|r| r.rated == Some(true));
    if stale || dirty || !rated.rated || all_rated {
        let rows = (!stale).then(|| rows.into_iter().filter_map(|r| r.row.counted()).collect());
        return Ok(Stored::Counted(Counted {
            revision,
            updating: dirty,
            rows,
        }));
    }
    // Another game rated some of these players between the read and the lock: the ratings are
    // replayed from the games.
    let mut tx = pool.begin().await?;
    lock_league(&mut tx, league_id).await?;
    mark_ratings_dirty(&mut tx, league_id).await?;
    tx.commit().await?;
    Ok(Stored::Replay)
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
        apply(tx, league_id, game_id, sign, locked.revision).await?;
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
    write_ratings(&mut tx, league_id, locked.revision, &rating).await?;
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

/// Writes players' ratings (each with a new stamp) at standings revision `revision`.
async fn write_ratings(
    tx: &mut Transaction<'_, Postgres>,
    league_id: i64,
    revision: i64,
    ratings: &HashMap<i64, Skill>,
) -> sqlx::Result<()> {
    let mut players: Vec<i64> = ratings.keys().copied().collect();
    players.sort_unstable();
    let mu: Vec<f64> = players.iter().map(|p| ratings[p].rating).collect();
    let sigma: Vec<f64> = players.iter().map(|p| ratings[p].uncertainty).collect();
    sqlx::query(
        "UPDATE league_totals t SET mu = u.mu, sigma = u.sigma, rating_stamp = nextval('rating_stamps'), changed_at = $5 \
         FROM unnest($2::BIGINT[], $3::FLOAT8[], $4::FLOAT8[]) AS u (player_id, mu, sigma) \
         WHERE t.league_id = $1 AND t.player_id = u.player_id",
    )
    .bind(league_id)
    .bind(&players)
    .bind(&mu)
    .bind(&sigma)
    .bind(revision)
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
    // The rebuild is a write at a new revision: every row is set again (those of players without
    // a counted game to nothing), so a reader that holds an older revision reads them all.
    let revision: Option<i64> = sqlx::query_scalar(
        "UPDATE leagues SET revision = revision + 1 WHERE id = $1 AND standings_stale RETURNING revision",
    )
    .bind(league_id)
    .fetch_optional(&mut *tx)
    .await?;
    let Some(revision) = revision else {
        return Ok(());
    };
    sqlx::query(sqlx::AssertSqlSafe(format!(
        "UPDATE league_totals SET {}, mu = NULL, sigma = NULL, rating_stamp = NULL, changed_at = $2 WHERE league_id = $1",
        TOTALS
            .split(", ")
            .map(|column| format!("{column} = 0"))
            .collect::<Vec<_>>()
            .join(", ")
    )))
    .bind(league_id)
    .bind(revision)
    .execute(&mut *tx)
    .await?;
    let sql = format!(
        "INSERT INTO league_totals AS t (league_id, player_id, {TOTALS}, changed_at) \
         SELECT $1, c.player_id, sum(c.games), sum(c.wins), sum(c.points)::BIGINT, sum(c.self_picks), sum(c.jokerless_wins), \
                sum(c.deal_ins), sum(c.dead_hands), sum(c.wall_games), $2 \
         FROM ({CONTRIBUTIONS} {LEAGUE_GAMES} {CARRIED_IN}) c GROUP BY c.player_id \
         ON CONFLICT (league_id, player_id) DO UPDATE SET {ADD_TOTALS}"
    );
    sqlx::query(sqlx::AssertSqlSafe(sql))
        .bind(league_id)
        .bind(revision)
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
    write_ratings(&mut tx, league_id, revision, &standings::ratings(&games)).await?;
    sqlx::query(
        "UPDATE leagues SET standings_stale = false, ratings_clean = ratings_dirty WHERE id = $1",
    )
    .bind(league_id)
    .execute(&mut *tx)
    .await?;
    tx.commit().await
}

/// A player's totals and rating.
pub type Rated = (Line, Skill);

/// A player's row of the league's standings as read: `None` for the line when the player has no
/// counted game (any more).
pub type LineRow = (i64, Option<Rated>);

/// One read of a league's standings: the league and its club, its standings state and the rows
/// changed after a revision.
pub struct StandingsRead {
    pub league: League,
    pub club: Club,
    pub state: LeagueState,
    pub changed: Vec<LineRow>,
}

/// The league with its club and its standings state and, in the same read, the rows changed
/// after revision `since` (all of them for `None`): each player's totals and rating. `None` when
/// there is no such league.
pub async fn lines(
    pool: &PgPool,
    league_id: i64,
    since: Option<i64>,
) -> sqlx::Result<Option<StandingsRead>> {
    #[derive(sqlx::FromRow)]
    struct Row {
        #[sqlx(flatten)]
        league: LeagueAndClub,
        #[sqlx(flatten)]
        state: LeagueState,
        player_name: Option<String>,
        #[sqlx(flatten)]
        row: MaybeCounted,
    }
    let rows: Vec<Row> = sqlx::query_as(sqlx::AssertSqlSafe(format!(
        "SELECT {WITH_CLUB_COLUMNS}, l.standings_stale AS stale, l.ratings_dirty <> l.ratings_clean AS updating, \
                l.ratings_dirty AS corrections, clock_timestamp() AS at, \
                t.player_id, p.name AS player_name, t.games, t.wins, t.points, t.self_picks, t.jokerless_wins, \
                t.deal_ins, t.dead_hands, t.wall_games, t.mu, t.sigma \
         FROM leagues l JOIN clubs c ON c.id = l.club_id \
         LEFT JOIN (league_totals t JOIN players p ON p.id = t.player_id) ON t.league_id = l.id AND t.changed_at > $2 \
         WHERE l.id = $1"
    )))
    .bind(league_id)
    .bind(since.unwrap_or(i64::MIN))
    .fetch_all(pool)
    .await?;
    let Some(first) = rows.first() else {
        return Ok(None);
    };
    let (league, club) = first.league.clone().split();
    let state = first.state;
    let changed = rows
        .into_iter()
        .filter_map(|r| {
            let row = r.row.counted()?;
            Some((row.player_id, row.rated(r.player_name.unwrap_or_default())))
        })
        .collect();
    Ok(Some(StandingsRead {
        league,
        club,
        state,
        changed,
    }))
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

/// Every player's scores in the league's counted games, night by night: (player, night number,
/// the scores), for boards that count some games only. A night missing for a player is a
/// night they did not play.
pub async fn night_scores(
    pool: &PgPool,
    league_id: i64,
) -> sqlx::Result<Vec<(i64, i32, Vec<i64>)>> {
    sqlx::query_as(sqlx::AssertSqlSafe(format!(
        "SELECT s.player_id, n.number, array_agg(s.score) FROM game_scores s JOIN games g ON g.id = s.game_id \
         {LEAGUE_GAMES} GROUP BY s.player_id, n.number"
    )))
    .bind(league_id)
    .fetch_all(pool)
    .await
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
