//! Open play: matches members arrange (a table of four on a day, time and place), the players
//! in them, and each player's word on the games entered (confirmed or disputed).

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

/// A new match.
pub struct NewMatch<'a> {
    pub league_id: i64,
    pub date: NaiveDate,
    pub time: NaiveTime,
    pub starts_at: DateTime<Utc>,
    pub place: &'a str,
    pub note: Option<&'a str>,
    pub open: bool,
    pub created_by: Option<i64>,
    /// The players in it from the start, the proposer first.
    pub players: &'a [i64],
    /// Every player has agreed (an organizer made it, or it is open): a full match locks at
    /// once. Otherwise the named players wait to accept.
    pub agreed: bool,
}

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

/// Matches a member proposed that are still forming and ahead.
pub async fn forming_by(pool: &PgPool, user_id: i64) -> sqlx::Result<i64> {
    sqlx::query_scalar(
        "SELECT count(*) FROM matches WHERE created_by = $1 AND status = 'forming' AND starts_at > now()",
    )
    .bind(user_id)
    .fetch_one(pool)
    .await
}

/// Takes the league's row lock (words on its games and their counting apply one at a time).
async fn lock_league_row(tx: &mut Transaction<'_, Postgres>, league_id: i64) -> sqlx::Result<()> {
    sqlx::query("SELECT id FROM leagues WHERE id = $1 FOR NO KEY UPDATE")
        .bind(league_id)
        .execute(&mut **tx)
        .await?;
    Ok(())
}

/// Locks the league's row (so matches lock and nights take numbers one at a time) and the match.
async fn lock(tx: &mut Transaction<'_, Postgres>, league_id: i64, id: i64) -> sqlx::Result<()> {
    lock_league_row(tx, league_id).await?;
    sqlx::query("SELECT id FROM matches WHERE id = $1 FOR NO KEY UPDATE")
        .bind(id)
        .execute(&mut **tx)
        .await?;
    Ok(())
}

/// Makes the match's night: one table, its four players seated in the order they joined (the
/// first is East at the first game). The league's row is locked.
async fn make_night(tx: &mut Transaction<'_, Postgres>, id: i64) -> sqlx::Result<i64> {
    let (league_id, date): (i64, NaiveDate) =
        sqlx::query_as("SELECT league_id, match_date FROM matches WHERE id = $1")
            .bind(id)
            .fetch_one(&mut **tx)
            .await?;
    let night = nights::create_in(tx, league_id, date).await?;
    let table_id: i64 = sqlx::query_scalar(
        "INSERT INTO night_tables (night_id, number) VALUES ($1, 1) RETURNING id",
    )
    .bind(night.id)
    .fetch_one(&mut **tx)
    .await?;
    sqlx::query(
        "INSERT INTO table_seats (table_id, seat, player_id) \
         SELECT $1, (row_number() OVER (ORDER BY joined_at, player_id) - 1)::INT, player_id FROM match_players WHERE match_id = $2",
    )
    .bind(table_id)
    .bind(id)
    .execute(&mut **tx)
    .await?;
    sqlx::query("UPDATE nights SET status = 'seated' WHERE id = $1")
        .bind(night.id)
        .execute(&mut **tx)
        .await?;
    sqlx::query(
        "UPDATE matches SET status = 'locked', locked_at = now(), night_id = $2 WHERE id = $1",
    )
    .bind(id)
    .bind(night.id)
    .execute(&mut **tx)
    .await?;
    Ok(night.id)
}

/// Writes the match's event (the league's row is locked).
async fn emit(
    tx: &mut Transaction<'_, Postgres>,
    league_id: i64,
    kind: &str,
    id: i64,
) -> sqlx::Result<()> {
    events::emit(tx, league_id, &[(kind, serde_json::json!({ "match": id }))]).await
}

/// What a change to a match's players did.
#[derive(Debug)]
pub enum Joined {
    /// In, and the match still forming.
    Joined(Match),
    /// In as the fourth: the match locked, with its night.
    Locked(Match),
    /// The player was in it already.
    Already(Match),
    /// The match has four, or is not forming.
    Closed(Match),
    Gone,
}

/// Creates a match with its first players, in `tx`; locks it at once when it has four. The
/// caller writes the mail in the same transaction.
pub async fn create(tx: &mut Transaction<'_, Postgres>, m: &NewMatch<'_>) -> sqlx::Result<Match> {
    sqlx::query("SELECT id FROM leagues WHERE id = $1 FOR NO KEY UPDATE")
        .bind(m.league_id)
        .execute(&mut **tx)
        .await?;
    let id: i64 = sqlx::query_scalar(
        "INSERT INTO matches (league_id, match_date, local_time, starts_at, place, note, open, created_by) \
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8) RETURNING id",
    )
    .bind(m.league_id)
    .bind(m.date)
    .bind(m.time)
    .bind(m.starts_at)
    .bind(m.place)
    .bind(m.note)
    .bind(m.open)
    .bind(m.created_by)
    .fetch_one(&mut **tx)
    .await?;
    for (i, p) in m.players.iter().enumerate() {
        sqlx::query(
            "INSERT INTO match_players (match_id, player_id, accepted_at) \
             VALUES ($1, $2, CASE WHEN $3 THEN clock_timestamp() END)",
        )
        .bind(id)
        .bind(p)
        .bind(m.agreed || i == 0)
        .execute(&mut **tx)
        .await?;
    }
    emit(tx, m.league_id, "match.opened", id).await?;
    if m.players.len() == 4 && m.agreed {
        make_night(tx, id).await?;
        emit(tx, m.league_id, "match.locked", id).await?;
    }
    get(&mut **tx, id).await?.ok_or(sqlx::Error::RowNotFound)
}

/// Those of `players` linked to an account that is a member of the club (who can answer a
/// proposal).
pub async fn answerable(pool: &PgPool, club_id: i64, players: &[i64]) -> sqlx::Result<Vec<i64>> {
    sqlx::query_scalar(
        "SELECT p.id FROM players p JOIN memberships m ON m.club_id = p.club_id AND m.user_id = p.user_id \
         WHERE p.club_id = $1 AND p.id = ANY($2)",
    )
    .bind(club_id)
    .bind(players)
    .fetch_all(pool)
    .await
}

/// Proposals naming others that a member made and that still wait for an answer.
pub async fn named_waiting_by(pool: &PgPool, user_id: i64) -> sqlx::Result<i64> {
    sqlx::query_scalar(
        "SELECT count(*) FROM matches m WHERE m.created_by = $1 AND m.status = 'forming' AND NOT m.open \
         AND m.starts_at > now() \
         AND EXISTS (SELECT 1 FROM match_players mp WHERE mp.match_id = m.id AND mp.accepted_at IS NULL)",
    )
    .bind(user_id)
    .fetch_one(pool)
    .await
}

/// What a named player's answer did.
#[derive(Debug)]
pub enum Accepted {
    Gone,
    /// The player is not named in it.
    NotIn,
    /// Accepted before, or the match is locked or called off: as it is.
    AsItWas(Box<Match>),
    /// Accepted; others still wait.
    Accepted(Box<Match>),
    /// The last to accept: the match locked (its night made).
    Locked(Box<Match>),
}

/// A named player accepts the match, in `tx`; the last to accept of four locks it.
pub async fn accept(
    tx: &mut Transaction<'_, Postgres>,
    league_id: i64,
    id: i64,
    player_id: i64,
) -> sqlx::Result<Accepted> {
    lock(tx, league_id, id).await?;
    let Some(m) = get(&mut **tx, id).await? else {
        return Ok(Accepted::Gone);
    };
    if !m.players.iter().any(|p| p.0 == player_id) {
        return Ok(Accepted::NotIn);
    }
    if m.status != "forming" || !m.waiting.contains(&player_id) {
        return Ok(Accepted::AsItWas(Box::new(m)));
    }
    sqlx::query(
        "UPDATE match_players SET accepted_at = clock_timestamp() WHERE match_id = $1 AND player_id = $2",
    )
    .bind(id)
    .bind(player_id)
    .execute(&mut **tx)
    .await?;
    let full = m.players.len() == 4 && m.waiting.len() == 1;
    if full {
        make_night(tx, id).await?;
        emit(tx, league_id, "match.locked", id).await?;
    } else {
        emit(tx, league_id, "match.changed", id).await?;
    }
    let m = Box::new(get(&mut **tx, id).await?.ok_or(sqlx::Error::RowNotFound)?);
    Ok(if full {
        Accepted::Locked(m)
    } else {
        Accepted::Accepted(m)
    })
}

/// Adds a player to a forming match, in `tx`; the fourth locks it (its night made).
pub async fn join(
    tx: &mut Transaction<'_, Postgres>,
    league_id: i64,
    id: i64,
    player_id: i64,
) -> sqlx::Result<Joined> {
    lock(tx, league_id, id).await?;
    let Some(m) = get(&mut **tx, id).await? else {
        return Ok(Joined::Gone);
    };
    if m.players.iter().any(|p| p.0 == player_id) {
        return Ok(Joined::Already(m));
    }
    if m.status != "forming" || m.players.len() >= 4 {
        return Ok(Joined::Closed(m));
    }
    sqlx::query("INSERT INTO match_players (match_id, player_id) VALUES ($1, $2)")
        .bind(id)
        .bind(player_id)
        .execute(&mut **tx)
        .await?;
    // Joining is agreeing; a match still waiting for a named player's answer locks with it.
    let full = m.players.len() + 1 == 4 && m.waiting.is_empty();
    if full {
        make_night(tx, id).await?;
        emit(tx, league_id, "match.locked", id).await?;
    } else {
        emit(tx, league_id, "match.changed", id).await?;
    }
    let m = get(&mut **tx, id).await?.ok_or(sqlx::Error::RowNotFound)?;
    Ok(if full {
        Joined::Locked(m)
    } else {
        Joined::Joined(m)
    })
}

/// What leaving did.
#[derive(Debug)]
pub enum Left {
    /// Out; the match forms again (or was cancelled, its last player gone).
    Left(Box<Match>),
    /// The player was not in it.
    NotIn,
    /// Games are recorded at the match's table: an organizer must sort it out.
    Played,
    Gone,
}

/// Takes a player out of a match, in `tx`. A locked match with no game yet loses its night and
/// forms again; a match left empty is cancelled.
pub async fn leave(
    tx: &mut Transaction<'_, Postgres>,
    league_id: i64,
    id: i64,
    player_id: i64,
) -> sqlx::Result<Left> {
    lock(tx, league_id, id).await?;
    let Some(m) = get(&mut **tx, id).await? else {
        return Ok(Left::Gone);
    };
    if m.status == "cancelled" {
        return Ok(Left::Gone);
    }
    if !m.players.iter().any(|p| p.0 == player_id) {
        return Ok(Left::NotIn);
    }
    if m.night_id.is_some() {
        if !drop_night(tx, &m).await? {
            return Ok(Left::Played);
        }
        sqlx::query("UPDATE matches SET status = 'forming', locked_at = NULL WHERE id = $1")
            .bind(id)
            .execute(&mut **tx)
            .await?;
    }
    sqlx::query("DELETE FROM match_players WHERE match_id = $1 AND player_id = $2")
        .bind(id)
        .bind(player_id)
        .execute(&mut **tx)
        .await?;
    // The seat a player leaves (or declines) is open to anyone in the league.
    sqlx::query("UPDATE matches SET open = true WHERE id = $1")
        .bind(id)
        .execute(&mut **tx)
        .await?;
    if m.players.len() == 1 {
        sqlx::query("UPDATE matches SET status = 'cancelled' WHERE id = $1")
            .bind(id)
            .execute(&mut **tx)
            .await?;
    }
    emit(tx, league_id, "match.changed", id).await?;
    let m = get(&mut **tx, id).await?.ok_or(sqlx::Error::RowNotFound)?;
    Ok(Left::Left(Box::new(m)))
}

/// What calling a match off did.
#[derive(Debug)]
pub enum Cancelled {
    /// Called off: its night (if it had one) is gone; its players stay listed.
    Cancelled(Box<Match>),
    /// Games are recorded at its table (voided ones too): it stands as played.
    Played,
    /// Called off already.
    Already,
    Gone,
}

/// Calls a match off in `tx` (an organizer's doing, with `reason`), unless games are recorded.
pub async fn cancel(
    tx: &mut Transaction<'_, Postgres>,
    league_id: i64,
    id: i64,
    reason: &str,
) -> sqlx::Result<Cancelled> {
    lock(tx, league_id, id).await?;
    let Some(m) = get(&mut **tx, id).await? else {
        return Ok(Cancelled::Gone);
    };
    if m.status == "cancelled" {
        return Ok(Cancelled::Already);
    }
    if !drop_night(tx, &m).await? {
        return Ok(Cancelled::Played);
    }
    sqlx::query("UPDATE matches SET status = 'cancelled', cancel_reason = $2 WHERE id = $1")
        .bind(id)
        .bind(reason)
        .execute(&mut **tx)
        .await?;
    emit(tx, league_id, "match.changed", id).await?;
    let m = get(&mut **tx, id).await?.ok_or(sqlx::Error::RowNotFound)?;
    Ok(Cancelled::Cancelled(Box::new(m)))
}

/// Takes away the night of a match (locked in `tx`) unless a game (a voided one too) is
/// recorded there; false when one is. A match with no night has nothing to take away.
async fn drop_night(tx: &mut Transaction<'_, Postgres>, m: &Match) -> sqlx::Result<bool> {
    let Some(night) = m.night_id else {
        return Ok(true);
    };
    let played: bool = sqlx::query_scalar(
        "SELECT EXISTS (SELECT 1 FROM games g JOIN night_tables t ON t.id = g.table_id WHERE t.night_id = $1)",
    )
    .bind(night)
    .fetch_one(&mut **tx)
    .await?;
    if played {
        return Ok(false);
    }
    sqlx::query("UPDATE matches SET night_id = NULL WHERE id = $1")
        .bind(m.id)
        .execute(&mut **tx)
        .await?;
    sqlx::query("DELETE FROM nights WHERE id = $1")
        .bind(night)
        .execute(&mut **tx)
        .await?;
    Ok(true)
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
async fn count_in(
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
async fn waiting_game(
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

/// A player at the game's table disputes it, in `tx` (the caller writes the organizers' mail in
/// it and commits): it waits for an organizer (with `event` for `game.disputed`).
pub async fn dispute(
    tx: &mut Transaction<'_, Postgres>,
    at: GameAt,
    player_id: i64,
    user_id: Option<i64>,
    reason: &str,
    event: serde_json::Value,
) -> sqlx::Result<Word> {
    let GameAt {
        league_id, game_id, ..
    } = at;
    // The standings count the games waiting for an organizer: their revision moves.
    totals::lock_league(tx, league_id).await?;
    let (waiting, disputed, _) = match waiting_game(tx, at).await? {
        Ok(row) => row,
        Err(word) => return Ok(word),
    };
    if !waiting {
        return Ok(Word::NotWaiting);
    }
    sqlx::query(
        "INSERT INTO game_checks (game_id, player_id, answer, reason, by_user) VALUES ($1, $2, 'disputed', $3, $4) \
         ON CONFLICT (game_id, player_id) DO UPDATE SET answer = 'disputed', reason = excluded.reason, by_user = excluded.by_user, at = now()",
    )
    .bind(game_id)
    .bind(player_id)
    .bind(reason)
    .bind(user_id)
    .execute(&mut **tx)
    .await?;
    if !disputed {
        sqlx::query("UPDATE games SET disputed_at = now() WHERE id = $1")
            .bind(game_id)
            .execute(&mut **tx)
            .await?;
    }
    events::emit(
        tx,
        league_id,
        &[
            ("game.disputed", event),
            ("standings.changed", serde_json::Value::Null),
        ],
    )
    .await?;
    Ok(Word::Kept)
}

/// The club's owners and organizers who take the league's mail: (user id, email, name).
pub async fn organizers_of(
    conn: &mut PgConnection,
    league_id: i64,
) -> sqlx::Result<Vec<(i64, String, String)>> {
    sqlx::query_as(
        "SELECT u.id, u.email, u.display_name FROM leagues l \
         JOIN memberships m ON m.club_id = l.club_id AND m.role IN ('owner', 'organizer') JOIN users u ON u.id = m.user_id \
         WHERE l.id = $1 \
           AND NOT EXISTS (SELECT 1 FROM mail_unsubscribes x WHERE x.user_id = u.id AND x.league_id = l.id) \
         ORDER BY u.id",
    )
    .bind(league_id)
    .fetch_all(conn)
    .await
}

/// An organizer counts a waiting or disputed game as it stands (with `event`).
pub async fn settle_count(
    pool: &PgPool,
    at: GameAt,
    event: serde_json::Value,
) -> sqlx::Result<Word> {
    let GameAt {
        league_id, game_id, ..
    } = at;
    let mut tx = pool.begin().await?;
    lock_league_row(&mut tx, league_id).await?;
    let (waiting, _, _) = match waiting_game(&mut tx, at).await? {
        Ok(row) => row,
        Err(word) => return Ok(word),
    };
    if !waiting {
        return Ok(Word::NotWaiting);
    }
    count_in(&mut tx, league_id, game_id, &[("game.confirmed", event)]).await?;
    tx.commit().await?;
    Ok(Word::Counted)
}

/// A game `g` of league `l` whose wait ran out with nobody disputing it.
const OVERDUE: &str = "g.awaiting AND g.status = 'recorded' AND g.disputed_at IS NULL \
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
const WAITS_FOR_PLAYERS: &str = "g.awaiting AND g.status = 'recorded' AND g.disputed_at IS NULL";

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
