//! A club's organizer pages: members and their roles, API tokens (each secret shown once), and
//! card uploads (a refused file comes back with every error at its line).

use actix_web::http::StatusCode;
use actix_web::{HttpResponse, get, post, web};
use askama::Template;
use serde::Deserialize;

use super::{Ctx, Flash, Page, Posted, after, redirect};
use crate::domain::cards::{self, CardUpload, StoredCard};
use crate::domain::clubs::Club;
use crate::domain::members::{
    self as membership, CreatedToken, Member, NewToken, Organized, SetRole, TokenInfo, organized,
};
use crate::domain::{AppState, Error};
use crate::error::{AppError, OwnBody};

#[derive(Template)]
#[template(path = "pages/members.html")]
struct MembersPage {
    ctx: Ctx,
    club: Club,
    members: Vec<Member>,
    /// Roles the viewer may give: owners may give every role, organizers all but owner.
    roles: Vec<&'static str>,
    /// The logged-in user, to mark their own row.
    me: i64,
    /// Members who said "this player is me": (player id, player, member's name, email).
    claims: Vec<(i64, String, String, String)>,
}

impl MembersPage {
    /// Whether the viewer may change this member (only owners touch owners).
    fn editable(&self, m: &Member) -> bool {
        m.role != "owner" || self.roles.contains(&"owner")
    }
}

#[get("/clubs/{slug}/members")]
async fn members(
    page: Page,
    state: web::Data<AppState>,
    slug: web::Path<String>,
) -> Result<HttpResponse, AppError> {
    let club = organized(&state, &page.caller, &slug).await?;
    let me = page.caller.user()?.id;
    let members = membership::of(&state, &club).await?;
    let claims = crate::domain::players::claims(&state, &club).await?;
    let roles = if club.owner() {
        vec!["owner", "organizer", "scorer", "member"]
    } else {
        vec!["organizer", "scorer", "member"]
    };
    page.render(MembersPage {
        ctx: page.ctx.clone(),
        club: club.club().clone(),
        members,
        roles,
        me,
        claims,
    })
}

#[derive(Deserialize)]
struct ClaimForm {
    /// `confirm` or `refuse`.
    answer: String,
}

/// An organizer confirms or refuses that a member is a player.
#[post("/clubs/{slug}/claims/{player}")]
async fn settle_claim(
    state: web::Data<AppState>,
    path: web::Path<(String, i64)>,
    posted: Posted<ClaimForm>,
) -> Result<HttpResponse, AppError> {
    let (slug, player) = path.into_inner();
    let result = crate::domain::players::settle_claim(
        &state,
        &posted.caller,
        &slug,
        player,
        posted.form.answer == "confirm",
    )
    .await;
    after(&format!("/clubs/{slug}/members#claims"), result)
}

#[derive(Deserialize)]
struct RoleForm {
    email: String,
    role: String,
}

#[post("/clubs/{slug}/members")]
async fn set_member(
    state: web::Data<AppState>,
    slug: web::Path<String>,
    posted: Posted<RoleForm>,
) -> Result<HttpResponse, AppError> {
    let RoleForm { email, role } = posted.form;
    let done = format!("{} is now {role}.", email.trim());
    let result = membership::set_role(&state, &posted.caller, &slug, SetRole { email, role })
        .await
        .map(|_| done);
    after(&format!("/clubs/{slug}/members"), result)
}

#[post("/clubs/{slug}/members/{user}/remove")]
async fn remove_member(
    state: web::Data<AppState>,
    path: web::Path<(String, i64)>,
    posted: Posted<serde::de::IgnoredAny>,
) -> Result<HttpResponse, AppError> {
    let (slug, user) = path.into_inner();
    let result = membership::remove(&state, &posted.caller, &slug, user)
        .await
        .map(|_| "Removed from the club.".to_string());
    after(&format!("/clubs/{slug}/members"), result)
}

#[derive(Template)]
#[template(path = "pages/tokens.html")]
struct TokensPage {
    ctx: Ctx,
    club: Club,
    tokens: Vec<TokenInfo>,
    /// A token just created, with its secret: this page is the only time it is shown.
    created: Option<CreatedToken>,
}

impl TokensPage {
    /// A moment in the club's time zone.
    fn at(&self, t: &chrono::DateTime<chrono::Utc>) -> String {
        super::view::local_time(*t, &self.club.time_zone)
    }
}

async fn tokens_page(
    page: &Page,
    state: &AppState,
    club: Organized,
    created: Option<CreatedToken>,
) -> Result<HttpResponse, AppError> {
    let tokens = membership::tokens_of(state, &club).await?;
    page.render(TokensPage {
        ctx: page.ctx.clone(),
        club: club.club().clone(),
        tokens,
        created,
    })
}

#[get("/clubs/{slug}/tokens")]
async fn tokens_list(
    page: Page,
    state: web::Data<AppState>,
    slug: web::Path<String>,
) -> Result<HttpResponse, AppError> {
    let club = organized(&state, &page.caller, &slug).await?;
    tokens_page(&page, &state, club, None).await
}

#[derive(Deserialize)]
struct TokenForm {
    name: String,
    #[serde(default)]
    scope: Vec<String>,
}

/// Creates a token and answers with the page itself (not a redirect), so the secret is never
/// kept anywhere — not in a cookie, not in a URL.
#[post("/clubs/{slug}/tokens")]
async fn tokens_create(
    page: Page,
    state: web::Data<AppState>,
    slug: web::Path<String>,
    posted: Posted<TokenForm>,
) -> Result<HttpResponse, AppError> {
    let TokenForm { name, scope } = posted.form;
    match membership::issue_token(
        &state,
        &posted.caller,
        &slug,
        NewToken {
            name,
            scopes: scope,
        },
    )
    .await
    {
        Ok(created) => {
            let club = organized(&state, &posted.caller, &slug).await?;
            tokens_page(&page, &state, club, Some(created)).await
        }
        Err(e) => after(&format!("/clubs/{slug}/tokens"), Err(e)),
    }
}

#[post("/clubs/{slug}/tokens/{id}/revoke")]
async fn tokens_revoke(
    state: web::Data<AppState>,
    path: web::Path<(String, i64)>,
    posted: Posted<serde::de::IgnoredAny>,
) -> Result<HttpResponse, AppError> {
    let (slug, id) = path.into_inner();
    let result = membership::revoke_token(&state, &posted.caller, &slug, id)
        .await
        .map(|_| "Token revoked: it no longer works.".to_string());
    after(&format!("/clubs/{slug}/tokens"), result)
}

/// One line of a refused card file, with the errors found on it.
struct SourceLine {
    number: usize,
    text: String,
    errors: Vec<String>,
}

/// An error of a refused card file, for the summary at the top.
struct CardProblem {
    line: Option<usize>,
    hand: Option<String>,
    message: String,
}

#[derive(Template)]
#[template(path = "pages/cards.html")]
struct CardsPage {
    ctx: Ctx,
    club: Club,
    cards: Vec<StoredCard>,
    /// The file sent back after a refusal, to fix and send again.
    source: String,
    public: bool,
    problems: Vec<CardProblem>,
    lines: Vec<SourceLine>,
}

async fn cards_page(
    page: &Page,
    state: &AppState,
    club: &Organized,
    refused: Option<(CardUpload, Vec<CardProblem>)>,
) -> Result<HttpResponse, AppError> {
    let cards = cards::uploaded(state, club).await?;
    let (source, public, problems) = match refused {
        Some((u, p)) => (u.source, u.public, p),
        None => (String::new(), false, Vec::new()),
    };
    let lines = if problems.is_empty() {
        Vec::new()
    } else {
        source
            .lines()
            .enumerate()
            .map(|(i, text)| SourceLine {
                number: i + 1,
                text: text.to_string(),
                errors: problems
                    .iter()
                    .filter(|p| p.line == Some(i + 1))
                    .map(|p| p.message.clone())
                    .collect(),
            })
            .collect()
    };
    page.render(CardsPage {
        ctx: page.ctx.clone(),
        club: club.club().clone(),
        cards,
        source,
        public,
        problems,
        lines,
    })
}

#[get("/clubs/{slug}/cards")]
async fn cards_list(
    page: Page,
    state: web::Data<AppState>,
    slug: web::Path<String>,
) -> Result<HttpResponse, AppError> {
    let club = organized(&state, &page.caller, &slug).await?;
    cards_page(&page, &state, &club, None).await
}

#[derive(Deserialize)]
struct CardForm {
    source: String,
    #[serde(default)]
    public: Option<String>,
}

#[post("/clubs/{slug}/cards")]
async fn cards_upload(
    page: Page,
    state: web::Data<AppState>,
    slug: web::Path<String>,
    posted: Posted<CardForm>,
) -> Result<HttpResponse, AppError> {
    let club = organized(&state, &posted.caller, &slug).await?;
    // Browsers send textarea line ends as CRLF; the card file's line numbers do not change.
    let upload = CardUpload {
        source: posted.form.source.replace("\r\n", "\n"),
        public: posted.form.public.is_some(),
    };
    match cards::store(&state, &club, &upload).await {
        Ok((stored, card)) => Ok(redirect(
            &format!("/cards/{}", stored.id),
            Some(Flash {
                ok: true,
                text: format!(
                    "{} {} uploaded: {} lines.",
                    card.name,
                    card.year,
                    card.lines.len()
                ),
            }),
        )),
        Err(Error::Invalid { detail, errors }) => {
            let problems = if errors.is_empty() {
                vec![CardProblem {
                    line: None,
                    hand: None,
                    message: detail,
                }]
            } else {
                errors
                    .into_iter()
                    .map(|e| CardProblem {
                        line: e.line,
                        hand: e.hand,
                        message: e.message,
                    })
                    .collect()
            };
            let mut res = cards_page(&page, &state, &club, Some((upload, problems))).await?;
            *res.status_mut() = StatusCode::UNPROCESSABLE_ENTITY;
            res.extensions_mut().insert(OwnBody);
            Ok(res)
        }
        Err(e) => after(&format!("/clubs/{slug}/cards"), Err(e)),
    }
}

pub fn configure(cfg: &mut web::ServiceConfig) {
    cfg.service(members)
        .service(settle_claim)
        .service(set_member)
        .service(remove_member)
        .service(tokens_list)
        .service(tokens_create)
        .service(tokens_revoke)
        .service(cards_list)
        .service(cards_upload);
}
