//! Open play: members of an `open` league arrange their own matches (a table of four on a day,
//! at a time and a place). A match is open (anyone in the league joins until four have) or made
//! with three named players; it locks when it has four, which makes a night of one table where
//! any of the four enters the games, and mails the four. Before it locks a player may leave;
//! after, leaving is for emergencies and mails the other three. Games entered in open play wait
//! for the other players: each confirms with a tap or disputes with a reason; a game counts
//! when every player at the table has confirmed it, or when its wait (`confirm_hours`) runs out
//! with no dispute; a disputed game waits for an organizer, who counts it (after correcting it,
//! if need be) or voids it.

//!
//! The folder by what a club does: `proposals` (a match from its proposal to its lock, or its
//! end), `entry` (games entered and confirmed, by tap or from the mail, and the sweeper that
//! counts them when their wait runs out), `disputes` (a disputed game and how an organizer
//! settles it), `board` (a match's games and what waits for whom). What they share — the match
//! as the API shows it, the forms, the mail they send — is here.

mod board;
mod disputes;
mod entry;
mod proposals;
pub use board::*;
pub use disputes::*;
pub use entry::*;
pub use proposals::*;

use chrono::{DateTime, Duration, NaiveDate, Utc};
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

use crate::domain::people::{budgets, roster};
use crate::domain::play::ahead::{moment, one_line, parse_time};
use crate::domain::play::game_view::Game;
use crate::domain::play::nights::PlayerRef;
use crate::domain::{AppState, Caller, Error, Need, Result, outbox::mail, play::night_mail};
use crate::storage::people::clubs::Club;
use crate::storage::play::open::{self as stored, GameAt, Joined, Left, Match, Word};
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
