//! Nights ahead on pages: a scheduled night with who is coming and your reply; the page a mailed
//! reply link opens (nothing is saved until its button is tapped: mail scanners follow links);
//! scheduling from the league page; starting check-in and cancelling.

use actix_web::{HttpResponse, get, post, web};
use askama::Template;
use serde::Deserialize;

use super::{Ctx, Flash, Page, Posted, after, redirect};
use crate::domain::play::ahead::{self, Answer, NewScheduledNight, ScheduledView};
use crate::domain::{AppState, Error};
use crate::error::AppError;

const ANSWERS: [Answer; 3] = [Answer::Coming, Answer::NotComing, Answer::Maybe];

#[derive(Template)]
#[template(path = "pages/ahead.html")]
struct AheadPage {
    ctx: Ctx,
    night: ScheduledView,
    when: String,
    organizer: bool,
    logged_in: bool,
    answers: [Answer; 3],
}

impl AheadPage {
    /// How many days before the night it is today, on the club's clock (0 on the night or after).
    fn days_early(&self) -> i64 {
        let zone = crate::domain::clock::Clock::of(&self.night.time_zone).0;
        let today = chrono::Utc::now().with_timezone(&zone).date_naive();
        (self.night.date - today).num_days().max(0)
    }

    /// Whether `a` is the caller's answer.
    fn mine(&self, a: &Answer) -> bool {
        self.night.your_answer == Some(*a)
    }

    fn named(&self, answer: Answer) -> Vec<&ahead::ReplyView> {
        self.night
            .replies
            .iter()
            .flatten()
            .filter(|r| r.answer == answer && (answer != Answer::Coming || r.waiting.is_none()))
            .collect()
    }

    fn waiting(&self) -> Vec<&ahead::ReplyView> {
        self.night
            .replies
            .iter()
            .flatten()
            .filter(|r| r.waiting.is_some())
            .collect()
    }
}

#[get("/ahead/{id}")]
async fn show(
    page: Page,
    state: web::Data<AppState>,
    id: web::Path<i64>,
) -> Result<HttpResponse, AppError> {
    let night = ahead::show(&state, &page.caller, *id).await?;
    let organizer = page
        .caller
        .league(&state, night.league, crate::domain::Need::Admin)
        .await
        .is_ok();
    page.render(AheadPage {
        ctx: page.ctx.clone(),
        when: night.when(),
        night,
        organizer,
        logged_in: page.caller.user().is_ok(),
        answers: ANSWERS,
    })
}

#[derive(Deserialize)]
struct AnswerForm {
    answer: String,
}

fn answer_of(s: &str) -> Result<Answer, Error> {
    Answer::parse(s).ok_or_else(|| Error::invalid("answer", "answer coming, not coming or maybe"))
}

/// Where the reply leaves you, in words.
fn replied(v: &ScheduledView) -> String {
    match (v.your_answer, v.your_waiting) {
        (Some(Answer::Coming), Some(n)) => format!(
            "Saved: you are coming, and number {n} on the waiting list (all {} seats are taken). You get a mail if a seat opens.",
            v.seats
        ),
        (Some(Answer::Coming), None) => {
            format!("Saved: you are coming on {}. You have a seat.", v.when())
        }
        (Some(Answer::NotComing), _) => format!("Saved: you are not coming on {}.", v.when()),
        _ => format!(
            "Saved: maybe, for {}. Say coming or not coming when you know.",
            v.when()
        ),
    }
}

#[post("/ahead/{id}/reply")]
async fn reply(
    state: web::Data<AppState>,
    id: web::Path<i64>,
    posted: Posted<AnswerForm>,
) -> Result<HttpResponse, AppError> {
    let result = match answer_of(&posted.form.answer) {
        Ok(a) => ahead::reply(&state, &posted.caller, *id, a)
            .await
            .map(|v| replied(&v)),
        Err(e) => Err(e),
    };
    after(&format!("/ahead/{id}#reply"), result)
}

#[post("/ahead/{id}/start")]
async fn start(
    state: web::Data<AppState>,
    id: web::Path<i64>,
    posted: Posted<serde::de::IgnoredAny>,
) -> Result<HttpResponse, AppError> {
    match ahead::start(&state, &posted.caller, *id).await {
        Ok(s) => after(&format!("/nights/{}", s.night.id), Ok(s.message)),
        Err(e) => after(&format!("/ahead/{id}"), Err(e)),
    }
}

#[post("/ahead/{id}/cancel")]
async fn cancel(
    state: web::Data<AppState>,
    id: web::Path<i64>,
    posted: Posted<serde::de::IgnoredAny>,
) -> Result<HttpResponse, AppError> {
    let result = ahead::cancel(&state, &posted.caller, *id)
        .await
        .map(|told| {
            format!(
                "The night is cancelled. {told} {} said coming or maybe {} told by mail.",
                if told == 1 {
                    "member who"
                } else {
                    "members who"
                },
                if told == 1 { "is" } else { "are" }
            )
        });
    after(&format!("/ahead/{id}"), result)
}

#[derive(Template)]
#[template(path = "pages/reply.html")]
struct ReplyPage {
    ctx: Ctx,
    id: i64,
    token: String,
    /// The link and what it names, or why it does not work.
    link: Option<ahead::ReplyLink>,
    when: String,
    problem: String,
    /// The answer the tapped link asked for (first and focused).
    asked: Option<Answer>,
    answers: [Answer; 3],
}

impl ReplyPage {
    fn mine(&self, a: &Answer) -> bool {
        self.link.as_ref().and_then(|l| l.night.your_answer) == Some(*a)
    }

    /// Whether `a` is not the answer the tapped link asked for.
    fn other(&self, a: &Answer) -> bool {
        self.asked != Some(*a)
    }
}

#[derive(Deserialize)]
struct AskedQuery {
    answer: Option<String>,
}

#[get("/replies/{id}/{token}")]
async fn reply_link(
    page: Page,
    state: web::Data<AppState>,
    path: web::Path<(i64, String)>,
    q: web::Query<AskedQuery>,
) -> Result<HttpResponse, AppError> {
    let (id, token) = path.into_inner();
    let (link, problem) = match ahead::reply_link_page(&state, id, &token).await {
        Ok(l) => (Some(l), String::new()),
        Err(e @ Error::NotFound(_)) => (None, e.message()),
        Err(e) => return Err(e.into()),
    };
    // An answer already saved is not asked again (a second visit of the link, or the page the
    // script's save led back to): the page says it, with the others to change it.
    let saved = link.as_ref().and_then(|l| l.night.your_answer);
    let asked = q
        .answer
        .as_deref()
        .and_then(Answer::parse)
        .filter(|a| Some(*a) != saved);
    page.render_as(
        super::found(&problem),
        ReplyPage {
            ctx: page.ctx.clone(),
            id,
            token,
            when: link.as_ref().map(|l| l.night.when()).unwrap_or_default(),
            link,
            problem,
            asked,
            answers: ANSWERS,
        },
    )
}

#[post("/replies/{id}/{token}")]
async fn reply_signed(
    state: web::Data<AppState>,
    path: web::Path<(i64, String)>,
    posted: Posted<AnswerForm>,
) -> Result<HttpResponse, AppError> {
    let (id, token) = path.into_inner();
    let back = format!("/replies/{id}/{}", super::urlencoding_encode(&token));
    let result = match answer_of(&posted.form.answer) {
        Ok(a) => ahead::reply_signed(&state, id, &token, a)
            .await
            .map(|v| replied(&v)),
        Err(e) => Err(e),
    };
    match result {
        Ok(text) => Ok(redirect(&back, Some(Flash { ok: true, text }))),
        Err(e @ (Error::Internal(_) | Error::Unavailable(_))) => Err(e.into()),
        Err(e) => Ok(redirect(
            &back,
            Some(Flash {
                ok: false,
                text: e.message(),
            }),
        )),
    }
}

#[derive(Deserialize)]
struct ScheduleForm {
    date: String,
    time: String,
    place: String,
    tables: String,
    #[serde(default)]
    remind_hours: String,
}

fn number(field: &str, value: &str, words: &str) -> Result<i32, Error> {
    value
        .trim()
        .parse()
        .map_err(|_| Error::invalid(field, format!("give {words} as a whole number")))
}

#[post("/leagues/{id}/schedule")]
async fn schedule(
    state: web::Data<AppState>,
    id: web::Path<i64>,
    posted: Posted<ScheduleForm>,
) -> Result<HttpResponse, AppError> {
    let f = &posted.form;
    let read = || -> Result<NewScheduledNight, Error> {
        let date = chrono::NaiveDate::parse_from_str(f.date.trim(), "%Y-%m-%d")
            .map_err(|_| Error::invalid("date", "give the night's date, like 2026-12-08"))?;
        let remind_hours = if f.remind_hours.trim().is_empty() {
            None
        } else {
            Some(number(
                "remind_hours",
                &f.remind_hours,
                "the reminder's hours",
            )?)
        };
        Ok(NewScheduledNight {
            date,
            time: f.time.clone(),
            place: f.place.clone(),
            tables: number("tables", &f.tables, "the number of tables")?,
            remind_hours,
        })
    };
    let result = match read() {
        Ok(n) => ahead::schedule(&state, &posted.caller, *id, n)
            .await
            .map(|v| {
                format!(
                    "{} is scheduled; the members are asked by mail whether they are coming.",
                    v.when()
                )
            }),
        Err(e) => Err(e),
    };
    after(&format!("/leagues/{id}#ahead"), result)
}

pub fn configure(cfg: &mut web::ServiceConfig) {
    cfg.service(show)
        .service(reply)
        .service(start)
        .service(cancel)
        .service(reply_link)
        .service(reply_signed)
        .service(schedule);
}
