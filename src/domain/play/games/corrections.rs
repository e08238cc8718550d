//! A game after it is stored: the organizers' correction (against the version they saw), the
//! void, and the game's audit log as people read it.

use super::*;

/// A game as its correction page shows it (scorers and up).
pub struct Editing {
    pub game: Game,
    /// The result as it was entered (what the correction form is filled from).
    pub entered: serde_json::Value,
    pub league: League,
    pub table_number: i32,
    pub night_id: i64,
    pub closed: bool,
    /// (player id, name, wind in this game), in seat order.
    pub players: Vec<(i64, String, &'static str)>,
    pub audit: Vec<AuditEntry>,
    /// The caller may void it (organizers and up).
    pub may_void: bool,
    /// The club's time zone, for the audit's times.
    pub time_zone: String,
}

/// The correction page of a game: the game, its table's players, its audit log.
pub async fn editing(state: &AppState, caller: &Caller, id: i64) -> Result<Editing> {
    let (g, ctx, league) = game_access(state, caller, id, Need::Score).await?;
    let may_void = caller
        .league(state, ctx.league_id, Need::Admin)
        .await
        .is_ok();
    let players = games::table_players(&state.db, g.table_id).await?;
    let n = players.len().max(1);
    let east = (g.number.max(1) as usize - 1) % n;
    let game = view(&mut *state.db.acquire().await?, g.id).await?;
    let entered = g.submitted.clone();
    let audit = audit_as_seen(state, caller, league.club_id, g.id).await?;
    let time_zone = clubs::by_id(&state.db, league.club_id)
        .await?
        .map(|c| c.time_zone)
        .unwrap_or_else(|| "UTC".into());
    Ok(Editing {
        time_zone,
        game,
        entered,
        table_number: ctx.table_number,
        night_id: ctx.night_id,
        closed: ctx.night_status == "closed",
        players: players
            .into_iter()
            .enumerate()
            .map(|(i, (pid, name))| (pid, name, games::SEAT_WINDS[(i + n - east) % n]))
            .collect(),
        audit,
        may_void,
        league,
    })
}

/// Reads a game version as sent back by a client (`"3"`, `3` or `W/"3"`).
pub(super) fn version(text: &str) -> Result<i32> {
    let text = text.trim().trim_start_matches("W/").trim_matches('"');
    text.parse().map_err(|_| {
        Error::invalid(
            "If-Match",
            format!(
                "`{text}` is not a game version; send the version you saw, e.g. If-Match: \"3\""
            ),
        )
    })
}

pub(super) fn stale(current: i32) -> Error {
    Error::Stale(format!(
        "the game has changed since you saw it: its version is now {current}; reload it and try again"
    ))
}

/// Amends a game with the whole corrected result; `seen` is the version the corrector saw
/// (required). The result is validated and scored again; the change goes in the audit log.
pub async fn amend(
    state: &AppState,
    caller: &Caller,
    id: i64,
    seen: Option<&str>,
    mut input: GameInput,
) -> Result<Game> {
    let (g, ctx, league) = game_access(state, caller, id, Need::Score).await?;
    let version = seen.map(version).transpose()?.ok_or_else(|| {
        Error::VersionRequired(
            "send If-Match with the version of the game you are correcting".into(),
        )
    })?;
    if ctx.night_status == "closed" {
        return Err(closed(&ctx, &league));
    }
    input.number = Some(input.number.unwrap_or(g.number));
    let players = games::table_players(&state.db, g.table_id).await?;
    let mut game = prepare(state, &league, g.table_id, &players, g.number, &input).await?;
    // A game that counts stays counted; one still waiting waits again, from now, with the
    // corrector (at the table, in open play) having confirmed it.
    game.awaiting = g.awaiting && game.outcome != "redeal";
    if g.awaiting {
        let (league_row, club) = caller.league(state, ctx.league_id, Need::Read).await?;
        game.entered_by = seat_of(state, caller, &league_row, &club, g.table_id).await?;
    }
    let amended = Game::entered(g.id, &ctx, &game, &players, version + 1, g.created_at);
    let event = serde_json::to_value(&amended).map_err(Error::internal)?;
    let _unheard = state.freshness.unheard();
    match games::amend(
        &state.db,
        ctx.league_id,
        g.id,
        version,
        &game,
        &caller.actor_at(ctx.table_id, ctx.table_number),
        event,
    )
    .await?
    {
        games::Change::Done => {
            state.events.poke();
            crate::domain::seasons::standings::replay_ratings(state, ctx.league_id)
        }
        games::Change::Stale(current) => return Err(stale(current)),
        games::Change::Gone => {
            return Err(Error::Conflict(format!(
                "game {} is voided; record a new game instead",
                g.id
            )));
        }
        games::Change::Taken => {
            return Err(Error::Conflict(format!(
                "game {} at this table is already recorded",
                game.number
            )));
        }
    }
    view(&mut *state.db.acquire().await?, g.id).await
}

/// Voids a game (organizers): it stops counting. `seen`, when sent, must be its version.
pub async fn void(state: &AppState, caller: &Caller, id: i64, seen: Option<&str>) -> Result<Game> {
    let (g, ctx, _) = game_access(state, caller, id, Need::Admin).await?;
    let seen = seen.map(version).transpose()?;
    // The event is the game as it becomes, made from the version read here; the void is made
    // at that version only, and read again when an amendment came in between (unless the
    // caller named the version they saw).
    for _ in 0..3 {
        let mut now = view(&mut *state.db.acquire().await?, g.id).await?;
        if now.status != "recorded" {
            break;
        }
        let at = seen.unwrap_or(now.version);
        now.status = "voided".into();
        now.version += 1;
        now.updated_at = stored_now();
        let event = serde_json::to_value(&now).map_err(Error::internal)?;
        let _unheard = state.freshness.unheard();
        match games::void(
            &state.db,
            ctx.league_id,
            g.id,
            at,
            now.updated_at,
            &caller.actor_at(ctx.table_id, ctx.table_number),
            event,
        )
        .await?
        {
            games::Change::Done => {
                state.events.poke();
                crate::domain::seasons::standings::replay_ratings(state, ctx.league_id);
                return view(&mut *state.db.acquire().await?, g.id).await;
            }
            games::Change::Stale(current) if seen.is_some() => return Err(stale(current)),
            games::Change::Stale(_) => continue,
            games::Change::Gone | games::Change::Taken => break,
        }
    }
    Err(Error::Conflict(format!("game {} is already voided", g.id)))
}

/// Every change to a game: who, when, before and after. The club's members see who by account
/// (`user 12 (rose@example.org)`); anyone else reading a public league sees display names only.
pub async fn audit(state: &AppState, caller: &Caller, id: i64) -> Result<Vec<AuditEntry>> {
    let (g, _, league) = game_access(state, caller, id, Need::Read).await?;
    audit_as_seen(state, caller, league.club_id, g.id).await
}

/// A game's audit log as `caller` may read it: a signed-in member of the club sees each account
/// by name and email ("Rose Adler (rose@example.org)"); anyone else — a table code's holder, an
/// app's token, a stranger reading a public league — sees display names only, never an email.
pub(super) async fn audit_as_seen(
    state: &AppState,
    caller: &Caller,
    club_id: i64,
    game_id: i64,
) -> Result<Vec<AuditEntry>> {
    let mut entries = games::audit(&state.db, game_id).await?;
    let member = matches!(caller.0, Some(crate::domain::Principal::User(_)))
        && match clubs::by_id(&state.db, club_id).await? {
            Some(club) => caller.club_access(state, club, Need::Read).await.is_ok(),
            None => false,
        };
    let ids: Vec<i64> = entries
        .iter()
        .filter_map(|e| audit_user(&e.actor))
        .collect();
    let names = users::display_names(&state.db, &ids).await?;
    for e in &mut entries {
        let Some(user) = audit_user(&e.actor) else {
            continue;
        };
        let name = names
            .iter()
            .find(|(id, _)| *id == user)
            .map(|(_, name)| name.clone());
        // "table 1 code, used by user 4 (…)": the code, then whose hands it was in.
        let (code, named) = match e.actor.split_once(", used by ") {
            Some((code, named)) => (Some(code.replacen(" code", "'s code", 1)), named),
            None => (None, e.actor.as_str()),
        };
        let account = named
            .split_once(" (")
            .map(|(_, rest)| rest.trim_end_matches(')').to_string());
        let who = match (name, member, account) {
            (Some(name), true, Some(account)) => format!("{name} ({account})"),
            (Some(name), _, _) => name,
            (None, _, _) => "a former account".into(),
        };
        e.actor = match code {
            Some(code) => format!("{code}, used by {who}"),
            None => who,
        };
    }
    Ok(entries)
}

/// The account an audit entry's actor names (`user 12 (…)`, or a table's code `used by user
/// 12 (…)`), if it names one.
pub(super) fn audit_user(actor: &str) -> Option<i64> {
    let named = actor.split_once(", used by ").map_or(actor, |(_, n)| n);
    named.strip_prefix("user ")?.split(' ').next()?.parse().ok()
}
