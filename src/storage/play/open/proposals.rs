//! Open play's matches as stored from their proposal to their lock (which makes a night of one
//! table) or their end: made, accepted, joined, left, called off.

use super::*;

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
pub(super) async fn lock_league_row(
    tx: &mut Transaction<'_, Postgres>,
    league_id: i64,
) -> sqlx::Result<()> {
    sqlx::query("SELECT id FROM leagues WHERE id = $1 FOR NO KEY UPDATE")
        .bind(league_id)
        .execute(&mut **tx)
        .await?;
    Ok(())
}

/// Locks the league's row (so matches lock and nights take numbers one at a time) and the match.
pub(super) async fn lock(
    tx: &mut Transaction<'_, Postgres>,
    league_id: i64,
    id: i64,
) -> sqlx::Result<()> {
    lock_league_row(tx, league_id).await?;
    sqlx::query("SELECT id FROM matches WHERE id = $1 FOR NO KEY UPDATE")
        .bind(id)
        .execute(&mut **tx)
        .await?;
    Ok(())
}

/// Makes the match's night: one table, its four players seated in the order they joined (the
/// first is East at the first game). The league's row is locked.
pub(super) async fn make_night(tx: &mut Transaction<'_, Postgres>, id: i64) -> sqlx::Result<i64> {
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
pub(super) async fn emit(
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
pub(super) async fn drop_night(
    tx: &mut Transaction<'_, Postgres>,
    m: &Match,
) -> sqlx::Result<bool> {
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
