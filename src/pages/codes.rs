//! Table codes on the pages: an organizer opens a code per table (each with a QR code drawn
//! here as SVG) and sees them again at `/nights/{id}/codes` while the night is open; whoever
//! holds one types it at `/code`, or scans the QR code (`/t/{code}`), and the browser then
//! scores that table for the rest of the night.

use actix_web::{HttpRequest, HttpResponse, get, post, web};
use askama::Template;
use serde::Deserialize;

use super::{Ctx, Flash, Page, Posted, after, redirect};
use crate::domain::{AppState, play::codes};
use crate::error::AppError;
use crate::http::{peer, table_cookie};

#[derive(Template)]
#[template(path = "pages/code.html")]
struct CodePage {
    ctx: Ctx,
    code: String,
}

/// Where a table code is typed in.
#[get("/code")]
async fn form(page: Page) -> Result<HttpResponse, AppError> {
    page.render(CodePage {
        ctx: page.ctx.clone(),
        code: String::new(),
    })
}

/// The QR code's link: the same form with the code filled in (one tap to start; nothing is
/// looked up before that tap).
#[get("/t/{code}")]
async fn by_link(page: Page, code: web::Path<String>) -> Result<HttpResponse, AppError> {
    page.render(CodePage {
        ctx: page.ctx.clone(),
        code: codes::normalize(&code),
    })
}

#[derive(Deserialize)]
struct CodeForm {
    code: String,
}

#[post("/code")]
async fn enter(
    req: HttpRequest,
    state: web::Data<AppState>,
    posted: Posted<CodeForm>,
) -> Result<HttpResponse, AppError> {
    match codes::enter(&state, &posted.form.code, peer(&req)).await {
        Ok(g) => {
            let mut res = redirect(
                &format!("/tables/{}/score", g.table_id),
                Some(Flash {
                    ok: true,
                    text: format!(
                        "This device scores table {} tonight: enter and fix its games here.",
                        g.table_number
                    ),
                }),
            );
            res.add_cookie(&table_cookie(&req, &state, &posted.form.code))
                .map_err(AppError::internal)?;
            Ok(res)
        }
        Err(e) => after("/code", Err(e)),
    }
}

pub(super) struct Shown {
    pub number: i32,
    pub code: String,
    link: String,
    pub qr: String,
}

#[derive(Template)]
#[template(path = "pages/codes.html")]
struct CodesPage {
    ctx: Ctx,
    night_id: i64,
    codes: Vec<Shown>,
    /// Live codes opened before they could be shown again.
    unseen: usize,
}

/// The QR code of `text` as inline SVG (black on white, quiet zone included).
fn qr_svg(text: &str) -> Result<String, AppError> {
    let code = qrcode::QrCode::new(text.as_bytes()).map_err(AppError::internal)?;
    let svg = code
        .render::<qrcode::render::svg::Color>()
        .min_dimensions(180, 180)
        .build();
    // Inline in the page: without the XML declaration.
    Ok(match svg.find("<svg") {
        Some(i) => svg[i..].to_string(),
        None => svg,
    })
}

/// The night's codes as shown: each with its link and QR code.
pub(super) fn shown(
    req: &HttpRequest,
    opened: Vec<codes::TableCode>,
) -> Result<Vec<Shown>, AppError> {
    let base = crate::http::client::base_url(req);
    let mut shown = Vec::new();
    for c in opened {
        let link = format!("{base}/t/{}", codes::normalize(&c.code));
        shown.push(Shown {
            number: c.table_number,
            qr: qr_svg(&link)?,
            code: c.code,
            link,
        });
    }
    Ok(shown)
}

/// Opens new codes for the night's tables (the old ones stop) and goes to where they show.
#[post("/nights/{id}/codes")]
async fn open(
    state: web::Data<AppState>,
    id: web::Path<i64>,
    posted: Posted<serde::de::IgnoredAny>,
) -> Result<HttpResponse, AppError> {
    match codes::open(&state, &posted.caller, *id).await {
        Ok(c) => Ok(redirect(
            &format!("/nights/{id}/codes"),
            Some(Flash {
                ok: true,
                text: format!(
                    "{} table codes opened. They stay on this page while the night is open: print the tent cards or come back here any time.",
                    c.len()
                ),
            }),
        )),
        Err(e) => after(&format!("/nights/{id}#codes"), Err(e)),
    }
}

/// The night's working codes, again (organizers, while the night is open); nothing new is made.
#[get("/nights/{id}/codes")]
async fn show(
    page: Page,
    req: HttpRequest,
    state: web::Data<AppState>,
    id: web::Path<i64>,
) -> Result<HttpResponse, AppError> {
    let (opened, unseen) = codes::shown(&state, &page.caller, *id).await?;
    page.render(CodesPage {
        ctx: page.ctx.clone(),
        night_id: *id,
        codes: shown(&req, opened)?,
        unseen,
    })
}

#[post("/nights/{id}/codes/revoke")]
async fn revoke(
    state: web::Data<AppState>,
    id: web::Path<i64>,
    posted: Posted<serde::de::IgnoredAny>,
) -> Result<HttpResponse, AppError> {
    let result = codes::revoke(&state, &posted.caller, *id)
        .await
        .map(|n| format!("{n} table codes revoked: those devices can no longer enter games."));
    after(&format!("/nights/{id}#codes"), result)
}

pub fn configure(cfg: &mut web::ServiceConfig) {
    cfg.service(form)
        .service(by_link)
        .service(enter)
        .service(open)
        .service(show)
        .service(revoke);
}
