//! A club's organizer pages: members and their roles, API tokens (each secret shown once) and the
//! websites they may be used from, and card uploads (a refused file comes back with every error
//! at its line).

use actix_web::http::StatusCode;
use actix_web::{HttpResponse, get, post, web};
use askama::Template;
use serde::Deserialize;

use super::{Ctx, Flash, Page, Posted, after, redirect};
use crate::domain::cards::library::{self as cards, CardUpload, StoredCard};
use crate::domain::people::clubs::{self, AllowedOrigins, Club, normal_origin};
use crate::domain::people::members::{
    self as membership, Added, CreatedToken, Invitation, Member, NewToken, Organized, SetRole,
    TokenInfo, organized,
};
use crate::domain::play::webhooks::{self, WebhookInfo};
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
    /// The club's latest mail, newest first.
    mail: Vec<crate::domain::outbox::mail::ClubMail>,
    /// Invitations not yet accepted or withdrawn.
    invited: Vec<Invitation>,
    now: chrono::DateTime<chrono::Utc>,
    /// The club's clock.
    clock: crate::domain::clock::Clock,
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
    let claims = crate::domain::people::players::claims(&state, &club).await?;
    let mail = crate::domain::outbox::mail::club_log(&state, &page.caller, &slug).await?;
    let invited = membership::invitations_of(&state, &club).await?;
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
        mail,
        invited,
        now: chrono::Utc::now(),
        clock: crate::domain::clock::Clock::of(&club.club().time_zone),
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
    let result = crate::domain::people::players::settle_claim(
        &state,
        &posted.caller,
        &slug,
        player,
        posted.form.answer == "confirm",
    )
    .await;
    after(&format!("/clubs/{slug}/members#claims"), result)
}

#[derive(Template)]
#[template(path = "pages/claim.html")]
struct ClaimPage {
    ctx: Ctx,
    /// The link's path, where its form posts.
    path: String,
    claim: Option<crate::domain::people::roster::ClaimView>,
    problem: String,
}

/// The page a claim's mail opens: who says they are whom, with Confirm and Refuse (the signed
/// link is the right; no login).
#[get("/claims/{player}/{user}/{signature}")]
async fn claim_link(
    page: Page,
    state: web::Data<AppState>,
    path: web::Path<(i64, i64, String)>,
) -> Result<HttpResponse, AppError> {
    let (player, user, signature) = path.into_inner();
    let (claim, problem) =
        match crate::domain::people::roster::claim_view(&state, player, user, &signature).await {
            Ok(c) => (Some(c), String::new()),
            Err(e @ Error::NotFound(_)) => (None, e.message()),
            Err(e) => return Err(e.into()),
        };
    page.render_as(
        super::found(&problem),
        ClaimPage {
            ctx: page.ctx.clone(),
            path: format!(
                "/claims/{player}/{user}/{}",
                super::urlencoding_encode(&signature)
            ),
            claim,
            problem,
        },
    )
}

#[post("/claims/{player}/{user}/{signature}")]
async fn claim_answer(
    state: web::Data<AppState>,
    path: web::Path<(i64, i64, String)>,
    posted: Posted<ClaimForm>,
) -> Result<HttpResponse, AppError> {
    let (player, user, signature) = path.into_inner();
    let result = crate::domain::people::roster::settle_signed(
        &state,
        player,
        user,
        &signature,
        posted.form.answer == "confirm",
    )
    .await;
    after(
        &format!(
            "/claims/{player}/{user}/{}",
            super::urlencoding_encode(&signature)
        ),
        result,
    )
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
    let address = email.trim().to_lowercase();
    let result = membership::set_role(&state, &posted.caller, &slug, SetRole { email, role })
        .await
        .map(|added| match added {
            // Said by the member's name, as the members list shows them.
            Added::Changed(list) => list
                .iter()
                .find(|m| m.email.to_lowercase() == address)
                .map(|m| {
                    format!(
                        "{} is now {}; they were told by mail.",
                        m.display_name, m.role
                    )
                })
                .unwrap_or_else(|| "The role is changed.".into()),
            Added::Invited(invited) => invited.message,
        });
    after(&format!("/clubs/{slug}/members"), result)
}

#[post("/clubs/{slug}/invitations/{id}/revoke")]
async fn revoke_invitation(
    state: web::Data<AppState>,
    path: web::Path<(String, i64)>,
    posted: Posted<serde::de::IgnoredAny>,
) -> Result<HttpResponse, AppError> {
    let (slug, id) = path.into_inner();
    let result = membership::revoke_invitation(&state, &posted.caller, &slug, id)
        .await
        .map(|i| {
            format!(
                "The invitation to {} is withdrawn: its link no longer works.",
                i.email
            )
        });
    after(&format!("/clubs/{slug}/members#invited"), result)
}

#[post("/clubs/{slug}/invitations/{id}/send-again")]
async fn send_invitation_again(
    state: web::Data<AppState>,
    path: web::Path<(String, i64)>,
    posted: Posted<serde::de::IgnoredAny>,
) -> Result<HttpResponse, AppError> {
    let (slug, id) = path.into_inner();
    let result = membership::send_invitation_again(&state, &posted.caller, &slug, id)
        .await
        .map(|i| i.message);
    after(&format!("/clubs/{slug}/members#invited"), result)
}

#[post("/clubs/{slug}/members/{user}/remove")]
async fn remove_member(
    state: web::Data<AppState>,
    path: web::Path<(String, i64)>,
    posted: Posted<serde::de::IgnoredAny>,
) -> Result<HttpResponse, AppError> {
    let (slug, user) = path.into_inner();
    let result = membership::remove(&state, &posted.caller, &slug, user).await;
    after(&format!("/clubs/{slug}/members"), result)
}

/// *Leave this club*, on the club's page (after a second tap that confirms it).
#[post("/clubs/{slug}/leave")]
async fn leave_club(
    state: web::Data<AppState>,
    slug: web::Path<String>,
    posted: Posted<serde::de::IgnoredAny>,
) -> Result<HttpResponse, AppError> {
    let me = posted.caller.user().map(|u| u.id).unwrap_or_default();
    match membership::remove(&state, &posted.caller, &slug, me).await {
        Ok(said) => after("/", Ok(said)),
        Err(e) => after(&format!("/clubs/{slug}"), Err(e)),
    }
}

#[derive(Template)]
#[template(path = "pages/tokens.html")]
struct TokensPage {
    ctx: Ctx,
    club: Club,
    tokens: Vec<TokenInfo>,
    /// A token just created, with its secret: this page is the only time it is shown.
    created: Option<CreatedToken>,
    /// The websites' box: the stored origins one per line, or what was sent when it was refused.
    websites: String,
    /// Why the websites sent were refused, naming the line.
    websites_error: Option<String>,
    /// The result of saving the websites, shown beside the box (not at the top of the page).
    websites_saved: Option<Flash>,
    /// The club's webhooks (added by apps through the API).
    webhooks: Vec<WebhookInfo>,
    /// The result of a webhook's test event, shown in the webhooks' section.
    webhook_tested: Option<Flash>,
}

impl TokensPage {
    /// A moment in the club's time zone.
    fn at(&self, t: &chrono::DateTime<chrono::Utc>) -> String {
        super::view::local_time(*t, &self.club.time_zone)
    }

    /// A webhook's state in words (never by colour alone).
    fn webhook_state(&self, w: &WebhookInfo) -> String {
        match (&w.paused_at, &w.failing_since) {
            (Some(at), _) => format!("Paused since {}: failing for a day", self.at(at)),
            (None, Some(since)) => {
                format!("Failing since {} ({} tries)", self.at(since), w.failures)
            }
            (None, None) => "Working".into(),
        }
    }
}

/// Which section of the tokens page a result belongs in.
#[derive(Clone, Copy, PartialEq)]
enum Saved {
    Nothing,
    Websites,
    Webhook,
}

/// What was typed in the websites' box, and why it was refused.
struct RefusedWebsites {
    text: String,
    error: String,
}

async fn tokens_page(
    page: &Page,
    state: &AppState,
    club: Organized,
    created: Option<CreatedToken>,
    refused: Option<RefusedWebsites>,
) -> Result<HttpResponse, AppError> {
    tokens_page_with(page, state, club, created, refused, Saved::Nothing).await
}

/// The tokens page; `saved`: the page's flash is the result of saving the websites or of a
/// webhook's test, so it is shown in that section, where the organizer is looking.
async fn tokens_page_with(
    page: &Page,
    state: &AppState,
    club: Organized,
    created: Option<CreatedToken>,
    refused: Option<RefusedWebsites>,
    saved: Saved,
) -> Result<HttpResponse, AppError> {
    let tokens = membership::tokens_of(state, &club).await?;
    let webhooks = webhooks::list(state, &page.caller, &club.club().slug).await?;
    let (websites, websites_error) = match refused {
        Some(r) => (r.text, Some(r.error)),
        None => {
            let stored = clubs::allowed_origins(state, &page.caller, &club.club().slug).await?;
            (stored.origins.join("\n"), None)
        }
    };
    let mut ctx = page.ctx.clone();
    let websites_saved = if saved == Saved::Websites {
        ctx.flash.take()
    } else {
        None
    };
    let webhook_tested = if saved == Saved::Webhook {
        ctx.flash.take()
    } else {
        None
    };
    page.render(TokensPage {
        ctx,
        club: club.club().clone(),
        tokens,
        created,
        websites,
        websites_error,
        websites_saved,
        webhooks,
        webhook_tested,
    })
}

#[derive(Deserialize)]
struct TokensQuery {
    /// `websites` after the websites were saved, `webhook` after a webhook's test.
    saved: Option<String>,
}

#[get("/clubs/{slug}/tokens")]
async fn tokens_list(
    page: Page,
    state: web::Data<AppState>,
    slug: web::Path<String>,
    query: web::Query<TokensQuery>,
) -> Result<HttpResponse, AppError> {
    let club = organized(&state, &page.caller, &slug).await?;
    let saved = match query.saved.as_deref() {
        Some("websites") => Saved::Websites,
        Some("webhook") => Saved::Webhook,
        _ => Saved::Nothing,
    };
    tokens_page_with(&page, &state, club, None, None, saved).await
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
            tokens_page(&page, &state, club, Some(created), None).await
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

/// Sends a webhook a test event and says, in the webhooks' section, what its receiver answered.
#[post("/clubs/{slug}/webhooks/{id}/test")]
async fn webhook_test(
    state: web::Data<AppState>,
    path: web::Path<(String, i64)>,
    posted: Posted<serde::de::IgnoredAny>,
) -> Result<HttpResponse, AppError> {
    let (slug, id) = path.into_inner();
    let result = webhooks::send_test(&state, &posted.caller, &slug, id)
        .await
        .and_then(|sent| match (sent.status, sent.error) {
            (Some(status), None) => Ok(format!(
                "Test event sent to {}: its receiver answered {status}, so it takes events.",
                sent.url
            )),
            (_, why) => Err(Error::Conflict(format!(
                "The test event did not reach {}: {}. Nothing else was sent.",
                sent.url,
                why.unwrap_or_else(|| "no answer".into())
            ))),
        });
    // The form was sent to `…#webhooks`: the browser keeps the fragment through the redirect.
    after(&format!("/clubs/{slug}/tokens?saved=webhook"), result)
}

#[derive(Deserialize)]
struct WebsitesForm {
    #[serde(default)]
    websites: String,
}

/// Saves the websites (origins) the club's tokens may be used from in a browser: one per line.
/// A line that is not an origin sends the page back with what was typed and the line named.
#[post("/clubs/{slug}/origins")]
async fn websites_save(
    page: Page,
    state: web::Data<AppState>,
    slug: web::Path<String>,
    posted: Posted<WebsitesForm>,
) -> Result<HttpResponse, AppError> {
    let text = posted.form.websites;
    let club = organized(&state, &posted.caller, &slug).await?;
    let lines: Vec<(usize, &str)> = text
        .lines()
        .enumerate()
        .map(|(i, l)| (i + 1, l.trim()))
        .filter(|(_, l)| !l.is_empty())
        .collect();
    let refusal = if lines.len() > clubs::MAX_ORIGINS {
        Some(format!(
            "{} websites listed; a club lists at most {}",
            lines.len(),
            clubs::MAX_ORIGINS
        ))
    } else {
        lines
            .iter()
            .find_map(|(n, l)| normal_origin(l).err().map(|why| format!("Line {n}: {why}")))
    };
    if let Some(error) = refusal {
        let mut res = tokens_page(
            &page,
            &state,
            club,
            None,
            Some(RefusedWebsites { text, error }),
        )
        .await?;
        *res.status_mut() = StatusCode::UNPROCESSABLE_ENTITY;
        res.extensions_mut().insert(OwnBody);
        return Ok(res);
    }
    let origins = lines.iter().map(|(_, l)| l.to_string()).collect();
    let result =
        clubs::set_allowed_origins(&state, &posted.caller, &slug, AllowedOrigins { origins })
            .await
            .map(|saved| match saved.origins.len() {
                0 => "No websites listed: tokens work from apps and servers, not from web pages."
                    .to_string(),
                1 => format!(
                    "Saved: {} may use this club's tokens from its pages.",
                    saved.origins[0]
                ),
                n => format!("Saved: {n} websites may use this club's tokens from their pages."),
            });
    // The form was sent to `…/origins#websites`: the browser keeps that fragment through the
    // redirect, so the page opens at the websites, with the result there.
    after(&format!("/clubs/{slug}/tokens?saved=websites"), result)
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
    /// The club's card files and drafts against its budget, in words.
    text_use: String,
}

async fn cards_page(
    page: &Page,
    state: &AppState,
    club: &Organized,
    refused: Option<(CardUpload, Vec<CardProblem>)>,
) -> Result<HttpResponse, AppError> {
    let cards = cards::latest(state, club).await?;
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
    let text_use = cards::text_use(state, club.club().id).await?.words();
    page.render(CardsPage {
        ctx: page.ctx.clone(),
        club: club.club().clone(),
        text_use,
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
        .service(revoke_invitation)
        .service(send_invitation_again)
        .service(settle_claim)
        .service(claim_link)
        .service(claim_answer)
        .service(set_member)
        .service(remove_member)
        .service(leave_club)
        .service(tokens_list)
        .service(tokens_create)
        .service(tokens_revoke)
        .service(webhook_test)
        .service(websites_save)
        .service(cards_list)
        .service(cards_upload);
}
