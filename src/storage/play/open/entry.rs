//! Each player's word on an open-play game as stored: the checks, a confirmation (the game
//! counts with the last), the games overdue and the players to ask.

use super::*;

/// A player's word on a waiting game.
#[derive(Debug, Clone, sqlx::FromRow)]
pub struct Check {
    pub player_id: i64,
    pub name: String,
    /// `confirmed` or `disputed`.
    pub answer: String,
    pub reason: Option<String>,
    pub at: DateTime<Utc>,
}

/// The players' words on a game, in the order given.
pub async fn checks(pool: &PgPool, game_id: i64) -> sqlx::Result<Vec<Check>> {
    sqlx::query_as(
        "SELECT c.player_id, p.name, c.answer, c.reason, c.at FROM game_checks c JOIN players p ON p.id = c.player_id \
         WHERE c.game_id = $1 ORDER BY c.at, c.player_id",
    )
    .bind(game_id)
    .fetch_all(pool)
    .await
}

/// What a player's word did to a game.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Word {
    /// Kept; the game still waits for others.
    Kept,
    /// The last confirmation: the game counts now.
    Counted,
    /// The game waits no more (counted, voided or settled).
    NotWaiting,
    /// The player has already said so.
    Said,
    /// The game was corrected after the caller read it (its version moved): nothing was said.
    Changed,
    Gone,
}

/// A game as the one giving a word on it read it: its league, id and version.
#[derive(Debug, Clone, Copy)]
pub struct GameAt {
    pub league_id: i64,
    pub game_id: i64,
    pub version: i32,
}

/// Counts a waiting game: out of waiting, into its players' totals, its ratings replayed; with
/// `events` (the league's row is locked by `lock_league` first).
pub(super) async fn count_in(
    tx: &mut Transaction<'_, Postgres>,
    league_id: i64,
    game_id: i64,
    news: &[(&str, serde_json::Value)],
) -> sqlx::Result<()> {
    let locked = totals::lock_league(tx, league_id).await?;
    sqlx::query(
        "UPDATE games SET awaiting = false, disputed_at = NULL, updated_at = clock_timestamp() WHERE id = $1",
    )
    .bind(game_id)
    .execute(&mut **tx)
    .await?;
    totals::adjust(tx, locked, league_id, game_id, 1).await?;
    totals::mark_ratings_dirty(tx, league_id).await?;
    let mut all: Vec<(&str, serde_json::Value)> = news.to_vec();
    all.push(("standings.changed", serde_json::Value::Null));
    events::emit(tx, league_id, &all).await
}

/// The game's row as a word on it needs it, locked: (waiting, disputed, players at its table),
/// or what stops the word (gone, or corrected since `at` was read).
pub(super) async fn waiting_game(
    tx: &mut Transaction<'_, Postgres>,
    at: GameAt,
) -> sqlx::Result<Result<(bool, bool, Vec<i64>), Word>> {
    let row: Option<(bool, bool, Vec<i64>, i32)> = sqlx::query_as(
        "SELECT g.awaiting AND g.status = 'recorded', g.disputed_at IS NOT NULL, \
                (SELECT array_agg(s.player_id) FROM game_scores s WHERE s.game_id = g.id), g.version \
         FROM games g WHERE g.id = $1 FOR NO KEY UPDATE",
    )
    .bind(at.game_id)
    .fetch_optional(&mut **tx)
    .await?;
    Ok(match row {
        None => Err(Word::Gone),
        Some((.., version)) if version != at.version => Err(Word::Changed),
        Some((waiting, disputed, players, _)) => Ok((waiting, disputed, players)),
    })
}

/// A player at the game's table confirms it; the game counts once every player has (with
/// `event`, the game as it will read, for `game.confirmed`).
pub async fn confirm(
    pool: &PgPool,
    at: GameAt,
    player_id: i64,
    user_id: Option<i64>,
    event: serde_json::Value,
) -> sqlx::Result<Word> {
    let GameAt {
        league_id, game_id, ..
    } = at;
    let mut tx = pool.begin().await?;
    lock_league_row(&mut tx, league_id).await?;
    let (waiting, disputed, players) = match waiting_game(&mut tx, at).await? {
        Ok(row) => row,
        Err(word) => return Ok(word),
    };
    if !waiting || disputed {
        return Ok(Word::NotWaiting);
    }
    let added = sqlx::query(
        "INSERT INTO game_checks (game_id, player_id, answer, by_user) VALUES ($1, $2, 'confirmed', $3) ON CONFLICT DO NOTHING",
    )
    .bind(game_id)
    .bind(player_id)
    .bind(user_id)
    .execute(&mut *tx)
    .await?
    .rows_affected();
    if added == 0 {
        return Ok(Word::Said);
    }
    let confirmed: i64 = sqlx::query_scalar(
        "SELECT count(*) FROM game_checks WHERE game_id = $1 AND answer = 'confirmed' AND player_id = ANY($2)",
    )
    .bind(game_id)
    .bind(&players)
    .fetch_one(&mut *tx)
    .await?;
    let word = if confirmed as usize >= players.len() {
        // The event says what the game is now: counted, waiting for nobody.
        let mut event = event;
        event["awaiting"] = serde_json::Value::Null;
        count_in(&mut tx, league_id, game_id, &[("game.confirmed", event)]).await?;
        Word::Counted
    } else {
        events::emit(&mut tx, league_id, &[("game.confirmed", event)]).await?;
        Word::Kept
    };
    tx.commit().await?;
    Ok(word)
}

/// A game `g` of league `l` whose wait ran out with nobody disputing it.
pub(super) const OVERDUE: &str = "g.awaiting AND g.status = 'recorded' AND g.disputed_at IS NULL \
     AND g.updated_at + make_interval(hours => l.confirm_hours) <= now()";

/// Games whose wait ran out with no dispute: (league, game), at most `limit`.
pub async fn overdue(pool: &PgPool, limit: i64) -> sqlx::Result<Vec<(i64, i64)>> {
    sqlx::query_as(sqlx::AssertSqlSafe(format!(
        "SELECT n.league_id, g.id FROM games g JOIN night_tables t ON t.id = g.table_id JOIN nights n ON n.id = t.night_id \
         JOIN leagues l ON l.id = n.league_id WHERE {OVERDUE} ORDER BY g.updated_at LIMIT $1"
    )))
    .bind(limit)
    .fetch_all(pool)
    .await
}

/// Counts a game whose wait ran out (unless a word came meanwhile), with `event`.
pub async fn count_overdue(
    pool: &PgPool,
    league_id: i64,
    game_id: i64,
    event: serde_json::Value,
) -> sqlx::Result<bool> {
    let mut tx = pool.begin().await?;
    lock_league_row(&mut tx, league_id).await?;
    let due: bool = sqlx::query_scalar(sqlx::AssertSqlSafe(format!(
        "SELECT EXISTS (SELECT 1 FROM games g, leagues l WHERE g.id = $1 AND l.id = $2 AND {OVERDUE} FOR NO KEY UPDATE OF g)"
    )))
    .bind(game_id)
    .bind(league_id)
    .fetch_one(&mut *tx)
    .await?;
    if !due {
        return Ok(false);
    }
    count_in(&mut tx, league_id, game_id, &[("game.confirmed", event)]).await?;
    tx.commit().await?;
    Ok(true)
}

/// A game of a match's table waiting for its players (not disputed), as `g` joined to its table
/// `t`.
pub(super) const WAITS_FOR_PLAYERS: &str =
    "g.awaiting AND g.status = 'recorded' AND g.disputed_at IS NULL";

/// Matches whose waiting games changed since their players were last asked, and have been quiet
/// (nothing entered or corrected) for `quiet_secs`: (league, match), at most `limit`.
pub async fn to_ask(pool: &PgPool, quiet_secs: i64, limit: i64) -> sqlx::Result<Vec<(i64, i64)>> {
    sqlx::query_as(sqlx::AssertSqlSafe(format!(
        "SELECT m.league_id, m.id FROM matches m JOIN night_tables t ON t.night_id = m.night_id \
         JOIN games g ON g.table_id = t.id WHERE {WAITS_FOR_PLAYERS} \
         GROUP BY m.id \
         HAVING max(g.updated_at) > coalesce(m.asked_through, '-infinity') \
            AND max(g.updated_at) <= now() - make_interval(secs => $1) \
         ORDER BY max(g.updated_at) LIMIT $2"
    )))
    .bind(quiet_secs as f64)
    .bind(limit)
    .fetch_all(pool)
    .await
}

/// Takes the ask of match `id` in `tx` (none when another process holds the match, or nothing
/// new waits, or the games are not quiet for `quiet_secs`) and marks it made: each player with a
/// game waiting for their word, one of them changed since the last ask, with those games (ids,
/// in their order at the table).
pub async fn claim_ask(
    tx: &mut Transaction<'_, Postgres>,
    id: i64,
    quiet_secs: i64,
) -> sqlx::Result<Option<Vec<(i64, Vec<i64>)>>> {
    let row: Option<(Option<i64>, Option<DateTime<Utc>>)> = sqlx::query_as(
        "SELECT night_id, asked_through FROM matches WHERE id = $1 FOR UPDATE SKIP LOCKED",
    )
    .bind(id)
    .fetch_optional(&mut **tx)
    .await?;
    let Some((Some(night), asked)) = row else {
        return Ok(None);
    };
    let newest: Option<DateTime<Utc>> = sqlx::query_scalar(sqlx::AssertSqlSafe(format!(
        "SELECT max(g.updated_at) FROM games g JOIN night_tables t ON t.id = g.table_id \
         WHERE t.night_id = $1 AND {WAITS_FOR_PLAYERS} \
         HAVING max(g.updated_at) <= now() - make_interval(secs => $2)"
    )))
    .bind(night)
    .bind(quiet_secs as f64)
    .fetch_optional(&mut **tx)
    .await?
    .flatten();
    let Some(newest) = newest.filter(|n| asked.is_none_or(|a| *n > a)) else {
        return Ok(None);
    };
    let asks: Vec<(i64, Vec<i64>, bool)> = sqlx::query_as(sqlx::AssertSqlSafe(format!(
        "SELECT s.player_id, array_agg(g.id ORDER BY g.number), bool_or(g.updated_at > coalesce($2, '-infinity')) \
         FROM games g JOIN night_tables t ON t.id = g.table_id JOIN game_scores s ON s.game_id = g.id \
         WHERE t.night_id = $1 AND {WAITS_FOR_PLAYERS} \
           AND NOT EXISTS (SELECT 1 FROM game_checks c WHERE c.game_id = g.id AND c.player_id = s.player_id) \
         GROUP BY s.player_id ORDER BY s.player_id"
    )))
    .bind(night)
    .bind(asked)
    .fetch_all(&mut **tx)
    .await?;
    sqlx::query("UPDATE matches SET asked_through = $2 WHERE id = $1")
        .bind(id)
        .bind(newest)
        .execute(&mut **tx)
        .await?;
    Ok(Some(
        asks.into_iter()
            .filter(|(_, _, fresh)| *fresh)
            .map(|(player, games, _)| (player, games))
            .collect(),
    ))
}
