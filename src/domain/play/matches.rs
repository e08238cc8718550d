//! Open play: members of an `open` league arrange their own matches (a table of four on a day,
//! at a time and a place). A match is open (anyone in the league joins until four have) or made
//! with three named players; it locks when it has four, which makes a night of one table where
//! any of the four enters the games, and mails the four. Before it locks a player may leave;
//! after, leaving is for emergencies and mails the other three. Games entered in open play wait
//! for the other players: each confirms with a tap or disputes with a reason; a game counts
//! when every player at the table has confirmed it, or when its wait (`confirm_hours`) runs out
//! with no dispute; a disputed game waits for an organizer, who counts it (after correcting it,
//! if need be) or voids it.

use chrono::{DateTime, Duration, NaiveDate, Utc};
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

use crate::domain::people::{budgets, roster};
use crate::domain::play::ahead::{moment, one_line, parse_time};
use crate::domain::play::game_view::Game;
use crate::domain::play::nights::PlayerRef;
use crate::domain::{AppState, Caller, Error, Need, Result, outbox::mail, play::night_mail};
use crate::storage::people::clubs::Club;
use crate::storage::play::matches::{self as stored, GameAt, Joined, Left, Match, Word};
use crate::storage::seasons::leagues::League;
use crate::storage::{people::players, play::games as stored_games};

/// A match as the API shows it.
#[derive(Serialize, ToSchema, Clone)]
pub struct MatchView {
    pub id: i64,
    pub league: i64,
    /// The day, on the club's clock (the league's `time_zone`).
    pub date: NaiveDate,
    /// The start on the club's clock, HH:MM.
    #[schema(example = "14:00")]
    pub time: String,
    /// The same moment in UTC.
    pub starts_at: DateTime<Utc>,
    /// The day and time in words: "Tuesday, December 8, 2026 at 2:00 PM".
    pub when: String,
    #[schema(example = "Rose's kitchen, 12 Elm St")]
    pub place: String,
    #[schema(required = true)]
    pub note: Option<String>,
    /// Open to anyone in the league until four have joined; false: made with named players.
    pub open: bool,
    /// `forming` (fewer than four), `locked` (four: games can be entered) or `cancelled`.
    #[schema(schema_with = crate::domain::schemas::match_status)]
    pub status: String,
    /// In the order they joined; the first is East at the first game.
    pub players: Vec<PlayerRef>,
    /// Seats still free.
    pub seats_left: usize,
    /// Once locked: the match's night (its number in the league) and table, where the games
    /// are entered (`POST /api/v1/tables/{table}/games`).
    #[schema(required = true)]
    pub night: Option<i64>,
    #[schema(required = true)]
    pub night_number: Option<i32>,
    #[schema(required = true)]
    pub table: Option<i64>,
    /// Named players who have not accepted yet: the match locks when none is left.
    pub waiting_for: Vec<PlayerRef>,
    /// The caller's player is in this match.
    pub you_are_in: bool,
    /// The caller's player is named in it and has not accepted yet.
    pub you_are_asked: bool,
    /// Why an organizer called it off (when they did).
    #[schema(required = true)]
    pub cancel_reason: Option<String>,
}

impl MatchView {
    fn of(m: &Match, me: Option<i64>) -> MatchView {
        MatchView {
            id: m.id,
            league: m.league_id,
            date: m.match_date,
            time: m.local_time.format("%H:%M").to_string(),
            starts_at: m.starts_at,
            when: crate::domain::clock::Clock::of(&m.time_zone).at(m.starts_at),
            place: m.place.clone(),
            note: m.note.clone(),
            open: m.open,
            status: m.status.clone(),
            players: m
                .players
                .iter()
                .map(|(id, name, _)| PlayerRef {
                    id: *id,
                    name: name.clone(),
                })
                .collect(),
            seats_left: 4usize.saturating_sub(m.players.len()),
            night: m.night_id,
            night_number: m.night_number,
            table: m.table_id,
            waiting_for: m
                .players
                .iter()
                .filter(|(id, _, _)| m.waiting.contains(id))
                .map(|(id, name, _)| PlayerRef {
                    id: *id,
                    name: name.clone(),
                })
                .collect(),
            you_are_in: me.is_some_and(|p| m.players.iter().any(|x| x.0 == p)),
            you_are_asked: me.is_some_and(|p| m.waiting.contains(&p)),
            cancel_reason: m.cancel_reason.clone(),
        }
    }

    /// The players' names in words: "Ann, Bea and Cy".
    pub fn names(&self) -> String {
        names_in_words(self.players.iter().map(|p| p.name.as_str()).collect())
    }
}

fn names_in_words(names: Vec<&str>) -> String {
    match names.as_slice() {
        [] => "nobody yet".into(),
        [one] => one.to_string(),
        [rest @ .., last] => format!("{} and {last}", rest.join(", ")),
    }
}

/// A match proposed by a member.
#[derive(Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct NewMatch {
    /// The day, on the club's clock.
    pub date: NaiveDate,
    /// The start, HH:MM on a 24-hour clock.
    #[schema(example = "14:00", pattern = r"^\s*\d{1,2}:\d{2}\s*$")]
    pub time: String,
    #[schema(
        example = "Rose's kitchen, 12 Elm St",
        min_length = 1,
        max_length = 200
    )]
    pub place: String,
    /// A word to the others (parking, who brings the tiles).
    #[serde(default)]
    #[schema(max_length = 500)]
    pub note: Option<String>,
    /// Three players of the club to play with (their ids): the match is proposed to them, and
    /// locks once each has accepted (from the mail, with one tap, or on the match's page); made
    /// by an organizer, it locks at once. Without them (or empty) the match is open to anyone
    /// in the league.
    #[serde(default)]
    #[schema(max_items = 3)]
    pub players: Vec<i64>,
}

/// Leaving a match.
#[derive(Deserialize, ToSchema, Default)]
#[serde(deny_unknown_fields)]
pub struct Leave {
    /// A locked match is left only in an emergency: say so (`true`), with a reason for the
    /// other three, who are mailed.
    #[serde(default)]
    pub emergency: bool,
    #[serde(default)]
    #[schema(max_length = 500)]
    pub reason: Option<String>,
}

/// An organizer calling a match off.
#[derive(Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct Cancel {
    /// Why, for the players in it (they are mailed).
    #[schema(
        example = "The club room is closed for the storm",
        min_length = 1,
        max_length = 500
    )]
    pub reason: String,
}

/// An organizer taking a player out of a match.
#[derive(Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct Remove {
    /// The player's id.
    #[schema(minimum = 1, example = 3)]
    pub player: i64,
    /// Why, for the player and the others (they are mailed).
    #[schema(
        example = "Dot is in hospital; she asked us to free her seat",
        min_length = 1,
        max_length = 500
    )]
    pub reason: String,
}

/// A reason someone must give: trimmed, 1 to 500 characters.
fn reason_given(field: &str, text: &str, words: &str) -> Result<String> {
    let text = text.trim();
    if text.is_empty() || text.chars().count() > 500 {
        return Err(Error::invalid(
            field,
            format!("say {words} in 1 to 500 characters"),
        ));
    }
    crate::domain::text::plain(field, text)?;
    Ok(text.to_string())
}

/// The open-play league `id`, for a member (`Need::Read`), with the caller's player there.
async fn open_league(state: &AppState, caller: &Caller, id: i64) -> Result<(League, Club)> {
    let (league, club) = caller.league(state, id, Need::Read).await?;
    if !league.is_open_play() {
        return Err(Error::Conflict(format!(
            "{} is not an open-play league: its organizers seat the tables on its {}s",
            league.name,
            league.session_lower()
        )));
    }
    Ok((league, club))
}

/// The caller's player in the club: a logged-in member's linked player, made for them (under
/// their name) when they have none, as on joining the club.
async fn my_player(state: &AppState, caller: &Caller, club: &Club) -> Result<(i64, String)> {
    let user = caller.user()?;
    caller.club_access(state, club.clone(), Need::Read).await?;
    if let Some(p) = stored::player_of_user(&state.db, club.id, user.id).await? {
        return Ok(p);
    }
    let mut tx = state.db.begin().await?;
    let placed = roster::place(state, &mut tx, club, user, roster::Choice::New).await?;
    tx.commit().await?;
    crate::domain::outbox::mail::wake(state);
    match placed {
        roster::Placed::Theirs { id, name }
        | roster::Placed::Linked { id, name }
        | roster::Placed::Made { id, name } => Ok((id, name)),
        roster::Placed::Claimed { name, .. } => Err(Error::Conflict(format!(
            "you say you are {name} on {}'s player list, and an organizer has not confirmed it yet (they have a mail asking); once they do, join",
            club.name
        ))),
        _ => Err(Error::Conflict(format!(
            "you are not on {}'s player list: an organizer adds you",
            club.name
        ))),
    }
}

/// The caller's player if the caller is a logged-in member with one (no player is made).
async fn me_in(state: &AppState, caller: &Caller, club: &Club) -> Result<Option<i64>> {
    let Ok(user) = caller.user() else {
        return Ok(None);
    };
    Ok(stored::player_of_user(&state.db, club.id, user.id)
        .await?
        .map(|p| p.0))
}

/// One letter about open play, as `send` puts it in a reader's outbox.
struct MatchLetter<'a> {
    kind: &'static str,
    subject: &'a str,
    paragraphs: &'a [String],
    actions: &'a [(&'a str, &'a str)],
    /// Why the reader gets it: "as a member of Oak Club playing in Open play".
    why: &'a str,
    /// The account whose action made it (a proposal, a dispute, an emergency leave): counted
    /// against that account's day.
    caused_by: Option<i64>,
}

async fn send(
    state: &AppState,
    tx: &mut sqlx::PgConnection,
    league: &League,
    club: &Club,
    (user, email, name): (i64, String, String),
    l: &MatchLetter<'_>,
) -> Result<()> {
    let unsubscribe = night_mail::unsubscribe_link(state, user, league.id);
    let greeting = format!("Hello {name},");
    let after = [
        format!(
            "Times are on the club's clock: {}.",
            crate::domain::clock::said(&club.time_zone)
        ),
        format!(
            "You get this {}. To stop mail about {}, open: {unsubscribe}",
            l.why, league.name
        ),
    ];
    let (text_body, html_body) = mail::Letter {
        greeting: &greeting,
        paragraphs: l.paragraphs,
        actions: l.actions,
        after: &after,
    }
    .render(&state.public_url);
    mail::enqueue(
        tx,
        &crate::storage::outbox::mail::NewMail {
            kind: l.kind,
            club_id: Some(club.id),
            to_address: email,
            to_name: Some(name),
            subject: l.subject.to_string(),
            text_body,
            html_body,
            unsubscribe: Some(unsubscribe),
            caused_by: l.caused_by,
        },
    )
    .await?;
    Ok(())
}

/// Mail about a match to some of its players, in `tx`.
#[allow(clippy::too_many_arguments)]
async fn write_mail(
    state: &AppState,
    tx: &mut sqlx::PgConnection,
    league: &League,
    club: &Club,
    m: &Match,
    to: &[i64],
    (subject, paragraph): (&str, &str),
    caused_by: Option<i64>,
) -> Result<()> {
    let page = format!("{}/matches/{}", state.public_url, m.id);
    let why = format!("as a member of {} playing in {}", club.name, league.name);
    let letter = MatchLetter {
        kind: "match",
        subject,
        paragraphs: &[paragraph.to_string()],
        actions: &[("See the match", page.as_str())],
        why: &why,
        caused_by,
    };
    for (_, user, email, name) in stored::readers_of(tx, league.id, to).await? {
        send(state, tx, league, club, (user, email, name), &letter).await?;
    }
    Ok(())
}

/// The mail to all four when a match locks.
async fn mail_locked(
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
async fn to_propose(
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
async fn mail_proposed(
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

fn accept_what(match_id: i64, user: i64) -> String {
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

async fn accept_as(
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

async fn signed_accept(
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
async fn named_players(
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
async fn match_for(state: &AppState, caller: &Caller, id: i64) -> Result<(Match, League, Club)> {
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
fn played() -> Error {
    Error::Conflict(
        "games are entered for this match already, so it stands as played: stop there, and an organizer voids any game that should not count".into(),
    )
}

/// The match `id` for one of its league's organizers.
async fn match_to_run(state: &AppState, caller: &Caller, id: i64) -> Result<(Match, League, Club)> {
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

/// A player's word on a game.
#[derive(Serialize, ToSchema)]
pub struct CheckView {
    pub player: PlayerRef,
    /// `confirmed` or `disputed`.
    #[schema(example = "confirmed")]
    pub answer: String,
    #[schema(required = true)]
    pub reason: Option<String>,
    pub at: DateTime<Utc>,
}

impl From<stored::Check> for CheckView {
    fn from(c: stored::Check) -> CheckView {
        CheckView {
            player: PlayerRef {
                id: c.player_id,
                name: c.name,
            },
            answer: c.answer,
            reason: c.reason,
            at: c.at,
        }
    }
}

/// Where a game of open play stands with its players.
#[derive(Serialize, ToSchema)]
pub struct Checks {
    pub game: i64,
    /// `players`, `organizer`, or null once it counts (or in a league that is not open play).
    #[schema(required = true, schema_with = crate::domain::schemas::awaiting)]
    pub awaiting: Option<String>,
    /// When it counts unconfirmed, if nobody disputes it first.
    #[schema(required = true)]
    pub counts_at: Option<DateTime<Utc>>,
    pub checks: Vec<CheckView>,
    /// Players at the table who have not said yet.
    pub waiting_for: Vec<PlayerRef>,
}

/// The game `id` as a word on it needs: its view, league and club (read access checked).
async fn game_for(
    state: &AppState,
    caller: &Caller,
    id: i64,
) -> Result<(crate::domain::play::game_view::Game, League, Club)> {
    let game = crate::domain::play::games::show(state, caller, id).await?;
    let ctx = stored_games::table_context(&state.db, game.table.id)
        .await?
        .ok_or_else(|| Error::NotFound(format!("no game {id}")))?;
    let (league, club) = caller.league(state, ctx.league_id, Need::Read).await?;
    Ok((game, league, club))
}

/// The players' words on a game.
pub async fn checks(state: &AppState, caller: &Caller, id: i64) -> Result<Checks> {
    let (game, league, _) = game_for(state, caller, id).await?;
    let said = stored::checks(&state.db, id).await?;
    let waiting_for = game
        .players
        .iter()
        .filter(|p| !said.iter().any(|c| c.player_id == p.player.id))
        .map(|p| p.player.clone())
        .collect();
    let counts_at = (game.awaiting.as_deref() == Some("players"))
        .then(|| game.updated_at + Duration::hours(league.confirm_hours as i64));
    Ok(Checks {
        game: id,
        awaiting: game.awaiting.clone(),
        counts_at,
        checks: said.into_iter().map(CheckView::from).collect(),
        waiting_for,
    })
}

/// The caller's player at the game's table, or why not.
async fn player_at(
    state: &AppState,
    caller: &Caller,
    game: &crate::domain::play::game_view::Game,
    league: &League,
    club: &Club,
) -> Result<i64> {
    if !league.is_open_play() {
        return Err(Error::Conflict(format!(
            "{} is not open play: its games count as entered",
            league.name
        )));
    }
    crate::domain::play::games::seat_of(state, caller, league, club, game.table.id)
        .await?
        .ok_or_else(|| {
            Error::Forbidden("only the players at this game's table confirm or dispute it".into())
        })
}

/// A game as its event tells it, read after the change.
async fn event_of(state: &AppState, id: i64) -> Result<serde_json::Value> {
    let mut conn = state.db.acquire().await?;
    let g = crate::domain::play::games::view(&mut conn, id).await?;
    serde_json::to_value(&g).map_err(Error::internal)
}

fn word_refused(word: Word, game: &crate::domain::play::game_view::Game) -> Result<()> {
    match word {
        Word::Gone => Err(Error::NotFound(format!("no game {}", game.id))),
        Word::Changed => Err(Error::Conflict(format!(
            "game {} was corrected since you looked at it: look at it again, then say whether it is right",
            game.number
        ))),
        Word::NotWaiting => Err(Error::Conflict(match game.awaiting.as_deref() {
            Some("organizer") => {
                "this game is disputed: it waits for an organizer to settle it".into()
            }
            _ => "this game waits for nobody: it counts already, or was voided".into(),
        })),
        _ => Ok(()),
    }
}

/// The game as the one giving a word on it saw it: at `seen` (a page's version), or as read now.
fn at(league: &League, game: &crate::domain::play::game_view::Game, seen: Option<i32>) -> GameAt {
    GameAt {
        league_id: league.id,
        game_id: game.id,
        version: seen.unwrap_or(game.version),
    }
}

/// The caller confirms a game at their table, as they saw it (`seen`: its version, when a page
/// showed it). Answers the game's checks after.
pub async fn confirm(
    state: &AppState,
    caller: &Caller,
    id: i64,
    seen: Option<i32>,
) -> Result<Checks> {
    let (game, league, club) = game_for(state, caller, id).await?;
    let me = player_at(state, caller, &game, &league, &club).await?;
    confirm_as(
        state,
        &league,
        &game,
        seen,
        me,
        caller.user().ok().map(|u| u.id),
    )
    .await?;
    checks(state, caller, id).await
}

/// Player `me` (through account `user`) confirms `game` as seen.
async fn confirm_as(
    state: &AppState,
    league: &League,
    game: &crate::domain::play::game_view::Game,
    seen: Option<i32>,
    me: i64,
    user: Option<i64>,
) -> Result<Word> {
    let event = serde_json::to_value(game).map_err(Error::internal)?;
    let word = stored::confirm(&state.db, at(league, game, seen), me, user, event).await?;
    word_refused(word, game)?;
    after_word(state, league.id);
    Ok(word)
}

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
async fn dispute_as(
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
async fn mail_dispute(
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
fn what_changed(
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
fn after_word(state: &AppState, league_id: i64) {
    state.freshness.changed();
    crate::domain::seasons::standings::replay_ratings(state, league_id);
    state.events.poke();
}

/// Counts the games whose wait ran out with no dispute (a few at a time); how many.
pub async fn count_overdue(state: &AppState) -> Result<usize> {
    let mut counted = 0;
    for (league, game) in stored::overdue(&state.db, 20).await? {
        let mut event = event_of(state, game).await?;
        event["awaiting"] = serde_json::Value::Null;
        if stored::count_overdue(&state.db, league, game, event).await? {
            counted += 1;
            after_word(state, league);
        }
    }
    Ok(counted)
}

/// Counts overdue games and asks players for their word on games entered, for as long as the
/// process runs (every two and a half worker passes: 5 s).
pub async fn run_sweeper(state: std::sync::Arc<AppState>) {
    loop {
        tokio::time::sleep(state.worker_pass * 5 / 2).await;
        if let Err(e) = count_overdue(&state).await {
            tracing::debug!(error = %e, "counting overdue open-play games waits");
        }
        if let Err(e) = ask_for_words(&state).await {
            tracing::debug!(error = %e, "asking open-play players for their word waits");
        }
    }
}

/// Games of the league waiting: (for their players, for an organizer).
pub async fn waiting(state: &AppState, league_id: i64) -> Result<(i64, i64)> {
    Ok(stored::waiting_counts(&state.db, league_id).await?)
}

/// A game of a match with the players' words on it.
pub struct MatchGame {
    pub game: crate::domain::play::game_view::Game,
    pub checks: Vec<CheckView>,
    /// The caller (at the table) has not said yet and may confirm or dispute it.
    pub yours_to_answer: bool,
    /// When it counts unconfirmed, on the club's clock in words.
    pub counts_at: Option<String>,
}

/// Everything a match's page shows.
pub struct MatchPage {
    pub view: MatchView,
    pub league: League,
    pub club: Club,
    pub games: Vec<MatchGame>,
    /// The caller is an organizer of the club (settles disputes).
    pub organizer: bool,
    /// The caller is a logged-in member who may join.
    pub member: bool,
}

/// A match with its games and the words on them, for its page.
pub async fn page(state: &AppState, caller: &Caller, id: i64) -> Result<MatchPage> {
    let (m, league, club) = match_for(state, caller, id).await?;
    let me = me_in(state, caller, &club).await?;
    let role = caller.role_in(state, &club).await?;
    page_for(state, &m, league, club, me, role).await
}

/// The page of match `m` as player `me` (if any) with `role` in the club sees it; access was
/// checked.
async fn page_for(
    state: &AppState,
    m: &Match,
    league: League,
    club: Club,
    me: Option<i64>,
    role: Option<crate::domain::Role>,
) -> Result<MatchPage> {
    let view = MatchView::of(m, me);
    let mut games = Vec::new();
    if let Some(night) = m.night_id {
        let query = crate::domain::play::game_lists::GameQuery {
            limit: Some(100),
            cursor: None,
            since: None,
        };
        let listed =
            crate::domain::play::game_lists::list(state, league.id, Some(night), &query).await?;
        for game in listed.games {
            let said = if game.awaiting.is_some() {
                stored::checks(&state.db, game.id).await?
            } else {
                Vec::new()
            };
            let yours_to_answer = game.awaiting.as_deref() == Some("players")
                && game.status == "recorded"
                && me.is_some_and(|p| {
                    game.players.iter().any(|x| x.player.id == p)
                        && !said.iter().any(|c| c.player_id == p)
                });
            games.push(MatchGame {
                checks: said.into_iter().map(CheckView::from).collect(),
                counts_at: counts_at_words(&league, &club, &game),
                game,
                yours_to_answer,
            });
        }
    }
    Ok(MatchPage {
        view,
        league,
        club,
        games,
        organizer: role.is_some_and(|r| r >= crate::domain::Role::Organizer),
        member: role.is_some(),
    })
}

/// When a game waiting for its players counts by itself, on the club's clock in words.
fn counts_at_words(league: &League, club: &Club, game: &Game) -> Option<String> {
    (game.awaiting.as_deref() == Some("players")).then(|| {
        crate::domain::clock::Clock::of(&club.time_zone)
            .at(game.updated_at + Duration::hours(league.confirm_hours as i64))
    })
}

/// How long a match's games stay as they are (nothing entered or corrected) before the players
/// whose word they wait for are mailed: a table enters its games in a row and gets one mail.
pub const ASK_QUIET_SECS: i64 = 600;

/// What a player's signed link to give their word on a match's games signs.
fn word_what(match_id: i64, user: i64) -> String {
    format!("match words {match_id} {user}")
}

/// The link a player follows from the mail to confirm or dispute a match's games, no login.
pub fn word_link(state: &AppState, match_id: i64, user: i64) -> String {
    format!(
        "{}/matches/{match_id}/word/{user}-{}",
        state.public_url,
        state.keys.sign(&word_what(match_id, user))
    )
}

/// Mails the players whose word a match's games wait for, once the games are in and quiet (a
/// few matches at a time); how many letters.
pub async fn ask_for_words(state: &AppState) -> Result<usize> {
    let mut letters = 0;
    for (league_id, match_id) in stored::to_ask(&state.db, ASK_QUIET_SECS, 20).await? {
        let Some((league, club)) =
            crate::storage::seasons::leagues::with_club(&state.db, league_id).await?
        else {
            continue;
        };
        let mut tx = state.db.begin().await?;
        let Some(asks) = stored::claim_ask(&mut tx, match_id, ASK_QUIET_SECS).await? else {
            continue;
        };
        let Some(m) = stored::get(&mut *tx, match_id).await? else {
            continue;
        };
        let players: Vec<i64> = asks.iter().map(|a| a.0).collect();
        for (player, user, email, name) in stored::readers_of(&mut tx, league.id, &players).await? {
            let games = asks.iter().find(|a| a.0 == player).map(|a| a.1.as_slice());
            ask(
                state,
                &mut tx,
                (&league, &club, &m),
                (user, email, name),
                games.unwrap_or_default(),
                None,
            )
            .await?;
            letters += 1;
        }
        tx.commit().await?;
    }
    if letters > 0 {
        mail::wake(state);
    }
    Ok(letters)
}

/// The letter asking a reader (user id, email, name) for their word on `games` of match `m`.
async fn ask(
    state: &AppState,
    tx: &mut sqlx::PgConnection,
    (league, club, m): (&League, &Club, &Match),
    (user, email, name): (i64, String, String),
    games: &[i64],
    lead: Option<String>,
) -> Result<()> {
    let view = MatchView::of(m, None);
    let mut paragraphs: Vec<String> = lead.into_iter().collect();
    paragraphs.push(format!(
        "The games of your match at {} on {} are entered. Please look them over:",
        m.place, view.when
    ));
    for &id in games {
        let game = crate::domain::play::games::view(tx, id).await?;
        let scores: Vec<String> = game
            .players
            .iter()
            .map(|p| format!("{} {:+}", p.player.name, p.score))
            .collect();
        paragraphs.push(format!(
            "Game {}: {}. {}.{}",
            game.number,
            crate::domain::play::games::in_words(&game),
            scores.join(", "),
            counts_at_words(league, club, &game)
                .map(|t| format!(" Counts by itself {t}."))
                .unwrap_or_default()
        ));
    }
    paragraphs.push(
        "One tap confirms them; if something is wrong, say what and the organizers settle it. Games nobody disputes count by themselves at the times above."
            .into(),
    );
    let subject = match games.len() {
        1 => format!(
            "{}: a game of your match {} waits for your word",
            league.name, view.when
        ),
        n => format!(
            "{}: {n} games of your match {} wait for your word",
            league.name, view.when
        ),
    };
    let link = word_link(state, m.id, user);
    let page = format!("{}/matches/{}", state.public_url, m.id);
    let why = format!(
        "as a player of this match in {}, {}",
        league.name, club.name
    );
    let letter = MatchLetter {
        kind: "match_words",
        subject: &subject,
        paragraphs: &paragraphs,
        actions: &[
            ("Confirm or dispute the games", link.as_str()),
            ("See the match", page.as_str()),
        ],
        why: &why,
        caused_by: None,
    };
    send(state, tx, league, club, (user, email, name), &letter).await
}

/// A player's signed link to a match's games: the match, its league and club, the account and
/// its player in the match.
struct SignedWord {
    m: Match,
    league: League,
    club: Club,
    user: i64,
    player: i64,
}

async fn signed_word(state: &AppState, id: i64, token: &str) -> Result<SignedWord> {
    signed_player(state, id, token, word_what).await
}

/// The match, the member and their player a signed link from a match's mail names (`what`: the
/// words its signature covers), while the member is in the league and the player in the match.
async fn signed_player(
    state: &AppState,
    id: i64,
    token: &str,
    what: fn(i64, i64) -> String,
) -> Result<SignedWord> {
    let bad = || {
        Error::NotFound(
            "this link is not one the club sent (it may be cut short): open the match from the league's page instead"
                .into(),
        )
    };
    let (user, sig) = token.split_once('-').ok_or_else(bad)?;
    let user: i64 = user.parse().map_err(|_| bad())?;
    if token.len() > 200 || !state.keys.signed(&what(id, user), sig) {
        return Err(bad());
    }
    let m = stored::get(&state.db, id).await?.ok_or_else(bad)?;
    let (league, club) = crate::storage::seasons::leagues::with_club(&state.db, m.league_id)
        .await?
        .ok_or_else(bad)?;
    if !crate::storage::play::ahead::is_member(&state.db, league.id, user).await? {
        return Err(Error::NotFound(format!(
            "this link's member is no longer in {}",
            club.name
        )));
    }
    let player = stored::player_of_user(&state.db, club.id, user)
        .await?
        .map(|p| p.0)
        .filter(|p| m.players.iter().any(|x| x.0 == *p))
        .ok_or_else(|| {
            Error::NotFound("this link's player is not in this match any more".into())
        })?;
    Ok(SignedWord {
        m,
        league,
        club,
        user,
        player,
    })
}

/// The match a signed link is for, as its player sees it (nothing is saved by looking), and
/// the player's name.
pub async fn word_page(state: &AppState, id: i64, token: &str) -> Result<(MatchPage, String)> {
    let s = signed_word(state, id, token).await?;
    let name =
        s.m.players
            .iter()
            .find(|p| p.0 == s.player)
            .map(|p| p.1.clone())
            .unwrap_or_default();
    let page = page_for(state, &s.m, s.league, s.club, Some(s.player), None).await?;
    Ok((page, name))
}

/// A word given through a signed link.
pub enum WordGiven {
    /// Confirm these games (id, the version shown).
    Confirm(Vec<(i64, i32)>),
    /// Dispute a game (id, the version shown) with a reason.
    Dispute(i64, i32, String),
}

/// The most games one signed confirmation takes (a match's page lists at most 100).
pub const MAX_CONFIRM: usize = 100;

/// A player's word through their signed link; what it did, in words.
pub async fn word_signed(
    state: &AppState,
    id: i64,
    token: &str,
    word: WordGiven,
) -> Result<String> {
    let s = signed_word(state, id, token).await?;
    let game_of = |gid: i64| async move {
        let game = crate::domain::play::games::view(&mut *state.db.acquire().await?, gid)
            .await
            .map_err(|e| e.or_not_found(|| format!("no game {gid}")))?;
        if Some(game.table.id) != s.m.table_id {
            return Err(Error::NotFound(format!("game {gid} is not of this match")));
        }
        Ok::<_, Error>(game)
    };
    match word {
        WordGiven::Dispute(gid, version, reason) => {
            let game = game_of(gid).await?;
            dispute_as(
                state,
                &s.league,
                &s.club,
                &game,
                Some(version),
                (s.player, Some(s.user)),
                &reason,
            )
            .await?;
            Ok(format!(
                "Disputed: game {} does not count until an organizer settles it; they have your reason.",
                game.number
            ))
        }
        WordGiven::Confirm(list) => {
            if list.is_empty() {
                return Err(Error::invalid("games", "choose the games to confirm"));
            }
            if list.len() > MAX_CONFIRM {
                return Err(Error::invalid(
                    "games",
                    format!("confirm at most {MAX_CONFIRM} games at once"),
                ));
            }
            let (mut confirmed, mut counted, mut refused) = (Vec::new(), Vec::new(), Vec::new());
            for (gid, version) in list {
                let game = game_of(gid).await?;
                match confirm_as(
                    state,
                    &s.league,
                    &game,
                    Some(version),
                    s.player,
                    Some(s.user),
                )
                .await
                {
                    Ok(Word::Counted) => {
                        confirmed.push(game.number);
                        counted.push(game.number);
                    }
                    Ok(_) => confirmed.push(game.number),
                    Err(Error::Conflict(why)) => {
                        refused.push(format!("Game {}: {why}.", game.number))
                    }
                    Err(e) => return Err(e),
                }
            }
            let mut said = Vec::new();
            if !confirmed.is_empty() {
                said.push(format!("You confirmed {}.", numbered(&confirmed)));
            }
            if !counted.is_empty() {
                said.push(format!(
                    "{} {} now: everyone has confirmed.",
                    capitalized(&numbered(&counted)),
                    if counted.len() == 1 {
                        "counts"
                    } else {
                        "count"
                    }
                ));
            }
            said.extend(refused);
            Ok(said.join(" "))
        }
    }
}

/// "game 2", "games 1, 2 and 4".
fn numbered(numbers: &[i32]) -> String {
    let words: Vec<String> = numbers.iter().map(|n| n.to_string()).collect();
    match words.len() {
        1 => format!("game {}", words[0]),
        _ => format!(
            "games {}",
            names_in_words(words.iter().map(String::as_str).collect())
        ),
    }
}

fn capitalized(s: &str) -> String {
    let mut c = s.chars();
    c.next()
        .map(|f| f.to_uppercase().chain(c).collect())
        .unwrap_or_default()
}

/// The club's active players, for naming three in a match: (id, name).
pub async fn club_players(
    state: &AppState,
    caller: &Caller,
    club: &Club,
) -> Result<Vec<(i64, String)>> {
    let all: Vec<(i64, String)> = players::list(&state.db, club.id, false)
        .await?
        .into_iter()
        .map(|p| (p.id, p.name))
        .collect();
    // A member names only players who can accept (linked to a member); an organizer anyone.
    if caller
        .club_access(state, club.clone(), Need::Admin)
        .await
        .is_ok()
    {
        return Ok(all);
    }
    let ids: Vec<i64> = all.iter().map(|p| p.0).collect();
    let answerable = stored::answerable(&state.db, club.id, &ids).await?;
    Ok(all
        .into_iter()
        .filter(|p| answerable.contains(&p.0))
        .collect())
}

/// A match of four made for the demo (or any filling of a league by its organizers): seated at
/// once, no mail. Answers the match and its table.
pub(crate) async fn arrange(
    state: &AppState,
    league: &League,
    club: &Club,
    players: &[i64],
    date: NaiveDate,
    time: &str,
    place: &str,
) -> Result<(MatchView, i64)> {
    let time = parse_time(time)?;
    let starts_at = moment(club, date, time)?;
    let mut tx = state.db.begin().await?;
    let m = stored::create(
        &mut tx,
        &stored::NewMatch {
            league_id: league.id,
            date,
            time,
            starts_at,
            place,
            note: None,
            open: players.len() < 4,
            created_by: None,
            players,
            agreed: true,
        },
    )
    .await?;
    tx.commit().await?;
    Ok((MatchView::of(&m, None), m.table_id.unwrap_or_default()))
}

/// A game's league and the game as its event tells it, for the demo's words on it.
async fn demo_game(
    state: &AppState,
    caller: &Caller,
    game: i64,
) -> Result<(GameAt, serde_json::Value)> {
    let g = crate::domain::play::games::show(state, caller, game).await?;
    let ctx = stored_games::table_context(&state.db, g.table.id)
        .await?
        .ok_or_else(|| Error::NotFound(format!("no game {game}")))?;
    Ok((
        GameAt {
            league_id: ctx.league_id,
            game_id: g.id,
            version: g.version,
        },
        serde_json::to_value(&g).map_err(Error::internal)?,
    ))
}

/// A player's confirmation of a game, for the demo (no session: the player's word as if given).
pub(crate) async fn demo_confirm(
    state: &AppState,
    caller: &Caller,
    game: i64,
    player: i64,
) -> Result<()> {
    let (at, event) = demo_game(state, caller, game).await?;
    stored::confirm(&state.db, at, player, None, event).await?;
    Ok(())
}

/// A player's dispute of a game, for the demo.
pub(crate) async fn demo_dispute(
    state: &AppState,
    caller: &Caller,
    game: i64,
    player: i64,
    reason: &str,
) -> Result<()> {
    let (at, event) = demo_game(state, caller, game).await?;
    let mut tx = state.db.begin().await?;
    stored::dispute(&mut tx, at, player, None, reason, event).await?;
    tx.commit().await?;
    Ok(())
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
