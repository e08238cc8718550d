//! Table codes on the pages: an organizer opens a code per table (shown once, with a QR code
//! drawn here as SVG); whoever holds one types it at `/code`, or scans the QR code (`/t/{code}`),
//! and the browser then scores that table for the rest of the night.

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

struct Shown {
    number: i32,
    code: String,
    link: String,
    qr: String,
}

#[derive(Template)]
#[template(path = "pages/codes.html")]
struct CodesPage {
    ctx: Ctx,
    night_id: i64,
    codes: Vec<Shown>,
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

/// Opens new codes for the night's tables and shows them, once.
#[post("/nights/{id}/codes")]
async fn open(
    page: Page,
    req: HttpRequest,
    state: web::Data<AppState>,
    id: web::Path<i64>,
    posted: Posted<serde::de::IgnoredAny>,
) -> Result<HttpResponse, AppError> {
    let opened = match codes::open(&state, &posted.caller, *id).await {
        Ok(c) => c,
        Err(e) => return after(&format!("/nights/{id}#codes"), Err(e)),
    };
    let base = crate::http::client::base_url(&req);
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
    page.render(CodesPage {
        ctx: page.ctx.clone(),
        night_id: *id,
        codes: shown,
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
        .service(revoke);
}
