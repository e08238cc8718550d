//! Disputed open-play games as stored: the dispute, who organizes the club, and an
//! organizer's count.

use super::*;

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
