//! Nights ahead: an organizer schedules a league's nights (date, local time, place, tables);
//! every member of the club who takes the league's mail is asked by mail; members reply coming,
//! not coming or maybe (on the page, or through the mail's signed links with no login); the
//! first tables × 4 who said coming have a seat and the rest wait in the order they said it (the
//! first waiting gets a mail when a seat opens); a reminder goes out a set number of hours
//! before; check-in starts from the replies; each league has an iCalendar feed (RFC 5545).

//!
//! The nights ahead as a calendar feed are in `calendar`.

mod calendar;
pub use calendar::*;

use chrono::{DateTime, NaiveDate, NaiveTime, TimeZone, Utc};
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

use crate::domain::people::roster;
use crate::domain::play::nights::NightView;
use crate::domain::{AppState, Caller, Error, Need, Result, outbox::mail, play::night_mail};
use crate::storage::outbox::mail::NewMail;
use crate::storage::people::clubs::Club;
use crate::storage::play::ahead::{self as stored, NewScheduled, Reply, Scheduled};
use crate::storage::play::nights;
use crate::storage::seasons::leagues::League;

/// Seats at a table.
const SEATS_PER_TABLE: usize = 4;
/// Scheduled nights shown and fed at most.
const LISTED: i64 = 100;

/// A member's answer.
#[derive(Deserialize, Serialize, ToSchema, Clone, Copy, PartialEq, Eq, Debug)]
#[serde(rename_all = "snake_case")]
pub enum Answer {
    Coming,
    NotComing,
    Maybe,
}

impl Answer {
    pub fn as_str(self) -> &'static str {
        match self {
            Answer::Coming => "coming",
            Answer::NotComing => "not_coming",
            Answer::Maybe => "maybe",
        }
    }

    pub fn parse(s: &str) -> Option<Answer> {
        match s {
            "coming" => Some(Answer::Coming),
            "not_coming" => Some(Answer::NotComing),
            "maybe" => Some(Answer::Maybe),
            _ => None,
        }
    }

    /// The answer in words, as a button says it.
    pub fn words(self) -> &'static str {
        match self {
            Answer::Coming => "Coming",
            Answer::NotComing => "Not coming",
            Answer::Maybe => "Maybe",
        }
    }
}

/// A night to schedule.
#[derive(Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct NewScheduledNight {
    /// The night's date in the club's time zone; today or later.
    #[schema(example = "2026-12-08")]
    pub date: NaiveDate,
    /// When play starts, on the club's clock (24-hour `HH:MM`).
    #[schema(example = "19:00", pattern = r"^([01][0-9]|2[0-3]):[0-5][0-9]$")]
    pub time: String,
    #[schema(example = "Club room, 12 Elm Street", min_length = 1, max_length = 200)]
    pub place: String,
    /// How many tables of four; more who say coming wait for a seat.
    #[schema(example = 4, minimum = 1, maximum = 100)]
    pub tables: i32,
    /// Hours before the start when those coming (and maybe, and waiting) are reminded; 0 for
    /// no reminder. Default 24.
    #[schema(example = 24, minimum = 0, maximum = 168)]
    pub remind_hours: Option<i32>,
}

/// How the replies stand.
#[derive(Serialize, ToSchema, Default)]
pub struct ReplyCounts {
    /// Coming, with a seat.
    pub coming: usize,
    /// Said coming after the seats were taken, waiting in that order.
    pub waiting: usize,
    pub maybe: usize,
    pub not_coming: usize,
}

/// One member's reply, as members of the club see it.
#[derive(Serialize, ToSchema)]
pub struct ReplyView {
    #[schema(example = "Rose Adler")]
    pub name: String,
    pub answer: Answer,
    /// Said coming when the seats were taken: their place on the waiting list (1 first).
    #[schema(required = true)]
    pub waiting: Option<usize>,
}

/// A scheduled night.
#[derive(Serialize, ToSchema)]
pub struct ScheduledView {
    pub id: i64,
    pub league: i64,
    #[schema(example = "Tuesday League")]
    pub league_name: String,
    /// The date on the club's clock.
    pub date: NaiveDate,
    /// The start on the club's clock, `HH:MM`.
    #[schema(example = "19:00")]
    pub time: String,
    /// The club's time zone (IANA), which `date` and `time` are in.
    #[schema(example = "America/New_York")]
    pub time_zone: String,
    pub starts_at: DateTime<Utc>,
    pub place: String,
    pub tables: i32,
    /// tables × 4.
    pub seats: usize,
    pub remind_hours: i32,
    /// `ahead` (replies open), `started` (check-in made the league's night `night`) or
    /// `cancelled`.
    #[schema(schema_with = crate::domain::schemas::scheduled_status)]
    pub status: String,
    #[schema(required = true)]
    pub night: Option<i64>,
    pub counts: ReplyCounts,
    /// The caller's own reply (a logged-in member).
    #[schema(required = true)]
    pub your_answer: Option<Answer>,
    /// The caller's place on the waiting list, when they wait.
    #[schema(required = true)]
    pub your_waiting: Option<usize>,
    /// Every reply, for members of the club (names and answers); absent for anyone else.
    #[schema(required = true)]
    pub replies: Option<Vec<ReplyView>>,
}

/// Replies sorted into seated (coming, first seats), waiting (coming, past the seats), maybe and
/// not coming, in the stored order.
struct Sorted<'a> {
    seated: Vec<&'a Reply>,
    waiting: Vec<&'a Reply>,
    maybe: Vec<&'a Reply>,
    not_coming: Vec<&'a Reply>,
}

fn sort(replies: &[Reply], seats: usize) -> Sorted<'_> {
    let mut s = Sorted {
        seated: Vec::new(),
        waiting: Vec::new(),
        maybe: Vec::new(),
        not_coming: Vec::new(),
    };
    for r in replies {
        match r.answer.as_str() {
            "coming" if s.seated.len() < seats => s.seated.push(r),
            "coming" => s.waiting.push(r),
            "maybe" => s.maybe.push(r),
            _ => s.not_coming.push(r),
        }
    }
    s
}

fn seats(s: &Scheduled) -> usize {
    s.tables.max(0) as usize * SEATS_PER_TABLE
}

fn status(s: &Scheduled) -> &'static str {
    if s.cancelled_at.is_some() {
        "cancelled"
    } else if s.night_id.is_some() {
        "started"
    } else {
        "ahead"
    }
}

fn view(
    s: &Scheduled,
    league: &League,
    club: &Club,
    replies: &[Reply],
    me: Option<i64>,
    member: bool,
) -> ScheduledView {
    let n = seats(s);
    let sorted = sort(replies, n);
    let waiting_place = |user: i64| {
        sorted
            .waiting
            .iter()
            .position(|r| r.user_id == user)
            .map(|i| i + 1)
    };
    let mine = me.and_then(|u| replies.iter().find(|r| r.user_id == u));
    ScheduledView {
        id: s.id,
        league: league.id,
        league_name: league.name.clone(),
        date: s.night_date,
        time: s.local_time.format("%H:%M").to_string(),
        time_zone: club.time_zone.clone(),
        starts_at: s.starts_at,
        place: s.place.clone(),
        tables: s.tables,
        seats: n,
        remind_hours: s.remind_hours,
        status: status(s).to_string(),
        night: s.night_id,
        counts: ReplyCounts {
            coming: sorted.seated.len(),
            waiting: sorted.waiting.len(),
            maybe: sorted.maybe.len(),
            not_coming: sorted.not_coming.len(),
        },
        your_answer: mine.and_then(|r| Answer::parse(&r.answer)),
        your_waiting: mine.and_then(|r| waiting_place(r.user_id)),
        replies: member.then(|| {
            replies
                .iter()
                .map(|r| ReplyView {
                    name: r.display_name.clone(),
                    answer: Answer::parse(&r.answer).unwrap_or(Answer::Maybe),
                    waiting: waiting_place(r.user_id),
                })
                .collect()
        }),
    }
}

/// The night's date and time in words, on the club's clock: "Tue Dec 8, 7:00 PM EST".
pub fn when_words(club: &Club, s: &Scheduled) -> String {
    when_in_words(&club.time_zone, s.night_date, s.local_time)
}

/// "1 table", "3 tables".
fn tables_words(n: i32) -> String {
    format!("{n} {}", if n == 1 { "table" } else { "tables" })
}

pub(crate) fn when_in_words(zone: &str, date: NaiveDate, time: NaiveTime) -> String {
    crate::domain::clock::Clock::of(zone).local(date, time)
}

impl ScheduledView {
    /// The night's date and time in words, as `when_words` says them.
    pub fn when(&self) -> String {
        crate::domain::clock::Clock::of(&self.time_zone).at(self.starts_at)
    }
}

pub(crate) fn time_zone(club: &Club) -> chrono_tz::Tz {
    crate::domain::clock::Clock::of(&club.time_zone).0
}

/// The moment `date` `time` on the club's clock: the earlier of two in a repeated hour; an
/// hour skipped by a clock change is refused.
pub(crate) fn moment(club: &Club, date: NaiveDate, time: NaiveTime) -> Result<DateTime<Utc>> {
    time_zone(club)
        .from_local_datetime(&date.and_time(time))
        .earliest()
        .map(|t| t.with_timezone(&Utc))
        .ok_or_else(|| {
            Error::invalid(
                "time",
                format!(
                    "{} does not exist on {} on the club's clock ({}): the clocks skip it; choose another time",
                    time.format("%-I:%M %p"),
                    crate::domain::clock::Clock::of(&club.time_zone).day(date),
                    crate::domain::clock::said(&club.time_zone)
                ),
            )
        })
}

pub(crate) use crate::domain::text::one_line;

pub(crate) fn parse_time(s: &str) -> Result<NaiveTime> {
    NaiveTime::parse_from_str(s.trim(), "%H:%M").map_err(|_| {
        Error::invalid(
            "time",
            "give the start as HH:MM on a 24-hour clock, like 19:00",
        )
    })
}

/// The signature of a member's reply link for a scheduled night.
fn reply_what(scheduled: i64, user: i64) -> String {
    format!("reply {scheduled} {user}")
}

/// The link a member follows to reply without logging in.
pub fn reply_link(state: &AppState, scheduled: i64, user: i64, answer: Answer) -> String {
    format!(
        "{}/replies/{scheduled}/{user}-{}?answer={}",
        state.public_url,
        state.keys.sign(&reply_what(scheduled, user)),
        answer.as_str()
    )
}

/// The member a reply token names, if its signature holds for this scheduled night.
fn read_reply_token(state: &AppState, scheduled: i64, token: &str) -> Result<i64> {
    let bad = || {
        Error::NotFound(
            "this reply link is not one the club sent (it may be cut short): open the night from the league's page instead"
                .into(),
        )
    };
    let (user, sig) = token.split_once('-').ok_or_else(bad)?;
    let user: i64 = user.parse().map_err(|_| bad())?;
    if !state.keys.signed(&reply_what(scheduled, user), sig) {
        return Err(bad());
    }
    Ok(user)
}

/// A letter about a scheduled night to one member, put in the outbox in `conn`'s transaction.
#[allow(clippy::too_many_arguments)]
async fn write_letter(
    state: &AppState,
    conn: &mut sqlx::PgConnection,
    kind: &'static str,
    s: &Scheduled,
    league: &League,
    club: &Club,
    to: (i64, &str, &str),
    subject: &str,
    paragraphs: &[String],
    with_replies: bool,
) -> Result<()> {
    let (user, email, name) = to;
    let page = format!("{}/ahead/{}", state.public_url, s.id);
    let links: Vec<(String, String)> = if with_replies {
        [Answer::Coming, Answer::NotComing, Answer::Maybe]
            .into_iter()
            .map(|a| (a.words().to_string(), reply_link(state, s.id, user, a)))
            .collect()
    } else {
        vec![("See the night".to_string(), page.clone())]
    };
    let actions: Vec<(&str, &str)> = links
        .iter()
        .map(|(l, u)| (l.as_str(), u.as_str()))
        .collect();
    let unsubscribe = night_mail::unsubscribe_link(state, user, league.id);
    let greeting = format!("Hello {name},");
    let after = [
        format!(
            "Times are on the club's clock: {}.",
            crate::domain::clock::said(&club.time_zone)
        ),
        format!("The night's page, with who is coming: {page}"),
        format!(
            "You get this as a member of {}. To stop mail about {}, open: {unsubscribe}",
            club.name, league.name
        ),
    ];
    let (text_body, html_body) = mail::Letter {
        greeting: &greeting,
        paragraphs,
        actions: &actions,
        after: &after,
    }
    .render(&state.public_url);
    mail::enqueue(
        conn,
        &NewMail {
            kind,
            club_id: Some(club.id),
            to_address: email.to_string(),
            to_name: Some(name.to_string()),
            subject: subject.to_string(),
            text_body,
            html_body,
            unsubscribe: Some(unsubscribe),
            caused_by: None,
        },
    )
    .await?;
    Ok(())
}

/// Schedules a night of the league and asks every member who takes its mail to reply.
pub async fn schedule(
    state: &AppState,
    caller: &Caller,
    league_id: i64,
    n: NewScheduledNight,
) -> Result<ScheduledView> {
    let (league, club) = caller.league(state, league_id, Need::Admin).await?;
    if league.kind == "open" {
        return Err(Error::invalid(
            "league",
            format!(
                "{} is open play: its members arrange their own matches on Find a match, so it has no nights to schedule",
                league.name
            ),
        ));
    }
    let date = crate::domain::sensible_date("date", n.date)?;
    let time = parse_time(&n.time)?;
    let place = one_line("place", &n.place, 200)?;
    if !(1..=100).contains(&n.tables) {
        return Err(Error::invalid("tables", "give 1 to 100 tables"));
    }
    let remind_hours = n.remind_hours.unwrap_or(24);
    if !(0..=168).contains(&remind_hours) {
        return Err(Error::invalid(
            "remind_hours",
            "give 0 (no reminder) to 168 hours (a week)",
        ));
    }
    let starts_at = moment(&club, date, time)?;
    if starts_at <= Utc::now() {
        return Err(Error::invalid(
            "date",
            format!(
                "{} has passed on the club's clock: schedule a night ahead",
                when_in_words(&club.time_zone, date, time)
            ),
        ));
    }
    let mut tx = state.db.begin().await?;
    let s = stored::create(
        &mut tx,
        &NewScheduled {
            league_id: league.id,
            night_date: date,
            local_time: time,
            starts_at,
            place: &place,
            tables: n.tables,
            remind_hours,
            created_by: caller.user().ok().map(|u| u.id),
        },
    )
    .await?;
    let subject = format!("{}: {} — coming?", league.name, when_words(&club, &s));
    let paragraphs = [format!(
        "{} plays {}, at {}, with {} ({} seats). Are you coming? One tap below answers: the page it opens saves your answer at once and shows it, with a way to change it (if your mail program shows pages without scripts, tap Save there).",
        league.name,
        when_words(&club, &s),
        s.place,
        tables_words(s.tables),
        seats(&s)
    )];
    for r in stored::readers(&mut tx, league.id).await? {
        write_letter(
            state,
            &mut tx,
            "night_ahead",
            &s,
            &league,
            &club,
            (r.user_id, &r.email, &r.display_name),
            &subject,
            &paragraphs,
            true,
        )
        .await?;
    }
    tx.commit().await?;
    mail::wake(state);
    let me = caller.user().ok().map(|u| u.id);
    Ok(view(&s, &league, &club, &[], me, true))
}

/// Whether the caller is a logged-in member of the club (who sees names and may reply).
async fn member_of(state: &AppState, caller: &Caller, league: &League) -> Result<Option<i64>> {
    let Ok(user) = caller.user() else {
        return Ok(None);
    };
    Ok(stored::is_member(&state.db, league.id, user.id)
        .await?
        .then_some(user.id))
}

/// The league's scheduled nights from today on (on the club's clock, started ones too).
pub async fn list(state: &AppState, caller: &Caller, league_id: i64) -> Result<Vec<ScheduledView>> {
    let (league, club) = caller.league(state, league_id, Need::Read).await?;
    let me = member_of(state, caller, &league).await?;
    let since = Utc::now() - chrono::Duration::hours(12);
    let mut all = Vec::new();
    let mut conn = state.db.acquire().await?;
    for s in stored::of_league(&state.db, league.id, since, LISTED).await? {
        let replies = stored::replies(&mut conn, s.id).await?;
        all.push(view(&s, &league, &club, &replies, me, me.is_some()));
    }
    Ok(all)
}

/// A scheduled night and its league, for whoever may read the league.
async fn scheduled_for(
    state: &AppState,
    caller: &Caller,
    id: i64,
    need: Need,
) -> Result<(Scheduled, League, Club)> {
    let missing = || Error::NotFound(format!("no scheduled night {id}"));
    let s = stored::get(&state.db, id).await?.ok_or_else(missing)?;
    let (league, club) = caller
        .league(state, s.league_id, need)
        .await
        .map_err(|e| match e {
            Error::NotFound(_) => missing(),
            other => other,
        })?;
    Ok((s, league, club))
}

/// A scheduled night: counts for whoever may read the league; names for members.
pub async fn show(state: &AppState, caller: &Caller, id: i64) -> Result<ScheduledView> {
    let (s, league, club) = scheduled_for(state, caller, id, Need::Read).await?;
    let me = member_of(state, caller, &league).await?;
    let replies = stored::replies(&mut *state.db.acquire().await?, s.id).await?;
    Ok(view(&s, &league, &club, &replies, me, me.is_some()))
}

/// Records `user`'s answer and, when it frees a seat, mails whoever it goes to.
async fn record(
    state: &AppState,
    s: &Scheduled,
    league: &League,
    club: &Club,
    user: i64,
    answer: Answer,
) -> Result<ScheduledView> {
    let mut tx = state.db.begin().await?;
    let locked = stored::lock(&mut tx, s.id)
        .await?
        .ok_or_else(|| Error::NotFound(format!("no scheduled night {}", s.id)))?;
    match status(&locked) {
        "cancelled" => {
            return Err(Error::Conflict(format!(
                "the night of {} was cancelled: there is nothing to reply to",
                when_words(club, &locked)
            )));
        }
        "started" => {
            return Err(Error::Conflict(format!(
                "the night of {} has started: check-in is at the door now",
                when_words(club, &locked)
            )));
        }
        _ => {}
    }
    let n = seats(&locked);
    let before: Vec<i64> = sort(&stored::replies(&mut tx, locked.id).await?, n)
        .seated
        .iter()
        .map(|r| r.user_id)
        .collect();
    stored::reply(&mut tx, locked.id, user, answer.as_str()).await?;
    let replies = stored::replies(&mut tx, locked.id).await?;
    let moved_up: Vec<(i64, String, String)> = sort(&replies, n)
        .seated
        .iter()
        .filter(|r| r.user_id != user && !before.contains(&r.user_id))
        .map(|r| (r.user_id, r.email.clone(), r.display_name.clone()))
        .collect();
    for (id, email, name) in &moved_up {
        let paragraphs = [format!(
            "A seat opened for you at {}, {}, at {}: you were waiting, and now you have a seat. If you cannot come after all, say so on the night's page so the next one waiting gets it.",
            league.name,
            when_words(club, &locked),
            locked.place
        )];
        let subject = format!(
            "{}: a seat for you on {}",
            league.name,
            when_words(club, &locked)
        );
        write_letter(
            state,
            &mut tx,
            "night_seat",
            &locked,
            league,
            club,
            (*id, email, name),
            &subject,
            &paragraphs,
            false,
        )
        .await?;
    }
    tx.commit().await?;
    if !moved_up.is_empty() {
        mail::wake(state);
    }
    Ok(view(&locked, league, club, &replies, Some(user), true))
}

/// The logged-in member's own reply.
pub async fn reply(
    state: &AppState,
    caller: &Caller,
    id: i64,
    answer: Answer,
) -> Result<ScheduledView> {
    let (s, league, club) = scheduled_for(state, caller, id, Need::Read).await?;
    let user = caller.user()?.id;
    if member_of(state, caller, &league).await?.is_none() {
        return Err(Error::Forbidden(format!(
            "only members of {} reply; ask an organizer for an invitation",
            club.name
        )));
    }
    record(state, &s, &league, &club, user, answer).await
}

/// What a signed reply link names: the member's name and the night, if the link holds.
pub struct ReplyLink {
    pub name: String,
    pub night: ScheduledView,
}

async fn signed(state: &AppState, id: i64, token: &str) -> Result<(Scheduled, League, Club, i64)> {
    let user = read_reply_token(state, id, token)?;
    let s = stored::get(&state.db, id)
        .await?
        .ok_or_else(|| Error::NotFound(format!("no scheduled night {id}")))?;
    let (league, club) = crate::storage::seasons::leagues::with_club(&state.db, s.league_id)
        .await?
        .ok_or_else(|| Error::NotFound(format!("no scheduled night {id}")))?;
    if !stored::is_member(&state.db, league.id, user).await? {
        return Err(Error::NotFound(format!(
            "this link's member is no longer in {}",
            club.name
        )));
    }
    Ok((s, league, club, user))
}

/// The night a signed reply link is for, and whose it is (nothing is saved by looking).
pub async fn reply_link_page(state: &AppState, id: i64, token: &str) -> Result<ReplyLink> {
    let (s, league, club, user) = signed(state, id, token).await?;
    let replies = stored::replies(&mut *state.db.acquire().await?, s.id).await?;
    let name = crate::storage::people::users::by_id(&state.db, user)
        .await?
        .map(|u| u.display_name)
        .unwrap_or_default();
    Ok(ReplyLink {
        name,
        night: view(&s, &league, &club, &replies, Some(user), true),
    })
}

/// A reply through a signed link (no login).
pub async fn reply_signed(
    state: &AppState,
    id: i64,
    token: &str,
    answer: Answer,
) -> Result<ScheduledView> {
    let (s, league, club, user) = signed(state, id, token).await?;
    record(state, &s, &league, &club, user, answer).await
}

/// What starting check-in did.
#[derive(Serialize, ToSchema)]
pub struct Started {
    pub night: NightView,
    /// How many of those coming (with a seat) were checked in.
    pub checked_in: u64,
    /// Those coming with a seat who had no player in the club: each got one under their name in
    /// the same step (and is checked in).
    pub added: Vec<String>,
    /// Those coming who only say they are a player (an organizer has not confirmed it): checked
    /// in as that player; confirm it on the members page.
    pub unconfirmed: Vec<String>,
    /// Always empty now that everyone coming gets a player (see `added`); kept for apps that
    /// read it.
    #[deprecated]
    #[schema(deprecated)]
    pub without_player: Vec<String>,
    #[schema(example = "Night 5 is open: 11 coming are checked in.")]
    pub message: String,
}

/// Makes the league's night from a scheduled one and checks in everyone coming with a seat, in
/// one transaction; anyone coming without a player in the club gets one under their name.
pub async fn start(state: &AppState, caller: &Caller, id: i64) -> Result<Started> {
    let (s, league, club) = scheduled_for(state, caller, id, Need::Admin).await?;
    let mut tx = state.db.begin().await?;
    let locked = stored::lock(&mut tx, s.id)
        .await?
        .ok_or_else(|| Error::NotFound(format!("no scheduled night {id}")))?;
    match status(&locked) {
        "cancelled" => {
            return Err(Error::Conflict(
                "this night was cancelled; schedule it again to start it".into(),
            ));
        }
        "started" => {
            return Err(Error::Conflict(format!(
                "check-in for this night has started already (night {})",
                locked.night_id.unwrap_or_default()
            )));
        }
        _ => {}
    }
    let replies = stored::replies(&mut tx, locked.id).await?;
    let sorted = sort(&replies, seats(&locked));
    let mut players: Vec<i64> = Vec::new();
    let (mut added, mut unconfirmed) = (Vec::new(), Vec::new());
    for r in &sorted.seated {
        if let Some(p) = r.player_id {
            players.push(p);
            continue;
        }
        let user = crate::storage::people::users::User {
            id: r.user_id,
            email: r.email.clone(),
            display_name: r.display_name.clone(),
        };
        let placed = roster::place(state, &mut tx, &club, &user, roster::Choice::New).await?;
        match &placed {
            roster::Placed::Made { name, .. } => added.push(name.clone()),
            roster::Placed::Claimed { name, .. } => {
                unconfirmed.push(format!("{} as {name}", r.display_name))
            }
            _ => {}
        }
        if let Some((p, _)) = placed.player() {
            players.push(p);
        }
    }
    let night = nights::create_in(&mut tx, league.id, locked.night_date).await?;
    let checked_in = nights::check_in_many(&mut tx, night.id, league.club_id, &players).await?;
    stored::started(&mut tx, locked.id, night.id).await?;
    tx.commit().await?;
    crate::domain::outbox::mail::wake(state);
    let mut message = format!(
        "{} {} is open: {checked_in} coming {} checked in.",
        league.session(),
        night.number,
        if checked_in == 1 { "is" } else { "are" }
    );
    if !added.is_empty() {
        message.push_str(&format!(
            " Added to the club's player list: {}.",
            added.join(", ")
        ));
    }
    if !unconfirmed.is_empty() {
        message.push_str(&format!(
            " Checked in as the player they say they are (confirm it on the members page): {}.",
            unconfirmed.join(", ")
        ));
    }
    #[allow(deprecated)]
    Ok(Started {
        night: crate::domain::play::nights::created(state, night).await?,
        checked_in,
        without_player: Vec::new(),
        added,
        unconfirmed,
        message,
    })
}

/// Cancels a scheduled night and tells everyone who said coming or maybe.
pub async fn cancel(state: &AppState, caller: &Caller, id: i64) -> Result<usize> {
    let (s, league, club) = scheduled_for(state, caller, id, Need::Admin).await?;
    let mut tx = state.db.begin().await?;
    if !stored::cancel(&mut tx, s.id).await? {
        return Err(Error::Conflict(
            "this night was cancelled already, or its check-in has started".into(),
        ));
    }
    let told: Vec<Reply> = stored::replies(&mut tx, s.id)
        .await?
        .into_iter()
        .filter(|r| r.answer != "not_coming")
        .collect();
    let subject = format!("{}: {} is cancelled", league.name, when_words(&club, &s));
    let paragraphs = [format!(
        "The night of {} at {} is cancelled. Nothing to do: your reply is set aside.",
        when_words(&club, &s),
        s.place
    )];
    for r in &told {
        write_letter(
            state,
            &mut tx,
            "night_cancelled",
            &s,
            &league,
            &club,
            (r.user_id, &r.email, &r.display_name),
            &subject,
            &paragraphs,
            false,
        )
        .await?;
    }
    tx.commit().await?;
    mail::wake(state);
    Ok(told.len())
}

/// Writes the reminder of one scheduled night whose time has come, if any: to those coming,
/// waiting and maybe. Whether there was one.
pub async fn write_next_reminder(state: &AppState) -> Result<bool> {
    let mut tx = state.db.begin().await?;
    let Some(s) = stored::take_due_reminder(&mut tx).await? else {
        return Ok(false);
    };
    let (league, club) = crate::storage::seasons::leagues::with_club(&state.db, s.league_id)
        .await?
        .ok_or_else(|| Error::NotFound(format!("no league {}", s.league_id)))?;
    let replies = stored::replies(&mut tx, s.id).await?;
    let sorted = sort(&replies, seats(&s));
    let subject = format!("Reminder: {}, {}", league.name, when_words(&club, &s));
    // (who, what they are told, whether the letter asks for a reply)
    let groups: [(&[&Reply], String, bool); 3] = [
        (
            &sorted.seated,
            format!(
                "See you at {}, {}: you have a seat.",
                s.place,
                when_words(&club, &s)
            ),
            false,
        ),
        (
            &sorted.waiting,
            format!(
                "{}, {}: you are on the waiting list; you get a mail if a seat opens.",
                s.place,
                when_words(&club, &s)
            ),
            false,
        ),
        (
            &sorted.maybe,
            format!(
                "You said maybe for {}, {}. Please say coming or not coming, so the tables can be planned.",
                s.place,
                when_words(&club, &s)
            ),
            true,
        ),
    ];
    for (who, words, with_replies) in groups {
        for r in who {
            write_letter(
                state,
                &mut tx,
                "night_reminder",
                &s,
                &league,
                &club,
                (r.user_id, &r.email, &r.display_name),
                &subject,
                std::slice::from_ref(&words),
                with_replies,
            )
            .await?;
        }
    }
    tx.commit().await?;
    Ok(true)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn text_is_escaped_and_lines_fold_at_75_octets_between_characters() {
        assert_eq!(ics_text("a,b;c\\d\ne"), "a\\,b\\;c\\\\d\\ne");
        let mut out = String::new();
        let long = format!("LOCATION:{}", "ü".repeat(60));
        ics_line(&mut out, &long);
        for line in out.split("\r\n").filter(|l| !l.is_empty()) {
            assert!(line.len() <= 75, "{} octets: {line}", line.len());
        }
        let unfolded = out.trim_end_matches("\r\n").replace("\r\n ", "");
        assert_eq!(unfolded, long);
    }

    #[test]
    fn a_time_the_clocks_skip_is_refused_and_a_repeated_one_is_the_first() {
        let club = Club {
            id: 1,
            slug: "c".into(),
            name: "C".into(),
            time_zone: "America/New_York".into(),
        };
        let day = |d: u32, m: u32| NaiveDate::from_ymd_opt(2026, m, d).unwrap();
        let at = |h: u32, m: u32| NaiveTime::from_hms_opt(h, m, 0).unwrap();
        let e = moment(&club, day(8, 3), at(2, 30)).unwrap_err();
        assert!(
            e.message().contains("the clocks skip it"),
            "{}",
            e.message()
        );
        // 1:30 happens twice on November 1: the first (still daylight time, UTC−4).
        let t = moment(&club, day(1, 11), at(1, 30)).unwrap();
        assert_eq!(t.to_rfc3339(), "2026-11-01T05:30:00+00:00");
        // 7 pm in December is UTC−5.
        let t = moment(&club, day(8, 12), at(19, 0)).unwrap();
        assert_eq!(t.to_rfc3339(), "2026-12-09T00:00:00+00:00");
    }

    #[test]
    fn the_first_seats_are_taken_in_the_order_said_and_the_rest_wait() {
        let r = |id: i64, answer: &str| Reply {
            user_id: id,
            display_name: format!("P{id}"),
            email: format!("p{id}@example.org"),
            answer: answer.into(),
            coming_since: None,
            player_id: None,
            player: None,
        };
        let replies = vec![
            r(1, "coming"),
            r(2, "coming"),
            r(3, "coming"),
            r(4, "maybe"),
            r(5, "not_coming"),
        ];
        let s = sort(&replies, 2);
        let ids = |v: &[&Reply]| v.iter().map(|r| r.user_id).collect::<Vec<_>>();
        assert_eq!(ids(&s.seated), [1, 2]);
        assert_eq!(ids(&s.waiting), [3]);
        assert_eq!(ids(&s.maybe), [4]);
        assert_eq!(ids(&s.not_coming), [5]);
    }
}
