//! The start page and the static files (built into the binary, so the service runs from any
//! directory).

use std::collections::HashMap;

use actix_web::{HttpRequest, HttpResponse, get, post, web};
use askama::Template;
use serde::Deserialize;

use super::{Ctx, Page, Posted, after};
use crate::domain::AppState;
use crate::domain::people::clubs::{self, Club, NewClub, PublicLeague};
use crate::error::AppError;
use crate::http::client::takes_gzip;
use crate::rules::builtin;

const STYLE: &str = include_str!("../../static/style.css");
const CARD_PRINT_CSS: &str = include_str!("../../static/card-print.css");
const SCORE_JS: &str = include_str!("../../static/score.js");
/// The scoring screen's modules, by name (`/static/score/{name}.js`), imported by `score.js`.
const SCORE_MODULES: [(&str, &str); 8] = [
    ("bar", include_str!("../../static/score/bar.js")),
    ("card", include_str!("../../static/score/card.js")),
    ("check", include_str!("../../static/score/check.js")),
    ("entry", include_str!("../../static/score/entry.js")),
    ("hand", include_str!("../../static/score/hand.js")),
    ("night", include_str!("../../static/score/night.js")),
    ("queue", include_str!("../../static/score/queue.js")),
    ("store", include_str!("../../static/score/store.js")),
];
const UPLOAD_JS: &str = include_str!("../../static/upload.js");
const CARD_EDITOR_JS: &str = include_str!("../../static/card-editor.js");
const KEEP_JS: &str = include_str!("../../static/keep.js");
const SERVICE_WORKER: &str = include_str!("../../static/sw.js");
const COPY_JS: &str = include_str!("../../static/copy.js");
const TOURNAMENT_JS: &str = include_str!("../../static/tournament.js");
const EMBED_JS: &str = include_str!("../../static/embed.js");
const REPLY_JS: &str = include_str!("../../static/reply.js");
const LEAGUE_FORM_JS: &str = include_str!("../../static/league-form.js");

#[derive(Template)]
#[template(path = "index.html")]
struct IndexPage {
    ctx: Ctx,
    clubs: Vec<Club>,
    public: Vec<PublicLeague>,
    cards: Vec<(&'static str, usize)>,
    /// The time zone picker of the new club's form.
    zones: &'static [(String, String)],
}

#[get("/")]
async fn index(page: Page, state: web::Data<AppState>) -> Result<HttpResponse, AppError> {
    let front = clubs::front(&state, &page.caller).await?;
    let cards = builtin::names()
        .filter_map(|n| builtin::get(n).map(|c| (n, c.lines.len())))
        .collect();
    page.render(IndexPage {
        ctx: page.ctx.clone(),
        clubs: front.mine,
        public: front.public,
        cards,
        zones: crate::domain::clock::picker(),
    })
}

#[derive(Deserialize)]
struct ClubForm {
    slug: String,
    name: String,
    time_zone: Option<String>,
}

#[post("/clubs")]
async fn create(
    state: web::Data<AppState>,
    posted: Posted<ClubForm>,
) -> Result<HttpResponse, AppError> {
    let f = posted.form;
    let slug = f.slug.trim().to_string();
    let result = clubs::create(
        &state,
        &posted.caller,
        NewClub {
            slug: slug.clone(),
            name: f.name,
            time_zone: f.time_zone.filter(|t| !t.trim().is_empty()),
        },
    )
    .await;
    match result {
        Ok(club) => after(&format!("/clubs/{}", club.slug), Ok("Club created.".into())),
        Err(e) => after("/", Err(e)),
    }
}

/// The static files gzipped, each compressed once (by where its text is in the binary).
static PACKED: std::sync::LazyLock<std::sync::Mutex<HashMap<usize, web::Bytes>>> =
    std::sync::LazyLock::new(Default::default);

/// A static file, gzipped when the browser takes it (the style sheet holds back a page's first
/// paint: on a slow phone link its 38 KB take a fifth of a second, gzipped under a twentieth).
fn answer(req: &HttpRequest, content_type: &str, cache: &str, body: &'static str) -> HttpResponse {
    let mut res = HttpResponse::Ok();
    res.content_type(content_type)
        .insert_header(("Cache-Control", cache))
        .insert_header(("Vary", "Accept-Encoding"));
    if !takes_gzip(req) || body.len() < super::GZIP_FROM {
        return res.body(body);
    }
    let key = body.as_ptr() as usize;
    let packed = PACKED
        .lock()
        .ok()
        .and_then(|mut kept| match kept.get(&key) {
            Some(z) => Some(z.clone()),
            None => {
                let z = web::Bytes::from(super::gzipped(
                    body.as_bytes(),
                    flate2::Compression::best(),
                )?);
                kept.insert(key, z.clone());
                Some(z)
            }
        });
    match packed {
        Some(z) => res.insert_header(("Content-Encoding", "gzip")).body(z),
        None => res.body(body),
    }
}

fn file(req: &HttpRequest, content_type: &str, body: &'static str) -> HttpResponse {
    answer(req, content_type, "public, max-age=3600", body)
}

#[get("/static/style.css")]
async fn stylesheet(req: HttpRequest) -> HttpResponse {
    file(&req, "text/css; charset=utf-8", STYLE)
}

#[get("/static/card-print.css")]
async fn card_print_css(req: HttpRequest) -> HttpResponse {
    file(&req, "text/css; charset=utf-8", CARD_PRINT_CSS)
}

/// The scoring screen's modules import one another: each is asked for again on every load
/// (small; the service worker keeps them for offline), so after an upgrade a tablet never runs a
/// new module beside an old one kept by its HTTP cache.
fn module(req: &HttpRequest, body: &'static str) -> HttpResponse {
    answer(req, "text/javascript; charset=utf-8", "no-cache", body)
}

#[get("/static/score.js")]
async fn score_js(req: HttpRequest) -> HttpResponse {
    module(&req, SCORE_JS)
}

#[get("/static/score/{name}.js")]
async fn score_module(req: HttpRequest, name: web::Path<String>) -> HttpResponse {
    match SCORE_MODULES.iter().find(|(n, _)| *n == name.as_str()) {
        Some((_, body)) => module(&req, body),
        None => HttpResponse::NotFound().finish(),
    }
}

#[get("/static/copy.js")]
async fn copy_js(req: HttpRequest) -> HttpResponse {
    file(&req, "text/javascript; charset=utf-8", COPY_JS)
}

#[get("/static/tournament.js")]
async fn tournament_js(req: HttpRequest) -> HttpResponse {
    file(&req, "text/javascript; charset=utf-8", TOURNAMENT_JS)
}

#[get("/static/embed.js")]
async fn embed_js(req: HttpRequest) -> HttpResponse {
    file(&req, "text/javascript; charset=utf-8", EMBED_JS)
}

#[get("/static/keep.js")]
async fn keep_js(req: HttpRequest) -> HttpResponse {
    file(&req, "text/javascript; charset=utf-8", KEEP_JS)
}

/// The reply page's script: saves the answer a mailed link asked for.
#[get("/static/reply.js")]
async fn reply_js(req: HttpRequest) -> HttpResponse {
    file(&req, "text/javascript; charset=utf-8", REPLY_JS)
}

/// The league form's script: the fields of the kind and board chosen.
#[get("/static/league-form.js")]
async fn league_form_js(req: HttpRequest) -> HttpResponse {
    file(&req, "text/javascript; charset=utf-8", LEAGUE_FORM_JS)
}

/// The card editor's script: asked for again on every load, so an upgrade never leaves an
/// editor running an old script against a new API.
#[get("/static/card-editor.js")]
async fn card_editor_js(req: HttpRequest) -> HttpResponse {
    module(&req, CARD_EDITOR_JS)
}

#[get("/static/upload.js")]
async fn upload_js(req: HttpRequest) -> HttpResponse {
    file(&req, "text/javascript; charset=utf-8", UPLOAD_JS)
}

/// The scoring screen's service worker, at the root so it may serve the scoring pages. Never
/// cached by HTTP: a new version reaches tablets on their next visit.
#[get("/sw.js")]
async fn service_worker(req: HttpRequest) -> HttpResponse {
    answer(
        &req,
        "text/javascript; charset=utf-8",
        "no-cache",
        SERVICE_WORKER,
    )
}

pub fn configure(cfg: &mut web::ServiceConfig) {
    cfg.service(index)
        .service(create)
        .service(stylesheet)
        .service(score_js)
        .service(score_module)
        .service(upload_js)
        .service(card_editor_js)
        .service(card_print_css)
        .service(keep_js)
        .service(reply_js)
        .service(league_form_js)
        .service(copy_js)
        .service(tournament_js)
        .service(embed_js)
        .service(service_worker);
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every module under static/score/ is served, kept by the service worker and named by the
    /// page's module, and every import names a served module.
    #[test]
    fn every_scoring_module_is_served_and_kept_offline() {
        let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/static/score");
        let mut on_disk: Vec<String> = std::fs::read_dir(dir)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .filter_map(|n| n.strip_suffix(".js").map(str::to_string))
            .collect();
        on_disk.sort();
        let served: Vec<String> = SCORE_MODULES.iter().map(|(n, _)| n.to_string()).collect();
        assert_eq!(on_disk, served, "static/score/ and SCORE_MODULES differ");
        for (name, _) in SCORE_MODULES {
            let quoted = format!("\"{name}\"");
            assert!(
                SERVICE_WORKER.contains(&quoted),
                "sw.js does not keep {name}.js"
            );
            assert!(
                SCORE_JS.contains(&quoted),
                "score.js does not name {name}.js"
            );
        }
        for (name, body) in SCORE_MODULES.iter().chain([&("score", SCORE_JS)]) {
            for import in body.lines().filter_map(|l| l.split(" from \"").nth(1)) {
                let target = import.trim_end_matches("\";");
                let module = target
                    .strip_prefix("./score/")
                    .or_else(|| target.strip_prefix("./"))
                    .and_then(|m| m.strip_suffix(".js"))
                    .unwrap_or(target);
                assert!(
                    served.iter().any(|s| s == module),
                    "{name}.js imports {target}, which is not served"
                );
            }
        }
    }

    #[actix_web::test]
    async fn scoring_modules_are_served_as_javascript_and_asked_for_again() {
        use actix_web::{App, test};
        let app = test::init_service(App::new().service(score_js).service(score_module)).await;
        for path in ["/static/score.js", "/static/score/queue.js"] {
            let res =
                test::call_service(&app, test::TestRequest::get().uri(path).to_request()).await;
            assert_eq!(res.status(), 200, "{path}");
            let h = res.headers();
            assert_eq!(
                h.get("content-type").unwrap(),
                "text/javascript; charset=utf-8",
                "{path}"
            );
            assert_eq!(h.get("cache-control").unwrap(), "no-cache", "{path}");
        }
        let res = test::call_service(
            &app,
            test::TestRequest::get()
                .uri("/static/score/nope.js")
                .to_request(),
        )
        .await;
        assert_eq!(res.status(), 404);
    }
}
