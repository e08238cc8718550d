//! Server-rendered pages (askama). They work without JavaScript.

use actix_web::{HttpResponse, get, web};
use askama::Template;

use crate::error::AppError;
use crate::rules::builtin;
use crate::startup::AppState;
use crate::storage::clubs::{self, Club};

/// The stylesheet, built into the binary so the service runs from any directory.
const STYLE: &str = include_str!("../../static/style.css");

#[derive(Template)]
#[template(path = "index.html")]
struct IndexPage {
    clubs: Vec<Club>,
    cards: Vec<(&'static str, usize)>,
}

fn html(page: impl Template) -> Result<HttpResponse, AppError> {
    let body = page.render().map_err(|e| AppError::Internal(e.into()))?;
    Ok(HttpResponse::Ok()
        .content_type("text/html; charset=utf-8")
        .body(body))
}

#[get("/")]
async fn index(state: web::Data<AppState>) -> Result<HttpResponse, AppError> {
    let clubs = clubs::list(&state.db).await?;
    let cards = builtin::names()
        .filter_map(|n| builtin::get(n).map(|c| (n, c.lines.len())))
        .collect();
    html(IndexPage { clubs, cards })
}

#[get("/static/style.css")]
async fn stylesheet() -> HttpResponse {
    HttpResponse::Ok()
        .content_type("text/css; charset=utf-8")
        .insert_header(("Cache-Control", "public, max-age=3600"))
        .body(STYLE)
}

pub fn configure(cfg: &mut web::ServiceConfig) {
    cfg.service(index).service(stylesheet);
}
