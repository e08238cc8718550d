//! Open play on pages: *Find a match* (open matches by day and time, one tap to join, a form to
//! propose one), a match's page (its players, leaving, the scoring screen, and its games with a
//! tap to confirm or a reason to dispute each), and organizers settling a disputed game.

use std::collections::BTreeMap;

use actix_web::{HttpResponse, get, post, web};
use askama::Template;
use chrono::NaiveDate;
use serde::Deserialize;

use super::{Ctx, Page, Posted, after};
use crate::domain::people::clubs::Club;
use crate::domain::play::open::{
    self as matches, Cancel, Leave, MatchGame, MatchView, NewMatch, Remove, Settle, WordGiven,
};
use crate::domain::seasons::leagues::League;
use crate::domain::{AppState, Error};
use crate::error::AppError;

#[derive(Template)]
#[template(path = "pages/matches.html")]
struct FindPage {
    ctx: Ctx,
    league: League,
    club: Club,
    /// Matches with a free seat, by day (in date order), each day's by time.
    open_days: Vec<(NaiveDate, Vec<MatchView>)>,
    /// The caller's own matches from today on.
    mine: Vec<MatchView>,
    /// Locked matches of others from today on.
    full: Vec<MatchView>,
    member: bool,
    players: Vec<(i64, String)>,
    today: NaiveDate,
    /// Matches with games waiting for the caller's word.
    to_answer: Vec<matches::ToAnswer>,
}

#[get("/leagues/{id}/matches")]
async fn find(
    page: Page,
    state: web::Data<AppState>,
    id: web::Path<i64>,
) -> Result<HttpResponse, AppError> {
    let (list, league, club) = matches::list(&state, &page.caller, *id, false).await?;
    let member = page.caller.role_in(&state, &club).await?.is_some();
    let mut open_days: BTreeMap<NaiveDate, Vec<MatchView>> = BTreeMap::new();
    let (mut mine, mut full) = (Vec::new(), Vec::new());
    for m in list {
        if m.you_are_in {
            mine.push(m);
        } else if m.status == "forming" && m.open {
            open_days.entry(m.date).or_default().push(m);
        } else {
            full.push(m);
        }
    }
    let players = if member {
        matches::club_players(&state, &page.caller, &club).await?
    } else {
        Vec::new()
    };
    let tz = crate::domain::play::ahead::time_zone(&club);
    let to_answer = matches::to_answer(&state, &page.caller, &league, &club).await?;
    page.render(FindPage {
        to_answer,
        ctx: page.ctx.clone(),
        today: chrono::Utc::now().with_timezone(&tz).date_naive(),
        league,
        club,
        open_days: open_days.into_iter().collect(),
        mine,
        full,
        member,
        players,
    })
}

#[derive(Deserialize)]
struct ProposeForm {
    date: String,
    time: String,
    place: String,
    #[serde(default)]
    note: Option<String>,
    /// "open", or "named" with the three players.
    #[serde(default)]
    kind: Option<String>,
    #[serde(default)]
    player: Vec<String>,
}

fn proposal(f: &ProposeForm) -> Result<NewMatch, Error> {
    let date = f
        .date
        .trim()
        .parse::<NaiveDate>()
        .map_err(|_| Error::invalid("date", "give the day of the match"))?;
    let players = if f.kind.as_deref() == Some("named") {
        f.player
            .iter()
            .filter(|p| !p.trim().is_empty())
            .map(|p| {
                p.trim()
                    .parse::<i64>()
                    .map_err(|_| Error::invalid("players", "choose the players from the lists"))
            })
            .collect::<Result<Vec<_>, _>>()?
    } else {
        Vec::new()
    };
    if f.kind.as_deref() == Some("named") && players.len() != 3 {
        return Err(Error::invalid(
            "players",
            "choose the three players you are playing with, or make the match open",
        ));
    }
    Ok(NewMatch {
        date,
        time: f.time.clone(),
        place: f.place.clone(),
        note: f.note.clone(),
        players,
    })
}

#[post("/leagues/{id}/matches")]
async fn propose(
    state: web::Data<AppState>,
    id: web::Path<i64>,
    posted: Posted<ProposeForm>,
) -> Result<HttpResponse, AppError> {
    let made = match proposal(&posted.form) {
        Ok(n) => matches::create(&state, &posted.caller, *id, n).await,
        Err(e) => Err(e),
    };
    match made {
        Ok(m) => after(
            &format!("/matches/{}", m.id),
            Ok(if m.status == "locked" {
                format!(
                    "Your match {} is made: {} play at {}. All four have a mail.",
                    m.when,
                    m.names(),
                    m.place
                )
            } else if !m.waiting_for.is_empty() {
                format!(
                    "Your match {} at {} is proposed to {}: each has a mail with one tap to accept. It is on once all three have; you get a mail then.",
                    m.when,
                    m.place,
                    waiting_in_words(&m)
                )
            } else {
                format!(
                    "Your match {} at {} is open: it is on the Find a match page until three more join. You get a mail when it is full.",
                    m.when, m.place
                )
            }),
        ),
        Err(e) => after(&format!("/leagues/{id}/matches#propose"), Err(e)),
    }
}

#[derive(Template)]
#[template(path = "pages/match.html")]
struct MatchPageView {
    ctx: Ctx,
    m: MatchView,
    league: League,
    club: Club,
    games: Vec<MatchGame>,
    organizer: bool,
    member: bool,
    /// The page reached through a player's signed link from the mail (no login).
    word: Option<WordLink>,
    /// Where the caller's *Accept* posts, when the match is proposed to them.
    accept: Option<String>,
}

/// A player's signed link: whose, and where its forms post.
struct WordLink {
    name: String,
    action: String,
}

impl MatchPageView {
    /// The games waiting for the caller's word.
    fn yours(&self) -> Vec<&MatchGame> {
        self.games.iter().filter(|g| g.yours_to_answer).collect()
    }

    /// Where a game's confirm and dispute forms post.
    fn word_action(&self, g: &MatchGame, what: &str) -> String {
        match &self.word {
            Some(w) => w.action.clone(),
            None => format!("/games/{}/{what}", g.game.id),
        }
    }

    /// The game in words, with the players' names.
    fn words(&self, g: &MatchGame) -> String {
        crate::domain::play::games::in_words(&g.game)
    }

    /// The named players who have not accepted, in words.
    fn to_accept(&self) -> String {
        waiting_in_words(&self.m)
    }

    /// Whether the player has not accepted the proposed match yet.
    fn not_accepted(&self, player: &i64) -> bool {
        self.m.waiting_for.iter().any(|w| w.id == *player)
    }

    fn waiting_for(&self, g: &MatchGame) -> String {
        let names: Vec<&str> = g
            .game
            .players
            .iter()
            .filter(|p| !g.checks.iter().any(|c| c.player.id == p.player.id))
            .map(|p| p.player.name.as_str())
            .collect();
        names.join(", ")
    }
}

#[get("/matches/{id}")]
async fn show(
    page: Page,
    state: web::Data<AppState>,
    id: web::Path<i64>,
) -> Result<HttpResponse, AppError> {
    let p = matches::page(&state, &page.caller, *id).await?;
    let accept_action = p
        .view
        .you_are_asked
        .then(|| format!("/matches/{}/accept", p.view.id));
    page.render(MatchPageView {
        ctx: page.ctx.clone(),
        m: p.view,
        league: p.league,
        club: p.club,
        games: p.games,
        organizer: p.organizer,
        member: p.member,
        word: None,
        accept: accept_action,
    })
}

#[post("/matches/{id}/accept")]
async fn accept(
    state: web::Data<AppState>,
    id: web::Path<i64>,
    posted: Posted<serde::de::IgnoredAny>,
) -> Result<HttpResponse, AppError> {
    let result = matches::accept(&state, &posted.caller, *id)
        .await
        .map(|m| accepted_words(&m));
    after(&format!("/matches/{id}"), result)
}

/// The named players who have not accepted a match, in words: "Bea, Cy and Dot".
fn waiting_in_words(m: &MatchView) -> String {
    let names: Vec<&str> = m.waiting_for.iter().map(|p| p.name.as_str()).collect();
    match names.as_slice() {
        [] => String::new(),
        [one] => one.to_string(),
        [rest @ .., last] => format!("{} and {last}", rest.join(", ")),
    }
}

/// What accepting a match did, in words.
fn accepted_words(m: &MatchView) -> String {
    if m.status == "locked" {
        format!(
            "You accepted, and all four have: {} play {} at {}. All four have a mail.",
            m.names(),
            m.when,
            m.place
        )
    } else if m.waiting_for.is_empty() {
        format!("You accepted the match {} at {}.", m.when, m.place)
    } else {
        format!(
            "You accepted the match {} at {}. It is on once {} {} too; you get a mail then.",
            m.when,
            m.place,
            waiting_in_words(m),
            if m.waiting_for.len() == 1 {
                "accepts"
            } else {
                "accept"
            }
        )
    }
}

/// A named player's signed link from the proposal mail: the match with one *Accept* button.
#[get("/matches/{id}/accept/{token}")]
async fn accept_page(
    page: Page,
    state: web::Data<AppState>,
    path: web::Path<(i64, String)>,
) -> Result<HttpResponse, AppError> {
    let (id, token) = path.into_inner();
    let (m, _) = matches::accept_page(&state, id, &token).await?;
    let p = matches::page(&state, &page.caller, id).await.ok();
    let (league, club) = match &p {
        Some(p) => (p.league.clone(), p.club.clone()),
        None => matches::league_of(&state, m.league).await?,
    };
    page.render(MatchPageView {
        ctx: page.ctx.clone(),
        league,
        club,
        games: Vec::new(),
        organizer: false,
        member: false,
        word: None,
        accept: Some(format!(
            "/matches/{id}/accept/{}",
            super::urlencoding_encode(&token)
        )),
        m,
    })
}

#[post("/matches/{id}/accept/{token}")]
async fn accept_signed(
    state: web::Data<AppState>,
    path: web::Path<(i64, String)>,
    _posted: Posted<serde::de::IgnoredAny>,
) -> Result<HttpResponse, AppError> {
    let (id, token) = path.into_inner();
    let back = format!("/matches/{id}/accept/{}", super::urlencoding_encode(&token));
    let result = matches::accept_signed(&state, id, &token)
        .await
        .map(|m| accepted_words(&m));
    after(&back, result)
}

#[get("/matches/{id}/word/{token}")]
async fn word_page(
    page: Page,
    state: web::Data<AppState>,
    path: web::Path<(i64, String)>,
) -> Result<HttpResponse, AppError> {
    let (id, token) = path.into_inner();
    let (p, name) = matches::word_page(&state, id, &token).await?;
    page.render(MatchPageView {
        ctx: page.ctx.clone(),
        m: p.view,
        league: p.league,
        club: p.club,
        games: p.games,
        organizer: false,
        member: false,
        word: Some(WordLink {
            name,
            action: format!("/matches/{id}/word/{}", super::urlencoding_encode(&token)),
        }),
        accept: None,
    })
}

#[derive(Deserialize)]
struct SignedWordForm {
    /// `confirm` or `dispute`.
    #[serde(default)]
    act: String,
    /// Games to confirm, each "id:version".
    #[serde(default)]
    games: Vec<String>,
    /// The game disputed, its version and the reason.
    #[serde(default)]
    game: Option<i64>,
    #[serde(default)]
    version: Option<i32>,
    #[serde(default)]
    reason: Option<String>,
}

fn signed_word(f: &SignedWordForm) -> Result<WordGiven, Error> {
    match f.act.as_str() {
        "confirm" => f
            .games
            .iter()
            .map(|g| {
                g.split_once(':')
                    .and_then(|(id, v)| Some((id.trim().parse().ok()?, v.trim().parse().ok()?)))
                    .ok_or_else(|| {
                        Error::invalid("games", format!("`{g}` is not a game as the page shows it"))
                    })
            })
            .collect::<Result<Vec<_>, _>>()
            .map(WordGiven::Confirm),
        "dispute" => match (f.game, f.version) {
            (Some(game), Some(version)) => Ok(WordGiven::Dispute(
                game,
                version,
                f.reason.clone().unwrap_or_default(),
            )),
            _ => Err(Error::invalid(
                "game",
                "choose the game to dispute on the page",
            )),
        },
        _ => Err(Error::invalid(
            "act",
            "confirm or dispute, with the page's buttons",
        )),
    }
}

#[post("/matches/{id}/word/{token}")]
async fn word_signed(
    state: web::Data<AppState>,
    path: web::Path<(i64, String)>,
    posted: Posted<SignedWordForm>,
) -> Result<HttpResponse, AppError> {
    let (id, token) = path.into_inner();
    let back = format!("/matches/{id}/word/{}", super::urlencoding_encode(&token));
    let result = match signed_word(&posted.form) {
        Ok(w) => matches::word_signed(&state, id, &token, w).await,
        Err(e) => Err(e),
    };
    after(&back, result)
}

#[derive(Deserialize)]
struct CancelForm {
    #[serde(default)]
    reason: String,
}

#[post("/matches/{id}/cancel")]
async fn cancel(
    state: web::Data<AppState>,
    id: web::Path<i64>,
    posted: Posted<CancelForm>,
) -> Result<HttpResponse, AppError> {
    let c = Cancel {
        reason: posted.form.reason.clone(),
    };
    let result = matches::cancel(&state, &posted.caller, *id, c)
        .await
        .map(|m| {
            format!(
                "The match on {} is called off; {} {} told by mail.",
                m.when,
                m.names(),
                if m.players.len() == 1 { "is" } else { "are" }
            )
        });
    after(&format!("/matches/{id}"), result)
}

#[derive(Deserialize)]
struct RemoveForm {
    #[serde(default)]
    player: String,
    #[serde(default)]
    reason: String,
}

#[post("/matches/{id}/remove")]
async fn remove(
    state: web::Data<AppState>,
    id: web::Path<i64>,
    posted: Posted<RemoveForm>,
) -> Result<HttpResponse, AppError> {
    let result = match posted.form.player.trim().parse::<i64>() {
        Ok(player) => {
            let r = Remove {
                player,
                reason: posted.form.reason.clone(),
            };
            matches::remove(&state, &posted.caller, *id, r)
                .await
                .map(|(m, name)| {
                    let seats = match (m.status.as_str(), m.seats_left) {
                        ("cancelled", _) => "nobody is left, so it is called off".to_string(),
                        (_, 1) => "1 seat is open".to_string(),
                        (_, n) => format!("{n} seats are open"),
                    };
                    format!(
                        "{name} is out of the match on {}, and told by mail; {seats}.",
                        m.when
                    )
                })
        }
        Err(_) => Err(Error::invalid("player", "choose the player to take out")),
    };
    after(&format!("/matches/{id}"), result)
}

#[post("/matches/{id}/join")]
async fn join(
    state: web::Data<AppState>,
    id: web::Path<i64>,
    posted: Posted<serde::de::IgnoredAny>,
) -> Result<HttpResponse, AppError> {
    let result = matches::join(&state, &posted.caller, *id).await.map(|m| {
        if m.status == "locked" {
            format!(
                "You are in, and the table is full: {} play {} at {}. All four have a mail.",
                m.names(),
                m.when,
                m.place
            )
        } else {
            format!(
                "You are in: {} at {}, with {}. {} more to go; you get a mail when it is full.",
                m.when,
                m.place,
                m.names(),
                m.seats_left
            )
        }
    });
    after(&format!("/matches/{id}"), result)
}

#[derive(Deserialize)]
struct LeaveForm {
    #[serde(default)]
    emergency: Option<String>,
    #[serde(default)]
    reason: Option<String>,
}

#[post("/matches/{id}/leave")]
async fn leave(
    state: web::Data<AppState>,
    id: web::Path<i64>,
    posted: Posted<LeaveForm>,
) -> Result<HttpResponse, AppError> {
    let l = Leave {
        emergency: posted.form.emergency.is_some(),
        reason: posted.form.reason.clone(),
    };
    let result = matches::leave(&state, &posted.caller, *id, l)
        .await
        .map(|m| match m.status.as_str() {
            "cancelled" => {
                "You left, and the match is called off: nobody was left in it.".to_string()
            }
            _ if m.players.len() == 3 => format!(
                "You left the match {}. {} are told by mail; the seat is open again.",
                m.when,
                m.names()
            ),
            _ => format!("You left the match {}.", m.when),
        });
    after(&format!("/matches/{id}"), result)
}

#[derive(Deserialize)]
struct WordForm {
    /// The match whose page the form is on.
    #[serde(rename = "match")]
    match_id: i64,
    #[serde(default)]
    reason: Option<String>,
    #[serde(default)]
    decision: Option<String>,
    /// The game's version the page showed: a word on a game corrected since is refused.
    #[serde(default)]
    version: Option<i32>,
}

/// The game's number and its words, for a message: "Game 2 (Ann went out, self-pick: …)".
async fn game_words(state: &AppState, caller: &crate::domain::Caller, id: i64) -> String {
    match crate::domain::play::games::show(state, caller, id).await {
        Ok(g) => format!(
            "Game {} ({})",
            g.number,
            crate::domain::play::games::in_words(&g)
        ),
        Err(_) => format!("Game {id}"),
    }
}

#[post("/games/{id}/confirm")]
async fn confirm(
    state: web::Data<AppState>,
    id: web::Path<i64>,
    posted: Posted<WordForm>,
) -> Result<HttpResponse, AppError> {
    let words = game_words(&state, &posted.caller, *id).await;
    let result = matches::confirm(&state, &posted.caller, *id, posted.form.version)
        .await
        .map(|c| match c.awaiting {
            None => format!("Confirmed. {words} counts now: every player has confirmed it."),
            Some(_) => format!(
                "Confirmed. {words} still waits for {}.",
                c.waiting_for
                    .iter()
                    .map(|p| p.name.as_str())
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
        });
    after(
        &format!("/matches/{}#game-{id}", posted.form.match_id),
        result,
    )
}

#[post("/games/{id}/dispute")]
async fn dispute(
    state: web::Data<AppState>,
    id: web::Path<i64>,
    posted: Posted<WordForm>,
) -> Result<HttpResponse, AppError> {
    let words = game_words(&state, &posted.caller, *id).await;
    let reason = posted.form.reason.clone().unwrap_or_default();
    let result = matches::dispute(&state, &posted.caller, *id, posted.form.version, &reason)
        .await
        .map(|_| format!("Disputed. {words} does not count until an organizer settles it."));
    after(
        &format!("/matches/{}#game-{id}", posted.form.match_id),
        result,
    )
}

#[post("/games/{id}/settle")]
async fn settle(
    state: web::Data<AppState>,
    id: web::Path<i64>,
    posted: Posted<WordForm>,
) -> Result<HttpResponse, AppError> {
    let words = game_words(&state, &posted.caller, *id).await;
    let decision = posted.form.decision.clone().unwrap_or_default();
    let said = if decision == "void" {
        format!("Voided: {words} counts for nothing.")
    } else {
        format!("Counted: {words} is in the standings now.")
    };
    let result = matches::settle(
        &state,
        &posted.caller,
        *id,
        posted.form.version,
        Settle { decision },
    )
    .await
    .map(|_| said);
    after(
        &format!("/matches/{}#game-{id}", posted.form.match_id),
        result,
    )
}

pub fn configure(cfg: &mut web::ServiceConfig) {
    cfg.service(find)
        .service(propose)
        .service(show)
        .service(word_page)
        .service(accept)
        .service(accept_page)
        .service(accept_signed)
        .service(word_signed)
        .service(cancel)
        .service(remove)
        .service(join)
        .service(leave)
        .service(confirm)
        .service(dispute)
        .service(settle);
}
