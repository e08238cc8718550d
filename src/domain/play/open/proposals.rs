//! Open play's matches before their games: a member proposes one (open to the league, or to
//! three named players, who accept by tap or from the mail), others join or leave, it locks
//! with four and makes a night of one table; organizers take a player out or call one off.

use super::*;

/// The mail to all four when a match locks.
pub(super) async fn mail_locked(
    state: &AppState,
    tx: &mut sqlx::PgConnection,
    league: &League,
    club: &Club,
    m: &Match,
) -> Result<()> {
    let view = MatchView::of(m, None);
    let subject = format!("{}: your match is on, {}", league.name, view.when);
    let text = format!(
        "Your table is full: {} play {} at {}. Any of you enters the games on the scoring screen ({}/tables/{}/score); the others confirm them.",
        view.names(),
        view.when,
        m.place,
        state.public_url,
        m.table_id.unwrap_or_default()
    );
    let all: Vec<i64> = m.players.iter().map(|p| p.0).collect();
    write_mail(state, tx, league, club, m, &all, (&subject, &text), None).await
}

/// The named players a proposal by `proposer` mails: those it did not mail a proposal in the
/// last 24 hours (a proposal naming the same people again mails nobody; they see it on the
/// league's matches page).
pub(super) async fn to_propose(
    tx: &mut sqlx::PgConnection,
    league: &League,
    m: &Match,
    proposer: i64,
) -> Result<Vec<(i64, i64, String, String)>> {
    let mut to = Vec::new();
    for reader in stored::readers_of(tx, league.id, &m.waiting).await? {
        if !budgets::mailed_lately(tx, proposer, "match_proposed", &reader.2).await? {
            to.push(reader);
        }
    }
    Ok(to)
}

/// The mail to each named player when a match is proposed to them: who, when, where, and a
/// one-tap link that accepts (no login). Counted against the proposer's day and the members'
/// half of the club's (refused, with nothing written, past either).
pub(super) async fn mail_proposed(
    state: &AppState,
    tx: &mut sqlx::PgConnection,
    league: &League,
    club: &Club,
    m: &Match,
    proposer_id: i64,
) -> Result<()> {
    let to = to_propose(tx, league, m, proposer_id).await?;
    budgets::spend_member_mail(
        state,
        tx,
        (club.id, &club.name),
        proposer_id,
        to.len() as i64,
    )
    .await?;
    let view = MatchView::of(m, None);
    let proposer = view
        .players
        .first()
        .map(|p| p.name.clone())
        .unwrap_or_default();
    let subject = format!("{}: {proposer} asks you to play {}", league.name, view.when);
    let why = format!("as a member of {} playing in {}", club.name, league.name);
    for (_, user, email, name) in to {
        let paragraphs = [
            format!(
                "{proposer} proposes a match of {} on {} at {}.",
                view.names(),
                view.when,
                m.place
            ),
            "The match is on once all four have accepted; until then nothing is entered or counted. If you cannot play, open the match and leave it: your seat is then open to anyone in the league.".to_string(),
        ];
        let accept = accept_link(state, m.id, user);
        let page = format!("{}/matches/{}", state.public_url, m.id);
        let letter = MatchLetter {
            kind: "match_proposed",
            subject: &subject,
            paragraphs: &paragraphs,
            actions: &[
                ("Accept", accept.as_str()),
                ("See the match", page.as_str()),
            ],
            why: &why,
            caused_by: Some(proposer_id),
        };
        send(state, tx, league, club, (user, email, name), &letter).await?;
    }
    Ok(())
}

pub(super) fn accept_what(match_id: i64, user: i64) -> String {
    format!("match accept {match_id} {user}")
}

/// The link a named player follows from the mail to accept a proposed match, no login.
pub fn accept_link(state: &AppState, match_id: i64, user: i64) -> String {
    format!(
        "{}/matches/{match_id}/accept/{user}-{}",
        state.public_url,
        state.keys.sign(&accept_what(match_id, user))
    )
}

/// The caller accepts a match proposed to them; the last of the four to accept locks it and
/// all four are mailed.
pub async fn accept(state: &AppState, caller: &Caller, id: i64) -> Result<MatchView> {
    let (_, league, club) = match_for(state, caller, id).await?;
    let user = caller.user()?;
    let Some((me, _)) = stored::player_of_user(&state.db, club.id, user.id).await? else {
        return Err(Error::Conflict("you are not named in this match".into()));
    };
    accept_as(state, &league, &club, id, me).await
}

pub(super) async fn accept_as(
    state: &AppState,
    league: &League,
    club: &Club,
    id: i64,
    player: i64,
) -> Result<MatchView> {
    let mut tx = state.db.begin().await?;
    let m = match stored::accept(&mut tx, league.id, id, player).await? {
        stored::Accepted::Gone => return Err(Error::NotFound(format!("no match {id}"))),
        stored::Accepted::NotIn => {
            return Err(Error::Conflict("you are not named in this match".into()));
        }
        stored::Accepted::AsItWas(m) if m.status == "cancelled" => {
            return Err(Error::Conflict("this match was called off".into()));
        }
        stored::Accepted::AsItWas(m) | stored::Accepted::Accepted(m) => *m,
        stored::Accepted::Locked(m) => {
            mail_locked(state, &mut tx, league, club, &m).await?;
            *m
        }
    };
    tx.commit().await?;
    mail::wake(state);
    state.events.poke();
    Ok(MatchView::of(&m, Some(player)))
}

/// A league and its club by the league's id (a signed link's page, no caller).
pub async fn league_of(state: &AppState, league_id: i64) -> Result<(League, Club)> {
    crate::storage::seasons::leagues::with_club(&state.db, league_id)
        .await?
        .ok_or_else(|| Error::NotFound(format!("no league {league_id}")))
}

/// The match a signed accept link is for, and the player it names, while it holds.
pub async fn accept_page(state: &AppState, id: i64, token: &str) -> Result<(MatchView, String)> {
    let (m, _, _, player) = signed_accept(state, id, token).await?;
    let name = m
        .players
        .iter()
        .find(|p| p.0 == player)
        .map(|p| p.1.clone())
        .unwrap_or_default();
    Ok((MatchView::of(&m, Some(player)), name))
}

/// Accepts a proposed match through the signed link of its mail (no login).
pub async fn accept_signed(state: &AppState, id: i64, token: &str) -> Result<MatchView> {
    let (_, league, club, player) = signed_accept(state, id, token).await?;
    accept_as(state, &league, &club, id, player).await
}

pub(super) async fn signed_accept(
    state: &AppState,
    id: i64,
    token: &str,
) -> Result<(Match, League, Club, i64)> {
    let s = signed_player(state, id, token, accept_what).await?;
    Ok((s.m, s.league, s.club, s.player))
}

/// Open matches one member may have waiting for players at a time.
pub const MAX_FORMING: i64 = 20;

/// Proposals naming others that one member may have waiting for answers at a time.
pub const MAX_NAMED_WAITING: i64 = 5;

/// Proposes a match: open, or with three named players (then it is locked at once).
pub async fn create(
    state: &AppState,
    caller: &Caller,
    league_id: i64,
    n: NewMatch,
) -> Result<MatchView> {
    let (league, club) = open_league(state, caller, league_id).await?;
    caller.user()?;
    let date = crate::domain::sensible_date("date", n.date)?;
    let time = parse_time(&n.time)?;
    let place = one_line("place", &n.place, 200)?;
    let note = crate::domain::text::optional_line("note", n.note.as_deref(), 500)?;
    let starts_at = moment(&club, date, time)?;
    let now = Utc::now();
    if starts_at < now - Duration::days(14) || starts_at > now + Duration::days(366) {
        return Err(Error::invalid(
            "date",
            "give a day from two weeks ago (a match already played) to a year ahead",
        ));
    }
    if n.players.is_empty()
        && let Ok(user) = caller.user()
        && stored::forming_by(&state.db, user.id).await? >= MAX_FORMING
    {
        return Err(Error::Conflict(format!(
            "you have {MAX_FORMING} open matches waiting for players: leave one, or wait until they fill, before proposing another"
        )));
    }
    // Named players agree first, unless an organizer makes the match.
    let organizer = caller.league(state, league.id, Need::Admin).await.is_ok();
    if !n.players.is_empty()
        && !organizer
        && let Ok(user) = caller.user()
        && stored::named_waiting_by(&state.db, user.id).await? >= MAX_NAMED_WAITING
    {
        return Err(Error::Conflict(format!(
            "you have {MAX_NAMED_WAITING} proposed matches waiting for the players you named to accept: wait for their answers, or leave one, before proposing another"
        )));
    }
    // The input stands: the caller's player (made for a member who has none).
    let (me, _) = my_player(state, caller, &club).await?;
    let players = named_players(state, &club, me, &n.players, organizer).await?;
    let mut tx = state.db.begin().await?;
    let m = stored::create(
        &mut tx,
        &stored::NewMatch {
            league_id: league.id,
            date,
            time,
            starts_at,
            place: &place,
            note: note.as_deref(),
            open: n.players.is_empty(),
            created_by: caller.user().ok().map(|u| u.id),
            players: &players,
            agreed: n.players.is_empty() || organizer,
        },
    )
    .await?;
    if m.status == "locked" {
        mail_locked(state, &mut tx, &league, &club, &m).await?;
    } else if !m.waiting.is_empty()
        && let Ok(user) = caller.user()
    {
        mail_proposed(state, &mut tx, &league, &club, &m, user.id).await?;
    }
    tx.commit().await?;
    mail::wake(state);
    state.events.poke();
    Ok(MatchView::of(&m, Some(me)))
}

/// The players of a new match: the proposer `me`, then the three `named` (none for an open
/// match), each an active player of the club named once. Unless an organizer makes it, each
/// named player must be able to accept (linked to a member).
pub(super) async fn named_players(
    state: &AppState,
    club: &Club,
    me: i64,
    named: &[i64],
    organizer: bool,
) -> Result<Vec<i64>> {
    let mut players = vec![me];
    if named.is_empty() {
        return Ok(players);
    }
    if named.len() != 3 {
        return Err(Error::invalid(
            "players",
            format!(
                "name three players to play with (you make the fourth), or none for an open match; {} given",
                named.len()
            ),
        ));
    }
    let answerable = if organizer {
        named.to_vec()
    } else {
        stored::answerable(&state.db, club.id, named).await?
    };
    for (i, &p) in named.iter().enumerate() {
        let field = format!("players[{i}]");
        let Some(player) = players::get(&state.db, club.id, p).await? else {
            return Err(Error::invalid(
                &field,
                format!("{} has no player {p}", club.name),
            ));
        };
        let refusal = if players.contains(&p) {
            format!(
                "{} is named twice (you are in the match already)",
                player.name
            )
        } else if !player.active {
            format!("{} is not an active player of the club", player.name)
        } else if !answerable.contains(&p) {
            format!(
                "{} has no account in {}, so cannot accept a proposal: name members who can, or ask an organizer to make the match",
                player.name, club.name
            )
        } else {
            players.push(p);
            continue;
        };
        return Err(Error::invalid(&field, refusal));
    }
    Ok(players)
}

/// The match `id` in an open-play league the caller may read.
pub(super) async fn match_for(
    state: &AppState,
    caller: &Caller,
    id: i64,
) -> Result<(Match, League, Club)> {
    let not_found = || format!("no match {id}");
    let m = stored::get(&state.db, id)
        .await?
        .ok_or_else(|| Error::NotFound(not_found()))?;
    let (league, club) = caller
        .league(state, m.league_id, Need::Read)
        .await
        .map_err(|e| e.or_not_found(not_found))?;
    Ok((m, league, club))
}

/// One match.
pub async fn show(state: &AppState, caller: &Caller, id: i64) -> Result<(MatchView, League, Club)> {
    let (m, league, club) = match_for(state, caller, id).await?;
    let me = me_in(state, caller, &club).await?;
    Ok((MatchView::of(&m, me), league, club))
}

/// The match played as night `night_id`, if the night is a match's.
pub async fn of_night(state: &AppState, night_id: i64) -> Result<Option<MatchView>> {
    Ok(stored::of_night(&state.db, night_id)
        .await?
        .map(|m| MatchView::of(&m, None)))
}

/// The most matches one list answers.
pub const LIST_LIMIT: i64 = 200;

/// The league's matches from today on the club's clock (`all`: every match), soonest first.
pub async fn list(
    state: &AppState,
    caller: &Caller,
    league_id: i64,
    all: bool,
) -> Result<(Vec<MatchView>, League, Club)> {
    let (league, club) = open_league(state, caller, league_id).await?;
    let me = me_in(state, caller, &club).await?;
    let from = (!all).then(|| {
        let tz = crate::domain::play::ahead::time_zone(&club);
        let today = Utc::now().with_timezone(&tz).date_naive();
        moment(&club, today, chrono::NaiveTime::MIN).unwrap_or_else(|_| Utc::now())
    });
    let matches = stored::list(&state.db, league.id, from, LIST_LIMIT).await?;
    Ok((
        matches.iter().map(|m| MatchView::of(m, me)).collect(),
        league,
        club,
    ))
}

/// The caller joins an open match; the fourth to join locks it and all four are mailed.
pub async fn join(state: &AppState, caller: &Caller, id: i64) -> Result<MatchView> {
    let (m, league, club) = match_for(state, caller, id).await?;
    if !m.open {
        return Err(Error::Conflict(format!(
            "this match was made with named players ({}): it is not open to join",
            MatchView::of(&m, None).names()
        )));
    }
    let (me, _) = my_player(state, caller, &club).await?;
    let mut tx = state.db.begin().await?;
    let view = match stored::join(&mut tx, league.id, id, me).await? {
        Joined::Gone => return Err(Error::NotFound(format!("no match {id}"))),
        Joined::Already(m) => return Ok(MatchView::of(&m, Some(me))),
        Joined::Closed(m) => {
            let v = MatchView::of(&m, Some(me));
            return Err(Error::Conflict(if m.status == "cancelled" {
                "this match was called off".to_string()
            } else {
                format!(
                    "this match is full: {} play {}; find another on the league's matches page",
                    v.names(),
                    v.when
                )
            }));
        }
        Joined::Joined(m) => MatchView::of(&m, Some(me)),
        Joined::Locked(m) => {
            mail_locked(state, &mut tx, &league, &club, &m).await?;
            MatchView::of(&m, Some(me))
        }
    };
    tx.commit().await?;
    mail::wake(state);
    state.events.poke();
    Ok(view)
}

/// The caller leaves a match. A locked match is left only in an emergency (`leave.emergency`,
/// with a reason): the other three are mailed and the seat opens again.
pub async fn leave(state: &AppState, caller: &Caller, id: i64, leave: Leave) -> Result<MatchView> {
    let (m, league, club) = match_for(state, caller, id).await?;
    let user = caller.user()?;
    let Some((me, my_name)) = stored::player_of_user(&state.db, club.id, user.id).await? else {
        return Err(Error::Conflict("you are not in this match".into()));
    };
    let reason = match leave.reason.as_deref().map(str::trim) {
        None | Some("") => None,
        Some(r) => Some(reason_given("reason", r, "why you cannot come")?),
    };
    if m.status == "locked" && !(leave.emergency && reason.is_some()) {
        return Err(Error::invalid(
            "emergency",
            "this match has its four and is on: leave only in an emergency, saying why (the other three are mailed)",
        ));
    }
    let was_locked = m.status == "locked";
    let mut tx = state.db.begin().await?;
    // Leaving a proposal of yours that still waits for the players you named ends it: a
    // proposal cannot be left and made again to mail the same people over and over.
    if !was_locked && !m.open && m.created_by == Some(user.id) && !m.waiting.is_empty() {
        let reason = format!("{my_name}, who proposed it, left it");
        return match stored::cancel(&mut tx, league.id, id, &reason).await? {
            stored::Cancelled::Cancelled(m) => {
                tx.commit().await?;
                state.events.poke();
                Ok(MatchView::of(&m, Some(me)))
            }
            stored::Cancelled::Gone | stored::Cancelled::Already => {
                Err(Error::NotFound(format!("no match {id}")))
            }
            stored::Cancelled::Played => Err(played()),
        };
    }
    let after = match stored::leave(&mut tx, league.id, id, me).await? {
        Left::Gone => return Err(Error::NotFound(format!("no match {id}"))),
        Left::NotIn => return Err(Error::Conflict("you are not in this match".into())),
        Left::Played => return Err(played()),
        Left::Left(m) => *m,
    };
    let others: Vec<i64> = after.players.iter().map(|p| p.0).collect();
    // An emergency leave stands whether or not it is mailed; past the member's day, the other
    // three see it on the match's page.
    if was_locked
        && budgets::member_may_mail(
            state,
            &mut tx,
            (club.id, &club.name),
            user.id,
            others.len() as i64,
        )
        .await?
    {
        let view = MatchView::of(&m, None);
        let subject = format!("{}: {my_name} cannot come {}", league.name, view.when);
        let text = format!(
            "{my_name} had to leave your match {} at {}: \"{}\". The seat is open again: anyone in {} can take it from the match's page, or you can ask someone.",
            view.when,
            m.place,
            reason.as_deref().unwrap_or_default(),
            league.name
        );
        write_mail(
            state,
            &mut tx,
            &league,
            &club,
            &after,
            &others,
            (&subject, &text),
            Some(user.id),
        )
        .await?;
    }
    tx.commit().await?;
    mail::wake(state);
    state.events.poke();
    Ok(MatchView::of(&after, Some(me)))
}

/// Why nobody leaves a match whose games are entered.
pub(super) fn played() -> Error {
    Error::Conflict(
        "games are entered for this match already, so it stands as played: stop there, and an organizer voids any game that should not count".into(),
    )
}

/// The match `id` for one of its league's organizers.
pub(super) async fn match_to_run(
    state: &AppState,
    caller: &Caller,
    id: i64,
) -> Result<(Match, League, Club)> {
    let (m, _, _) = match_for(state, caller, id).await?;
    let (league, club) = caller.league(state, m.league_id, Need::Admin).await?;
    Ok((m, league, club))
}

/// An organizer calls a match off, saying why; its players are mailed. Not once games are
/// entered (it stands as played; void the games that should not count).
pub async fn cancel(state: &AppState, caller: &Caller, id: i64, c: Cancel) -> Result<MatchView> {
    let (_, league, club) = match_to_run(state, caller, id).await?;
    let reason = reason_given("reason", &c.reason, "why the match is called off")?;
    let mut tx = state.db.begin().await?;
    let m = match stored::cancel(&mut tx, league.id, id, &reason).await? {
        stored::Cancelled::Gone => return Err(Error::NotFound(format!("no match {id}"))),
        stored::Cancelled::Already => {
            return Err(Error::Conflict("this match is called off already".into()));
        }
        stored::Cancelled::Played => return Err(played()),
        stored::Cancelled::Cancelled(m) => *m,
    };
    let view = MatchView::of(&m, None);
    let subject = format!("{}: your match on {} is called off", league.name, view.when);
    let text = format!(
        "An organizer of {} called off your match on {} at {}: \"{reason}\". Nothing to do; find or propose another on the league's matches page.",
        club.name, view.when, m.place
    );
    let all: Vec<i64> = m.players.iter().map(|p| p.0).collect();
    write_mail(
        state,
        &mut tx,
        &league,
        &club,
        &m,
        &all,
        (&subject, &text),
        None,
    )
    .await?;
    tx.commit().await?;
    mail::wake(state);
    state.events.poke();
    Ok(view)
}

/// An organizer takes a player out of a match, saying why; the player is mailed, and the others
/// too once the match had its four (the seat opens again). Not once games are entered.
/// Answers the match after, and the name of the player taken out.
pub async fn remove(
    state: &AppState,
    caller: &Caller,
    id: i64,
    r: Remove,
) -> Result<(MatchView, String)> {
    let (m, league, club) = match_to_run(state, caller, id).await?;
    let reason = reason_given("reason", &r.reason, "why the player is taken out")?;
    let Some((_, name, _)) = m.players.iter().find(|p| p.0 == r.player) else {
        return Err(Error::invalid(
            "player",
            format!("player {} is not in this match", r.player),
        ));
    };
    let name = name.clone();
    let was_locked = m.status == "locked";
    let mut tx = state.db.begin().await?;
    let after = match stored::leave(&mut tx, league.id, id, r.player).await? {
        Left::Gone => return Err(Error::NotFound(format!("no match {id}"))),
        Left::NotIn => {
            return Err(Error::Conflict(format!(
                "{name} is not in this match any more"
            )));
        }
        Left::Played => return Err(played()),
        Left::Left(m) => *m,
    };
    let view = MatchView::of(&m, None);
    let subject = format!(
        "{}: {name} is out of the match on {}",
        league.name, view.when
    );
    let text = format!(
        "An organizer of {} took {name} out of the match on {} at {}: \"{reason}\".{}",
        club.name,
        view.when,
        m.place,
        if was_locked {
            " The seat is open again: anyone in the league can take it from the match's page."
        } else {
            ""
        }
    );
    let mut to = vec![r.player];
    if was_locked {
        to.extend(after.players.iter().map(|p| p.0));
    }
    write_mail(
        state,
        &mut tx,
        &league,
        &club,
        &after,
        &to,
        (&subject, &text),
        None,
    )
    .await?;
    tx.commit().await?;
    mail::wake(state);
    state.events.poke();
    Ok((MatchView::of(&after, None), name))
}

/// A match with games waiting for the caller's word.
pub struct ToAnswer {
    pub match_id: i64,
    /// "Tuesday, November 24, 2026 at 2:00 PM".
    pub when: String,
    pub place: String,
    pub games: i64,
}

/// The matches of an open-play league with games waiting for the caller (a player at their
/// table who has not confirmed or disputed them yet).
pub async fn to_answer(
    state: &AppState,
    caller: &Caller,
    league: &League,
    club: &Club,
) -> Result<Vec<ToAnswer>> {
    if !league.is_open_play() {
        return Ok(Vec::new());
    }
    let Some(me) = me_in(state, caller, club).await? else {
        return Ok(Vec::new());
    };
    Ok(stored::waiting_for(&state.db, league.id, me)
        .await?
        .into_iter()
        .map(|(match_id, date, time, place, games)| ToAnswer {
            match_id,
            when: crate::domain::clock::Clock::of(&club.time_zone).local(date, time),
            place,
            games,
        })
        .collect())
}
