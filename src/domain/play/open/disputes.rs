//! Open play's disputed games: a player disputes with a reason (the organizers are mailed), and
//! an organizer settles it: counts it, corrects it first, or voids it; the players are told
//! what changed.

use super::*;

/// The caller disputes a game at their table, as they saw it, with a reason: it waits for an
/// organizer.
pub async fn dispute(
    state: &AppState,
    caller: &Caller,
    id: i64,
    seen: Option<i32>,
    reason: &str,
) -> Result<Checks> {
    let (game, league, club) = game_for(state, caller, id).await?;
    let me = player_at(state, caller, &game, &league, &club).await?;
    let user = caller.user().ok().map(|u| u.id);
    dispute_as(state, &league, &club, &game, seen, (me, user), reason).await?;
    checks(state, caller, id).await
}

/// Player `me` (through account `user`) disputes `game` as seen; the organizers are mailed.
pub(super) async fn dispute_as(
    state: &AppState,
    league: &League,
    club: &Club,
    game: &crate::domain::play::game_view::Game,
    seen: Option<i32>,
    (me, user): (i64, Option<i64>),
    reason: &str,
) -> Result<()> {
    let reason = &reason_given("reason", reason, "what is wrong with the game")?;
    let mut event = serde_json::to_value(game).map_err(Error::internal)?;
    event["awaiting"] = "organizer".into();
    let mut tx = state.db.begin().await?;
    let word = stored::dispute(&mut tx, at(league, game, seen), me, user, reason, event).await?;
    word_refused(word, game)?;
    let who = game.name_of(me).unwrap_or("A player").to_string();
    mail_dispute(state, &mut tx, league, club, game, (&who, user), reason).await?;
    tx.commit().await?;
    mail::wake(state);
    after_word(state, league.id);
    Ok(())
}

/// The mail to the club's organizers about a disputed game, in `tx`.
pub(super) async fn mail_dispute(
    state: &AppState,
    tx: &mut sqlx::PgConnection,
    league: &League,
    club: &Club,
    game: &crate::domain::play::game_view::Game,
    (who, by): (&str, Option<i64>),
    reason: &str,
) -> Result<()> {
    let page = match stored::of_night(&state.db, game.night.id).await? {
        Some(m) => format!("{}/matches/{}#game-{}", state.public_url, m.id, game.id),
        None => format!("{}/nights/{}", state.public_url, game.night.id),
    };
    let players: Vec<&str> = game
        .players
        .iter()
        .map(|p| p.player.name.as_str())
        .collect();
    let subject = format!(
        "{}: {who} disputes game {} of a match",
        league.name, game.number
    );
    let paragraphs = [
        format!(
            "{who} disputes game {} of the match of {} on {}: \"{reason}\"",
            game.number,
            names_in_words(players),
            game.night.date.format("%A, %B %-d")
        ),
        format!(
            "As entered: {}. It does not count until you settle it: count it as it stands, correct it, or void it.",
            crate::domain::play::games::in_words(game)
        ),
    ];
    let why = format!("as an organizer of {}", club.name);
    let letter = MatchLetter {
        kind: "match_dispute",
        subject: &subject,
        paragraphs: &paragraphs,
        actions: &[("Settle the game", page.as_str())],
        why: &why,
        caused_by: by,
    };
    let readers = stored::organizers_of(tx, league.id).await?;
    // The dispute stands either way; past the member's day it waits on the pages, unmailed.
    if let Some(user) = by
        && !budgets::member_may_mail(state, tx, (club.id, &club.name), user, readers.len() as i64)
            .await?
    {
        return Ok(());
    }
    for reader in readers {
        send(state, tx, league, club, reader, &letter).await?;
    }
    Ok(())
}

/// How an organizer settles a waiting game.
#[derive(Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct Settle {
    /// `count` (as it stands; correct it first with `PUT /api/v1/games/{id}` if need be) or
    /// `void`.
    #[schema(example = "count", pattern = "^(count|void)$")]
    pub decision: String,
}

/// An organizer counts or voids a waiting (or disputed) game.
pub async fn settle(
    state: &AppState,
    caller: &Caller,
    id: i64,
    seen: Option<i32>,
    s: Settle,
) -> Result<Checks> {
    let game = crate::domain::play::games::show(state, caller, id).await?;
    let ctx = stored_games::table_context(&state.db, game.table.id)
        .await?
        .ok_or_else(|| Error::NotFound(format!("no game {id}")))?;
    let (league, _) = caller
        .league(state, ctx.league_id, Need::Admin)
        .await
        .map_err(|e| e.or_not_found(|| format!("no game {id}")))?;
    match s.decision.as_str() {
        "count" => {
            let mut event = serde_json::to_value(&game).map_err(Error::internal)?;
            event["awaiting"] = serde_json::Value::Null;
            let word = stored::settle_count(&state.db, at(&league, &game, seen), event).await?;
            word_refused(word, &game)?;
            after_word(state, league.id);
        }
        "void" => {
            let seen = seen.map(|v| v.to_string());
            crate::domain::play::games::void(state, caller, id, seen.as_deref()).await?;
        }
        _ => return Err(Error::invalid("decision", "use count or void")),
    }
    checks(state, caller, id).await
}

/// What correcting a game of an open-play match did: the match, and in words whose word the
/// game waits for now.
pub struct Corrected {
    pub match_id: i64,
    pub message: String,
}

/// What a correction changed, in words: for each player it charges (named the discarder now,
/// or paying more than before) what it means for her, and for every player the game as it was
/// and as it is.
pub(super) fn what_changed(
    before: &crate::domain::play::game_view::Game,
    now: &crate::domain::play::game_view::Game,
) -> (Vec<(i64, String)>, String) {
    // Whom the correction charges: named the discarder now, or paying more than before.
    let charged: Vec<(i64, String)> = now
        .players
        .iter()
        .filter_map(|p| {
            let was = before.players.iter().find(|b| b.player.id == p.player.id)?;
            let named = now.discarder == Some(p.player.id) && before.discarder != now.discarder;
            let what = if named {
                format!("it now names you the discarder and gives you {:+}", p.score)
            } else if p.score < was.score {
                format!("it now gives you {:+}", p.score)
            } else {
                return None;
            };
            Some((
                p.player.id,
                format!(
                    "For you, {what} (it gave you {:+}). If that is wrong, say so with the link below.",
                    was.score
                ),
            ))
        })
        .collect();
    // What changed, told to every player asked: the game as it was and as it is.
    let scores = |g: &crate::domain::play::game_view::Game| {
        g.players
            .iter()
            .map(|p| format!("{} {:+}", p.player.name, p.score))
            .collect::<Vec<_>>()
            .join(", ")
    };
    let changed = format!(
        "Game {} of your match was corrected by an organizer. It was: {}; {}. It is now: {}; {}.",
        now.number,
        crate::domain::play::games::in_words(before),
        scores(before),
        crate::domain::play::games::in_words(now),
        scores(now)
    );
    (charged, changed)
}

/// After a game of a night was corrected (`before`: the game as it was): for an open-play
/// match whose disputed game an organizer corrected, the players whose word it now waits for
/// are asked by mail at once (not after the quiet wait: settling is done on purpose), the
/// players the correction charges told so first; and the answer says whose word it waits for.
/// `None` for a night that is no match.
pub async fn corrected(
    state: &AppState,
    caller: &Caller,
    night_id: i64,
    before: &crate::domain::play::game_view::Game,
) -> Result<Option<Corrected>> {
    let Some(m) = stored::of_night(&state.db, night_id).await? else {
        return Ok(None);
    };
    let Some((league, club)) =
        crate::storage::seasons::leagues::with_club(&state.db, m.league_id).await?
    else {
        return Ok(None);
    };
    let now = crate::domain::play::games::show(state, caller, before.id).await?;
    let said = stored::checks(&state.db, before.id).await?;
    // The players whose word it waits for, by name.
    let names: Vec<String> = now
        .players
        .iter()
        .filter(|p| !said.iter().any(|c| c.player_id == p.player.id))
        .map(|p| p.player.name.clone())
        .collect();
    let (charged, changed) = what_changed(before, &now);
    let mut asked = Vec::new();
    let mut tx = state.db.begin().await?;
    // A disputed game corrected (an organizer settling it) is asked about at once; any other
    // correction waits for the table to be quiet, as entering does, so a row of corrections
    // makes one mail.
    let settling = before.awaiting.as_deref() == Some("organizer");
    if settling
        && now.awaiting.as_deref() == Some("players")
        && let Some(asks) = stored::claim_ask(&mut tx, m.id, 0).await?
    {
        let players: Vec<i64> = asks.iter().map(|a| a.0).collect();
        for (player, user, email, name) in stored::readers_of(&mut tx, league.id, &players).await? {
            let games = asks.iter().find(|a| a.0 == player).map(|a| a.1.clone());
            let lead = Some(match charged.iter().find(|c| c.0 == player) {
                Some((_, yours)) => format!("{changed} {yours}"),
                None => changed.clone(),
            });
            if let Some(p) = now.players.iter().find(|p| p.player.id == player) {
                asked.push(p.player.name.clone());
            }
            ask(
                state,
                &mut tx,
                (&league, &club, &m),
                (user, email, name),
                &games.unwrap_or_default(),
                lead,
            )
            .await?;
        }
    }
    tx.commit().await?;
    if !asked.is_empty() {
        mail::wake(state);
    }
    let message = match now.awaiting.as_deref() {
        Some("players") if !names.is_empty() => format!(
            "Game {} corrected. It counts once {} {} it as corrected{}; an organizer may count it as corrected now.",
            now.number,
            crate::rules::words::listed(&names),
            if names.len() == 1 {
                "confirms"
            } else {
                "confirm"
            },
            if asked.is_empty() {
                String::new()
            } else if asked.len() == names.len() {
                " (each asked by mail now)".to_string()
            } else {
                format!(
                    " ({} asked by mail now)",
                    crate::rules::words::listed(&asked)
                )
            }
        ),
        Some("organizer") => format!("Game {} corrected; it waits for an organizer.", now.number),
        _ => format!("Game {} corrected: it counts as corrected.", now.number),
    };
    Ok(Some(Corrected {
        match_id: m.id,
        message,
    }))
}

/// After a word on a game: the standings and the streams hear of it.
pub(super) fn after_word(state: &AppState, league_id: i64) {
    state.freshness.changed();
    crate::domain::seasons::standings::replay_ratings(state, league_id);
    state.events.poke();
}
