//! Server-rendered pages (askama). They work without JavaScript; the scoring screen's script
//! only adds the tile picker's live checks and offline retries.
//!
//! Every page gets a `Ctx`: who is logged in, the CSRF token for its forms and a message left
//! by the previous form post (post, redirect, get). Forms post to page routes, which call the
//! same domain operations as the API and redirect back. Errors outside `/api` are shown as
//! pages: `configure` installs the renderer (`error::HtmlErrors`).

mod account;
mod admin;
mod ahead;
mod assets;
mod card;
mod card_editor;
mod club;
mod codes;
pub mod csrf;
mod game;
mod history;
mod league;
mod matches;
mod night;
mod pictures;
mod player;
mod score;
mod tournament;
mod view;

use std::future::Future;
use std::pin::Pin;

use actix_web::cookie::{Cookie, SameSite, time::Duration as CookieDuration};
use actix_web::http::StatusCode;
use actix_web::http::header::LOCATION;
use actix_web::{FromRequest, HttpRequest, HttpResponse, web};
use askama::Template;
use serde::de::DeserializeOwned;

use crate::domain::{Caller, Error};
use crate::error::{AppError, HtmlErrors, Problem};
use crate::http::state_of;

/// The cookie holding the message for the next page.
const FLASH_COOKIE: &str = "ml_flash";

/// A message shown once at the top of the next page.
#[derive(Debug, Clone)]
pub struct Flash {
    pub ok: bool,
    pub text: String,
}

/// What every page's layout needs.
#[derive(Debug, Clone, Default)]
pub struct Ctx {
    /// The logged-in user's display name.
    pub user: Option<String>,
    pub csrf: String,
    pub flash: Option<Flash>,
    /// Where the header's *Log in* leads: back to this page after logging in (an invitation, a
    /// claim, a night), except from the pages that log in or sign up.
    pub login: String,
}

impl Ctx {
    /// The header's *Log in* link, empty meaning the plain `/login`.
    pub fn login_href(&self) -> &str {
        if self.login.is_empty() {
            "/login"
        } else {
            &self.login
        }
    }
}

/// The log-in link that comes back to `here` (a path and query on this service).
fn login_back_to(here: &str) -> String {
    let plain = ["/login", "/signup", "/logout", "/forgot", "/reset/"];
    if here == "/" || plain.iter().any(|p| here.starts_with(p)) {
        return String::new();
    }
    format!("/login?next={}", urlencoding_encode(here))
}

/// A page request: the caller and the layout's context.
pub struct Page {
    pub caller: Caller,
    pub ctx: Ctx,
    /// A CSRF seed cookie to set (first visit of an anonymous browser).
    set_seed: Option<String>,
    /// The browser takes gzip: a page is sent compressed (a phone on a slow link gets its
    /// charts and tables in a fraction of the bytes).
    gzip: bool,
}

/// Pages smaller than this go as they are (compressing them saves less than a packet).
pub(super) const GZIP_FROM: usize = 1400;

/// `body` gzipped at `level` (fast for a page, compressed for each answer; best for a static
/// file, compressed once).
pub(super) fn gzipped(body: &[u8], level: flate2::Compression) -> Option<Vec<u8>> {
    use std::io::Write;
    let mut z = flate2::write::GzEncoder::new(Vec::with_capacity(body.len() / 4), level);
    z.write_all(body).ok()?;
    z.finish().ok()
}

impl Page {
    /// Renders a page, setting or clearing the cookies the request asked for.
    pub fn render(&self, page: impl Template) -> Result<HttpResponse, AppError> {
        self.render_as(StatusCode::OK, page)
    }

    /// Renders a page answered with `status`: a signed link that no longer works is a 404 on
    /// its page as in the API, the page saying why and what to do.
    pub fn render_as(
        &self,
        status: StatusCode,
        page: impl Template,
    ) -> Result<HttpResponse, AppError> {
        let body = page.render().map_err(AppError::internal)?;
        let mut res = HttpResponse::build(status);
        res.content_type("text/html; charset=utf-8")
            .insert_header(("Cache-Control", "no-store"));
        if self.ctx.flash.is_some() {
            res.cookie(expired(FLASH_COOKIE));
        }
        if let Some(seed) = &self.set_seed {
            res.cookie(csrf::seed_cookie(seed.clone()));
        }
        res.insert_header(("Vary", "Accept-Encoding"));
        let mut res = match (self.gzip && body.len() >= GZIP_FROM)
            .then(|| gzipped(body.as_bytes(), flate2::Compression::fast()))
            .flatten()
        {
            Some(z) => res.insert_header(("Content-Encoding", "gzip")).body(z),
            None => res.body(body),
        };
        // The page is its own answer: the error renderer leaves it as it is.
        res.extensions_mut().insert(crate::error::OwnBody);
        Ok(res)
    }
}

/// 200 when a link's page has no problem to tell, else 404.
pub fn found(problem: &str) -> StatusCode {
    if problem.is_empty() {
        StatusCode::OK
    } else {
        StatusCode::NOT_FOUND
    }
}

fn expired(name: &'static str) -> Cookie<'static> {
    let mut c = Cookie::build(name, "")
        .path("/")
        .http_only(true)
        .same_site(SameSite::Lax)
        .finish();
    c.make_removal();
    c
}

async fn page_from(req: HttpRequest) -> Result<Page, AppError> {
    let caller = Caller::extract(&req).await?;
    let user = caller.display_name();
    let state = state_of(&req)?;
    let (seed, set_seed) = csrf::seed(&req);
    let flash = req.cookie(FLASH_COOKIE).and_then(|c| {
        let v = c.value();
        let (kind, text) = v.split_once(':')?;
        let text = urlencoding_decode(text);
        Some(Flash {
            ok: kind == "ok",
            text,
        })
    });
    let ctx = Ctx {
        user,
        csrf: csrf::token(&state.keys, &seed),
        flash,
        login: login_back_to(req.uri().path_and_query().map_or("/", |p| p.as_str())),
    };
    // An error page for this request shows the same header.
    actix_web::HttpMessage::extensions_mut(&req).insert(crate::error::PageHeader {
        user: ctx.user.clone(),
        csrf: ctx.csrf.clone(),
        login: ctx.login.clone(),
    });
    Ok(Page {
        caller,
        ctx,
        set_seed,
        gzip: crate::http::client::takes_gzip(&req),
    })
}

impl FromRequest for Page {
    type Error = AppError;
    type Future = Pin<Box<dyn Future<Output = Result<Page, AppError>>>>;

    fn from_request(req: &HttpRequest, _: &mut actix_web::dev::Payload) -> Self::Future {
        Box::pin(page_from(req.clone()))
    }
}

/// A posted form whose CSRF token was checked, and its caller; its fields are read with
/// `form` (after the handler has checked what the caller may do, where that matters).
pub struct PostedBody {
    pub caller: Caller,
    body: web::Bytes,
}

impl PostedBody {
    /// The fields as `T`. Repeated fields (`player=1&player=2`) fill a `Vec`; a NUL character
    /// anywhere is refused naming its field.
    pub fn form<T: DeserializeOwned>(&self) -> Result<T, Error> {
        let pairs: Vec<(String, String)> = serde_html_form::from_bytes(&self.body)
            .map_err(|e| Error::invalid("form", e.to_string()))?;
        if let Some((name, _)) = pairs
            .iter()
            .find(|(n, v)| n.contains('\0') || v.contains('\0'))
        {
            return Err(Error::invalid(
                name.trim_matches('\0'),
                "remove the NUL character: fields are text",
            ));
        }
        serde_html_form::from_bytes(&self.body).map_err(|e| Error::invalid("form", e.to_string()))
    }
}

async fn posted_from(req: HttpRequest, body: web::Bytes) -> Result<PostedBody, AppError> {
    #[derive(serde::Deserialize)]
    struct Token {
        #[serde(default)]
        csrf: String,
    }
    let state = state_of(&req)?;
    let token: Token = serde_html_form::from_bytes(&body).unwrap_or(Token {
        csrf: String::new(),
    });
    let (seed, _) = csrf::seed(&req);
    if !csrf::verify(&state.keys, &seed, &token.csrf) {
        return Err(Error::Forbidden(
            "this form has expired or came from another site; reload the page and send it again"
                .into(),
        )
        .into());
    }
    let caller = Caller::extract(&req).await?;
    Ok(PostedBody { caller, body })
}

impl FromRequest for PostedBody {
    type Error = AppError;
    type Future = Pin<Box<dyn Future<Output = Result<PostedBody, AppError>>>>;

    fn from_request(req: &HttpRequest, payload: &mut actix_web::dev::Payload) -> Self::Future {
        let req = req.clone();
        let mut payload = payload.take();
        Box::pin(async move {
            let body = crate::http::body(&req, &mut payload).await?;
            posted_from(req, body).await
        })
    }
}

/// A posted form read at once (the caller is known first): for forms whose fields say nothing
/// about what exists.
pub struct Posted<T> {
    pub caller: Caller,
    pub form: T,
}

impl<T: DeserializeOwned + 'static> FromRequest for Posted<T> {
    type Error = AppError;
    type Future = Pin<Box<dyn Future<Output = Result<Posted<T>, AppError>>>>;

    fn from_request(req: &HttpRequest, payload: &mut actix_web::dev::Payload) -> Self::Future {
        let posted = PostedBody::from_request(req, payload);
        Box::pin(async move {
            let posted = posted.await?;
            let form = posted.form()?;
            Ok(Posted {
                caller: posted.caller,
                form,
            })
        })
    }
}

/// Every byte but unreserved URL characters is escaped, so the text fits a cookie or a query.
const ESCAPED: &percent_encoding::AsciiSet = &percent_encoding::NON_ALPHANUMERIC
    .remove(b'-')
    .remove(b'_')
    .remove(b'.')
    .remove(b'~');

fn urlencoding_encode(s: &str) -> String {
    percent_encoding::utf8_percent_encode(s, ESCAPED).to_string()
}

fn urlencoding_decode(s: &str) -> String {
    percent_encoding::percent_decode_str(s)
        .decode_utf8_lossy()
        .into_owned()
}

/// Bytes a `Location` cannot carry as they are (controls, spaces; non-ASCII is always escaped).
const UNSAFE_IN_LOCATION: &percent_encoding::AsciiSet = &percent_encoding::CONTROLS.add(b' ');

/// 303 to `to`, with a message for the next page. Paths built from what a client sent (a slug
/// with a line break) are escaped, so the header is always valid.
pub fn redirect(to: &str, flash: Option<Flash>) -> HttpResponse {
    let mut res = HttpResponse::SeeOther();
    let to = percent_encoding::utf8_percent_encode(to, UNSAFE_IN_LOCATION).to_string();
    res.insert_header((LOCATION, to));
    if let Some(f) = flash {
        let value = format!(
            "{}:{}",
            if f.ok { "ok" } else { "error" },
            urlencoding_encode(&f.text)
        );
        res.cookie(
            Cookie::build(FLASH_COOKIE, value)
                .path("/")
                .http_only(true)
                .same_site(SameSite::Lax)
                .max_age(CookieDuration::minutes(5))
                .finish(),
        );
    }
    res.finish()
}

/// The answer to a form post: back to `to` saying `done`, or saying what was wrong. Errors
/// that are about access (401, 403, 404), ours (500) or the database away (503) render as
/// error pages instead.
pub fn after(to: &str, result: Result<String, Error>) -> Result<HttpResponse, AppError> {
    match result {
        Ok(done) => Ok(redirect(
            to,
            Some(Flash {
                ok: true,
                text: done,
            }),
        )),
        Err(
            e @ (Error::Unauthorized(_)
            | Error::Forbidden(_)
            | Error::NotFound(_)
            | Error::Unavailable(_)
            | Error::Internal(_)),
        ) => Err(e.into()),
        Err(e) => Ok(redirect(
            to,
            Some(Flash {
                ok: false,
                text: e.message(),
            }),
        )),
    }
}

#[derive(Template)]
#[template(path = "error.html")]
struct ErrorPage<'a> {
    ctx: Ctx,
    title: &'a str,
    status: u16,
    detail: &'a str,
}

/// An error page's heading in words, for the answers people meet.
fn heading(status: u16) -> Option<&'static str> {
    Some(match status {
        400 => "That did not work",
        401 => "Log in first",
        403 => "Not for you",
        404 => "Not found",
        409 => "That clashes with what is stored",
        413 => "Too big",
        422 => "Something to fix",
        429 => "Too many tries",
        503 => "Busy: try again in a moment",
        _ => return None,
    })
}

/// A message as a sentence people read: a capital first, code marks as quotation marks, a full
/// stop at the end ("no club `oak`" reads "No club “oak”.").
fn sentence(detail: &str) -> String {
    let mut quoted = String::with_capacity(detail.len() + 8);
    let mut open = true;
    for c in detail.trim().chars() {
        if c == '`' {
            quoted.push(if open { '“' } else { '”' });
            open = !open;
        } else {
            quoted.push(c);
        }
    }
    let mut chars = quoted.chars();
    let mut out: String = match chars.next() {
        Some(first) => first.to_uppercase().chain(chars).collect(),
        None => return quoted,
    };
    if !out.ends_with(['.', '!', '?']) {
        out.push('.');
    }
    out
}

/// An error as a page (installed as `HtmlErrors`: every error outside `/api`), its header
/// showing the caller as the page would have.
fn error_page(problem: &Problem, header: Option<&crate::error::PageHeader>) -> HttpResponse {
    let status = StatusCode::from_u16(problem.status).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR);
    let detail = sentence(&problem.detail);
    let ctx = header.map_or_else(Ctx::default, |h| Ctx {
        user: h.user.clone(),
        csrf: h.csrf.clone(),
        flash: None,
        login: h.login.clone(),
    });
    let page = ErrorPage {
        ctx,
        title: heading(problem.status).unwrap_or(&problem.title),
        status: problem.status,
        detail: &detail,
    };
    match page.render() {
        Ok(html) => HttpResponse::build(status)
            .content_type("text/html; charset=utf-8")
            .body(html),
        Err(e) => {
            tracing::error!(error = %e, "rendering the error page");
            HttpResponse::build(status)
                .content_type("text/plain")
                .body(problem.detail.clone())
        }
    }
}

pub fn configure(cfg: &mut web::ServiceConfig) {
    cfg.app_data(HtmlErrors(error_page));
    assets::configure(cfg);
    account::configure(cfg);
    club::configure(cfg);
    admin::configure(cfg);
    league::configure(cfg);
    ahead::configure(cfg);
    matches::configure(cfg);
    history::configure(cfg);
    night::configure(cfg);
    tournament::configure(cfg);
    game::configure(cfg);
    codes::configure(cfg);
    score::configure(cfg);
    player::configure(cfg);
    pictures::configure(cfg);
    card_editor::configure(cfg);
    card::configure(cfg);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn flash_text_survives_the_cookie() {
        let text = "player 12: \"Ann\" is 100% checked in; ok?";
        assert_eq!(urlencoding_decode(&urlencoding_encode(text)), text);
        assert!(
            urlencoding_encode(text)
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || "-_.~%".contains(c))
        );
    }

    #[test]
    fn error_pages_say_their_message_as_a_sentence() {
        assert_eq!(super::sentence("no club `oak`"), "No club “oak”.");
        assert_eq!(
            super::sentence("this is for the owners of Oak; you are a member there"),
            "This is for the owners of Oak; you are a member there."
        );
        assert_eq!(super::sentence("Done."), "Done.");
        assert_eq!(super::sentence(""), "");
        assert_eq!(super::heading(403), Some("Not for you"));
    }
}
