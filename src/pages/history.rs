//! History in, for organizers: a page to check and import a `games.csv` file and to set the
//! league's opening balances. A check or an import answers on the same page: what was (or
//! would be) stored, or each problem with its line and column.

use actix_multipart::Multipart;
use actix_web::{HttpRequest, HttpResponse, get, post, web};
use askama::Template;
use futures_util::StreamExt;

use super::{Ctx, Page, csrf};
use crate::domain::history::imports::{self, BalancesReport, IMPORT_LIMIT, ImportReport};
use crate::domain::seasons::leagues::League;
use crate::domain::{AppState, Error, FieldError};
use crate::error::AppError;

#[derive(Template)]
#[template(path = "pages/import.html")]
struct ImportPage {
    ctx: Ctx,
    league: League,
    /// The opening balances as a CSV to edit.
    balances_csv: String,
    balances_count: usize,
    /// Which form answered: `games` or `balances`.
    answered: &'static str,
    report: Option<ImportReport>,
    balances_report: Option<BalancesReport>,
    /// The refusal's summary and its problems, each with its line and column.
    refused: Option<String>,
    problems: Vec<FieldError>,
}

impl ImportPage {
    fn players(list: &[crate::domain::play::nights::PlayerRef]) -> String {
        list.iter()
            .map(|p| p.name.as_str())
            .collect::<Vec<_>>()
            .join(", ")
    }
}

async fn page_for(state: &AppState, page: &Page, league: League) -> Result<ImportPage, Error> {
    let balances = imports::balances(state, &page.caller, league.id).await?;
    let mut w = csv::Writer::from_writer(Vec::new());
    w.write_record(["player", "points", "games", "wins"])
        .map_err(Error::internal)?;
    for b in &balances {
        w.write_record([
            b.player.name.clone(),
            b.points.to_string(),
            b.games.to_string(),
            b.wins.to_string(),
        ])
        .map_err(Error::internal)?;
    }
    let balances_csv =
        String::from_utf8(w.into_inner().map_err(Error::internal)?).map_err(Error::internal)?;
    Ok(ImportPage {
        ctx: page.ctx.clone(),
        league,
        balances_csv,
        balances_count: balances.len(),
        answered: "",
        report: None,
        balances_report: None,
        refused: None,
        problems: Vec::new(),
    })
}

#[get("/leagues/{id}/import")]
async fn show(
    page: Page,
    state: web::Data<AppState>,
    id: web::Path<i64>,
) -> Result<HttpResponse, AppError> {
    let league = imports::importer(&state, &page.caller, *id).await?;
    page.render(page_for(&state, &page, league).await?)
}

/// The fields of a posted form: `csrf`, `form` (games or balances), `action` (check or
/// import), the games `file` and the `balances` text.
#[derive(Default)]
struct Sent {
    csrf: String,
    form: String,
    action: String,
    file: Vec<u8>,
    balances: Vec<u8>,
}

async fn read_form(mut multipart: Multipart) -> Result<Sent, AppError> {
    let mut sent = Sent::default();
    let mut total = 0usize;
    while let Some(field) = multipart.next().await {
        let mut field =
            field.map_err(|e| AppError::bad_request(format!("the form cannot be read: {e}")))?;
        let name = field.name().unwrap_or_default().to_string();
        let mut value = Vec::new();
        while let Some(chunk) = field.next().await {
            let chunk = chunk
                .map_err(|e| AppError::bad_request(format!("the form cannot be read: {e}")))?;
            total += chunk.len();
            if total > IMPORT_LIMIT {
                return Err(AppError::TooLarge(format!(
                    "the file is larger than the limit of {IMPORT_LIMIT} bytes; split it by nights"
                )));
            }
            value.extend_from_slice(&chunk);
        }
        let text = || String::from_utf8_lossy(&value).trim().to_string();
        match name.as_str() {
            "csrf" => sent.csrf = text(),
            "form" => sent.form = text(),
            "action" => sent.action = text(),
            "file" => sent.file = value,
            "balances" => sent.balances = value,
            _ => {}
        }
    }
    Ok(sent)
}

#[post("/leagues/{id}/import")]
async fn send(
    page: Page,
    req: HttpRequest,
    state: web::Data<AppState>,
    id: web::Path<i64>,
    multipart: Multipart,
) -> Result<HttpResponse, AppError> {
    // Who is sending is checked before the file is read.
    let league = imports::importer(&state, &page.caller, *id).await?;
    let _turn = imports::turn(&state)?;
    let sent = read_form(multipart).await?;
    let (seed, _) = csrf::seed(&req);
    if !csrf::verify(&state.keys, &seed, &sent.csrf) {
        return Err(Error::Forbidden(
            "this form has expired or came from another site; reload the page and send it again"
                .into(),
        )
        .into());
    }
    let dry_run = sent.action != "import";
    let mut answer = page_for(&state, &page, league.clone()).await?;
    let outcome = if sent.form == "balances" {
        answer.answered = "balances";
        imports::set_balances(&state, &league, &sent.balances, dry_run)
            .await
            .map(|r| answer.balances_report = Some(r))
    } else {
        answer.answered = "games";
        if sent.file.is_empty() {
            Err(Error::invalid(
                "file",
                "choose the games.csv file to import",
            ))
        } else {
            imports::games(&state, &page.caller, &league, &sent.file, dry_run)
                .await
                .map(|r| answer.report = Some(r))
        }
    };
    match outcome {
        Ok(()) => {}
        Err(Error::Invalid { detail, errors }) => {
            answer.refused = Some(detail);
            answer.problems = errors;
        }
        Err(e @ Error::Conflict(_)) => answer.refused = Some(e.message()),
        Err(e) => return Err(e.into()),
    }
    if !dry_run && answer.refused.is_none() {
        // The balances as they now stand.
        let fresh = page_for(&state, &page, league).await?;
        answer.balances_csv = fresh.balances_csv;
        answer.balances_count = fresh.balances_count;
    } else if sent.form == "balances" {
        // A check, or a refused save: the box keeps the text as it was sent, so what is saved
        // next is what was checked (never the stored balances again).
        answer.balances_csv = String::from_utf8_lossy(&sent.balances).replace("\r\n", "\n");
    }
    page.render(answer)
}

pub fn configure(cfg: &mut web::ServiceConfig) {
    cfg.service(show).service(send);
}
