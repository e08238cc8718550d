//! Log in, sign up, log out, a forgotten password, and your account.

use actix_web::{HttpRequest, HttpResponse, get, post, web};
use askama::Template;
use serde::Deserialize;

use super::{Ctx, Flash, Page, Posted, redirect};
use crate::domain::people::accounts::{self, LogIn, NewPassword, ResetAsked, SignUp};
use crate::domain::people::invitations::{self, InvitationView, Joined, Joining, JoiningNew};
use crate::domain::people::your_account::{
    self, AccountView, EmailChange, Leaving, PasswordChange, Rename,
};
use crate::domain::{AppState, Error};
use crate::error::AppError;
use crate::http::{peer, session_cookie, session_removal, session_token, user_agent};

#[derive(Template)]
#[template(path = "pages/login.html")]
struct LoginPage {
    ctx: Ctx,
    next: String,
    email: String,
}

#[derive(Template)]
#[template(path = "pages/signup.html")]
struct SignupPage {
    ctx: Ctx,
}

#[derive(Deserialize)]
struct Next {
    next: Option<String>,
    /// The email to fill in (after a password was reset).
    email: Option<String>,
}

/// Only paths of this site: never a redirect elsewhere. A path with a control character or a
/// backslash, as sent or once percent-decoded, is refused: browsers drop tabs and newlines and
/// read `\\` as `/`, which would turn `/%09/evil.example` into `//evil.example`.
fn local(next: Option<&str>) -> String {
    let safe = |p: &str| {
        p.starts_with('/')
            && !p.starts_with("//")
            && !p.chars().any(|c| c.is_control() || c == '\\')
    };
    match next {
        Some(n) if safe(n) && safe(&super::urlencoding_decode(n)) => n.to_string(),
        _ => "/".to_string(),
    }
}

#[get("/login")]
async fn login_form(page: Page, q: web::Query<Next>) -> Result<HttpResponse, AppError> {
    page.render(LoginPage {
        ctx: page.ctx.clone(),
        next: local(q.next.as_deref()),
        email: q
            .email
            .as_deref()
            .filter(|e| e.len() <= 254)
            .unwrap_or_default()
            .to_string(),
    })
}

#[derive(Deserialize)]
struct LoginForm {
    email: String,
    password: String,
    next: Option<String>,
}

#[post("/login")]
async fn login(
    state: web::Data<AppState>,
    req: HttpRequest,
    posted: Posted<LoginForm>,
) -> Result<HttpResponse, AppError> {
    let f = posted.form;
    let next = local(f.next.as_deref());
    let login = LogIn {
        email: f.email,
        password: f.password,
    };
    match accounts::authenticate_patiently(&state, login, peer(&req), user_agent(&req)).await {
        Ok(session) => {
            let mut res = redirect(
                &next,
                Some(Flash {
                    ok: true,
                    text: format!("Welcome back, {}.", session.user.display_name),
                }),
            );
            res.add_cookie(&session_cookie(&req, &session))
                .map_err(AppError::internal)?;
            Ok(res)
        }
        Err(e @ (Error::Unauthorized(_) | Error::TooManyRequests { .. })) => Ok(redirect(
            &format!("/login?next={}", super::urlencoding_encode(&next)),
            Some(Flash {
                ok: false,
                text: e.message(),
            }),
        )),
        // Checked twice, a second apart, and still busy: said in words on the page, the
        // password not counted as wrong.
        Err(Error::Unavailable(why)) if why == crate::domain::BUSY_HASHING => {
            let mut res = redirect(
                &format!("/login?next={}", super::urlencoding_encode(&next)),
                Some(Flash {
                    ok: false,
                    text: "The service is busy: many people are logging in at this moment, and your password was not checked. Log in again in a few seconds.".into(),
                }),
            );
            res.headers_mut().insert(
                actix_web::http::header::RETRY_AFTER,
                actix_web::http::header::HeaderValue::from_static("2"),
            );
            Ok(res)
        }
        Err(e) => Err(e.into()),
    }
}

#[get("/signup")]
async fn signup_form(page: Page) -> Result<HttpResponse, AppError> {
    page.render(SignupPage {
        ctx: page.ctx.clone(),
    })
}

#[derive(Deserialize)]
struct SignupForm {
    email: String,
    display_name: String,
}

#[post("/signup")]
async fn signup(
    state: web::Data<AppState>,
    req: HttpRequest,
    posted: Posted<SignupForm>,
) -> Result<HttpResponse, AppError> {
    let f = posted.form;
    let sign_up = SignUp {
        email: f.email,
        display_name: f.display_name,
        password: None,
    };
    match accounts::register(&state, sign_up, peer(&req)).await {
        Ok(told) => Ok(redirect(
            "/signup",
            Some(Flash {
                ok: true,
                text: told.message,
            }),
        )),
        Err(e @ Error::Internal(_)) => Err(e.into()),
        Err(e) => Ok(redirect(
            "/signup",
            Some(Flash {
                ok: false,
                text: e.message(),
            }),
        )),
    }
}

#[derive(Template)]
#[template(path = "pages/signup_finish.html")]
struct SignupFinishPage {
    ctx: Ctx,
    token: String,
    /// (email, name) while the link works.
    named: Option<(String, String)>,
    problem: String,
}

#[get("/signup/{token}")]
async fn signup_finish_form(
    state: web::Data<AppState>,
    page: Page,
    token: web::Path<String>,
) -> Result<HttpResponse, AppError> {
    let (named, problem) = link_state(accounts::signup_link(&state, &token).await)?;
    page.render_as(
        super::found(&problem),
        SignupFinishPage {
            ctx: page.ctx.clone(),
            token: token.into_inner(),
            named,
            problem,
        },
    )
}

#[derive(Deserialize)]
struct ChooseForm {
    password: String,
}

#[post("/signup/{token}")]
async fn signup_finish(
    state: web::Data<AppState>,
    req: HttpRequest,
    token: web::Path<String>,
    posted: Posted<ChooseForm>,
) -> Result<HttpResponse, AppError> {
    let chosen = accounts::ChosenPassword {
        password: posted.form.password,
    };
    match accounts::finish_signup(&state, &token, chosen, peer(&req), user_agent(&req)).await {
        Ok(session) => {
            let mut res = redirect(
                "/",
                Some(Flash {
                    ok: true,
                    text: format!(
                        "Welcome, {}. Create a club below, or ask an organizer to invite you to theirs.",
                        session.user.display_name
                    ),
                }),
            );
            res.add_cookie(&session_cookie(&req, &session))
                .map_err(AppError::internal)?;
            Ok(res)
        }
        Err(e @ (Error::Internal(_) | Error::Unavailable(_))) => Err(e.into()),
        Err(e) => Ok(redirect(
            &format!("/signup/{}", super::urlencoding_encode(&token)),
            Some(Flash {
                ok: false,
                text: e.message(),
            }),
        )),
    }
}

#[post("/logout")]
async fn logout(
    state: web::Data<AppState>,
    req: HttpRequest,
    _posted: Posted<serde::de::IgnoredAny>,
) -> Result<HttpResponse, AppError> {
    accounts::end_session(&state, session_token(&req).as_deref()).await?;
    let mut res = redirect(
        "/",
        Some(Flash {
            ok: true,
            text: "You are logged out.".into(),
        }),
    );
    res.add_cookie(&session_removal())
        .map_err(AppError::internal)?;
    res.add_cookie(&crate::http::table_removal())
        .map_err(AppError::internal)?;
    res.headers_mut().insert(
        actix_web::http::header::HeaderName::from_static(crate::http::CLEAR_SITE_DATA.0),
        actix_web::http::header::HeaderValue::from_static(crate::http::CLEAR_SITE_DATA.1),
    );
    Ok(res)
}

#[derive(Template)]
#[template(path = "pages/invitation.html")]
struct InvitationPage {
    ctx: Ctx,
    token: String,
    view: Option<InvitationView>,
    problem: String,
    /// The logged-in account, if any.
    me: Option<crate::domain::people::accounts::User>,
}

#[get("/invitations/{token}")]
async fn invitation(
    state: web::Data<AppState>,
    page: Page,
    token: web::Path<String>,
) -> Result<HttpResponse, AppError> {
    let (view, problem) = link_state(invitations::show(&state, &token).await)?;
    page.render_as(
        super::found(&problem),
        InvitationPage {
            ctx: page.ctx.clone(),
            token: token.into_inner(),
            view,
            problem,
            me: page.caller.user().ok().cloned(),
        },
    )
}

#[derive(Deserialize)]
struct JoinForm {
    /// A player id, or "" for none.
    #[serde(default)]
    player: String,
}

/// The player chosen in a join form, and whether the new member plays: "" for the
/// invitation's player or a new one, "none" for staff who do not play, a refusal for anything
/// else not a number.
fn chosen(player: &str) -> Result<(Option<i64>, Option<bool>), Error> {
    match player.trim() {
        "" => Ok((None, None)),
        "none" => Ok((None, Some(false))),
        p => p
            .parse::<i64>()
            .map(|p| (Some(p), None))
            .map_err(|_| Error::invalid("player", "choose a player from the list")),
    }
}

/// What joining answers on a page: the club with a welcome, or the invitation page saying why not.
fn joined_page(token: &str, result: Result<Joined, Error>) -> Result<HttpResponse, AppError> {
    match result {
        Ok(j) => Ok(redirect(
            &format!("/clubs/{}", j.club),
            Some(Flash {
                ok: true,
                text: j.message,
            }),
        )),
        Err(e @ (Error::Internal(_) | Error::Unavailable(_))) => Err(e.into()),
        Err(e) => Ok(redirect(
            &format!("/invitations/{}", super::urlencoding_encode(token)),
            Some(Flash {
                ok: false,
                text: e.message(),
            }),
        )),
    }
}

#[post("/invitations/{token}")]
async fn join(
    state: web::Data<AppState>,
    token: web::Path<String>,
    posted: Posted<JoinForm>,
) -> Result<HttpResponse, AppError> {
    let result = match chosen(&posted.form.player) {
        Ok((player, plays)) => {
            invitations::join(&state, &posted.caller, &token, Joining { player, plays }).await
        }
        Err(e) => Err(e),
    };
    joined_page(&token, result)
}

#[derive(Deserialize)]
struct JoinNewForm {
    display_name: String,
    password: String,
    #[serde(default)]
    player: String,
}

#[post("/invitations/{token}/account")]
async fn join_new(
    state: web::Data<AppState>,
    req: HttpRequest,
    token: web::Path<String>,
    posted: Posted<JoinNewForm>,
) -> Result<HttpResponse, AppError> {
    let f = posted.form;
    let (player, plays) = match chosen(&f.player) {
        Ok(p) => p,
        Err(e) => return joined_page(&token, Err(e)),
    };
    let joining = JoiningNew {
        display_name: f.display_name,
        password: f.password,
        player,
        plays,
    };
    match invitations::join_new(&state, &token, joining, peer(&req), user_agent(&req)).await {
        Ok((session, joined)) => {
            let mut res = joined_page(&token, Ok(joined))?;
            res.add_cookie(&session_cookie(&req, &session))
                .map_err(AppError::internal)?;
            Ok(res)
        }
        Err(e) => joined_page(&token, Err(e)),
    }
}

/// What a mailed link's page shows: what the link names while it works, or why it does not.
fn link_state<T>(
    read: std::result::Result<T, Error>,
) -> std::result::Result<(Option<T>, String), AppError> {
    match read {
        Ok(named) => Ok((Some(named), String::new())),
        Err(e @ Error::NotFound(_)) => Ok((None, e.message())),
        Err(e) => Err(e.into()),
    }
}

#[derive(Template)]
#[template(path = "pages/forgot.html")]
struct ForgotPage {
    ctx: Ctx,
}

#[get("/forgot")]
async fn forgot_form(page: Page) -> Result<HttpResponse, AppError> {
    page.render(ForgotPage {
        ctx: page.ctx.clone(),
    })
}

#[derive(Deserialize)]
struct ForgotForm {
    email: String,
}

#[post("/forgot")]
async fn forgot(
    state: web::Data<AppState>,
    req: HttpRequest,
    posted: Posted<ForgotForm>,
) -> Result<HttpResponse, AppError> {
    let asked = ResetAsked {
        email: posted.form.email,
    };
    match accounts::ask_reset(&state, asked, peer(&req)).await {
        Ok(told) => Ok(redirect(
            "/forgot",
            Some(Flash {
                ok: true,
                text: told.message,
            }),
        )),
        Err(e @ Error::Internal(_)) => Err(e.into()),
        Err(e) => Ok(redirect(
            "/forgot",
            Some(Flash {
                ok: false,
                text: e.message(),
            }),
        )),
    }
}

#[derive(Template)]
#[template(path = "pages/reset.html")]
struct ResetPage {
    ctx: Ctx,
    token: String,
    /// The account's email while the link works.
    email: Option<String>,
    problem: String,
}

#[get("/reset/{token}")]
async fn reset_form(
    state: web::Data<AppState>,
    page: Page,
    token: web::Path<String>,
) -> Result<HttpResponse, AppError> {
    let (email, problem) = link_state(accounts::reset_link(&state, &token).await)?;
    page.render_as(
        super::found(&problem),
        ResetPage {
            ctx: page.ctx.clone(),
            token: token.into_inner(),
            email,
            problem,
        },
    )
}

#[derive(Deserialize)]
struct ResetForm {
    password: String,
}

#[post("/reset/{token}")]
async fn reset(
    state: web::Data<AppState>,
    req: HttpRequest,
    token: web::Path<String>,
    posted: Posted<ResetForm>,
) -> Result<HttpResponse, AppError> {
    let new = NewPassword {
        password: posted.form.password,
    };
    match accounts::reset_password(&state, &token, new, session_token(&req).as_deref()).await {
        Ok(email) => Ok(redirect(
            &format!("/login?email={}", super::urlencoding_encode(&email)),
            Some(Flash {
                ok: true,
                text: "Your new password is set, and every other device was logged out. Log in with it.".into(),
            }),
        )),
        Err(e @ Error::Internal(_)) => Err(e.into()),
        Err(e) => Ok(redirect(
            &format!("/reset/{}", super::urlencoding_encode(&token)),
            Some(Flash {
                ok: false,
                text: e.message(),
            }),
        )),
    }
}

#[derive(Template)]
#[template(path = "pages/account.html")]
struct AccountPage {
    ctx: Ctx,
    account: AccountView,
    /// The clubs the caller is the only owner of, in words ("" when none).
    only_owner: String,
    /// Every club of the caller's, in words.
    club_names: String,
    /// The clock times are shown on, and its zone's name.
    clock: crate::domain::clock::Clock,
    zone: String,
}

use crate::rules::words::listed;

#[get("/account")]
async fn account_page(
    state: web::Data<AppState>,
    page: Page,
    req: HttpRequest,
) -> Result<HttpResponse, AppError> {
    if page.caller.user().is_err() {
        return Ok(redirect("/login?next=/account", None));
    }
    let account = your_account::show(&state, &page.caller, session_token(&req).as_deref()).await?;
    let only: Vec<String> = account
        .clubs
        .iter()
        .filter(|c| c.only_owner)
        .map(|c| c.name.clone())
        .collect();
    let all: Vec<String> = account.clubs.iter().map(|c| c.name.clone()).collect();
    let (clock, zone) = your_account::clock_of(&state, account.id).await?;
    page.render(AccountPage {
        clock,
        zone,
        ctx: page.ctx.clone(),
        only_owner: listed(&only),
        club_names: listed(&all),
        account,
    })
}

/// Back to the account page, saying how an action went.
fn told(result: Result<String, Error>) -> Result<HttpResponse, AppError> {
    match result {
        Ok(text) => Ok(redirect("/account", Some(Flash { ok: true, text }))),
        Err(e @ Error::Internal(_)) => Err(e.into()),
        Err(e) => Ok(redirect(
            "/account",
            Some(Flash {
                ok: false,
                text: e.message(),
            }),
        )),
    }
}

#[derive(Deserialize)]
struct NameForm {
    display_name: String,
}

#[post("/account/name")]
async fn account_name(
    state: web::Data<AppState>,
    posted: Posted<NameForm>,
) -> Result<HttpResponse, AppError> {
    let name = posted.form.display_name.trim().to_string();
    let rename = Rename {
        display_name: posted.form.display_name,
    };
    told(
        your_account::rename(&state, &posted.caller, rename)
            .await
            .map(|()| format!("Your clubs now see you as {name}.")),
    )
}

#[derive(Deserialize)]
struct PasswordForm {
    current_password: String,
    new_password: String,
}

#[post("/account/password")]
async fn account_password(
    state: web::Data<AppState>,
    req: HttpRequest,
    posted: Posted<PasswordForm>,
) -> Result<HttpResponse, AppError> {
    let change = PasswordChange {
        current_password: posted.form.current_password,
        new_password: posted.form.new_password,
    };
    told(
        your_account::change_password(
            &state,
            &posted.caller,
            change,
            session_token(&req).as_deref(),
            peer(&req),
        )
        .await
        .map(|()| "Your password is changed, and every other device was logged out.".into()),
    )
}

#[derive(Deserialize)]
struct EmailForm {
    email: String,
    password: String,
}

#[post("/account/email")]
async fn account_email(
    state: web::Data<AppState>,
    req: HttpRequest,
    posted: Posted<EmailForm>,
) -> Result<HttpResponse, AppError> {
    let change = EmailChange {
        email: posted.form.email,
        password: posted.form.password,
    };
    told(
        your_account::change_email(&state, &posted.caller, change, peer(&req))
            .await
            .map(|t| t.message),
    )
}

#[derive(Template)]
#[template(path = "pages/account_email.html")]
struct EmailLinkPage {
    ctx: Ctx,
    token: String,
    email: Option<String>,
    problem: String,
}

#[derive(Template)]
#[template(path = "pages/account_email_undo.html")]
struct EmailUndoPage {
    ctx: Ctx,
    token: String,
    /// (the address the account gets back, the one it has) while the link works.
    addresses: Option<(String, String)>,
    problem: String,
}

#[get("/account/email/undo/{token}")]
async fn email_undo_link(
    state: web::Data<AppState>,
    page: Page,
    token: web::Path<String>,
) -> Result<HttpResponse, AppError> {
    let (addresses, problem) = link_state(your_account::undo_link(&state, &token).await)?;
    page.render_as(
        super::found(&problem),
        EmailUndoPage {
            ctx: page.ctx.clone(),
            token: token.into_inner(),
            addresses,
            problem,
        },
    )
}

#[post("/account/email/undo/{token}")]
async fn undo_email(
    state: web::Data<AppState>,
    token: web::Path<String>,
    _posted: Posted<serde::de::IgnoredAny>,
) -> Result<HttpResponse, AppError> {
    match your_account::undo_email(&state, &token).await {
        Ok(email) => {
            let mut res = redirect(
                "/login",
                Some(Flash {
                    ok: true,
                    text: format!(
                        "Your account uses {email} again, every device was logged out, and what it made since the change is revoked. Its password no longer works: a link to choose a new one is on its way to {email}."
                    ),
                }),
            );
            res.add_cookie(&session_removal())
                .map_err(AppError::internal)?;
            Ok(res)
        }
        Err(e @ (Error::Internal(_) | Error::Unavailable(_))) => Err(e.into()),
        Err(e) => Ok(redirect(
            &format!("/account/email/undo/{}", super::urlencoding_encode(&token)),
            Some(Flash {
                ok: false,
                text: e.message(),
            }),
        )),
    }
}

#[get("/account/email/{token}")]
async fn email_link(
    state: web::Data<AppState>,
    page: Page,
    token: web::Path<String>,
) -> Result<HttpResponse, AppError> {
    let (email, problem) = link_state(your_account::email_link(&state, &token).await)?;
    page.render_as(
        super::found(&problem),
        EmailLinkPage {
            ctx: page.ctx.clone(),
            token: token.into_inner(),
            email,
            problem,
        },
    )
}

#[post("/account/email/{token}")]
async fn confirm_email(
    state: web::Data<AppState>,
    token: web::Path<String>,
    _posted: Posted<serde::de::IgnoredAny>,
) -> Result<HttpResponse, AppError> {
    match your_account::confirm_email(&state, &token).await {
        Ok(email) => Ok(redirect(
            "/",
            Some(Flash {
                ok: true,
                text: format!("Your account now uses {email}: log in and get mail with it."),
            }),
        )),
        Err(e @ Error::Internal(_)) => Err(e.into()),
        Err(e) => Ok(redirect(
            &format!("/account/email/{}", super::urlencoding_encode(&token)),
            Some(Flash {
                ok: false,
                text: e.message(),
            }),
        )),
    }
}

#[post("/account/sessions/end")]
async fn end_other_sessions(
    state: web::Data<AppState>,
    req: HttpRequest,
    posted: Posted<serde::de::IgnoredAny>,
) -> Result<HttpResponse, AppError> {
    told(
        your_account::end_other_sessions(&state, &posted.caller, session_token(&req).as_deref())
            .await
            .map(|n| match n {
                0 => "You were logged in on this device only.".to_string(),
                1 => "Logged out on 1 other device.".to_string(),
                n => format!("Logged out on {n} other devices."),
            }),
    )
}

#[post("/account/sessions/{id}/end")]
async fn end_session(
    state: web::Data<AppState>,
    id: web::Path<i64>,
    posted: Posted<serde::de::IgnoredAny>,
) -> Result<HttpResponse, AppError> {
    told(
        your_account::end_session(&state, &posted.caller, *id)
            .await
            .map(|()| "That device is logged out.".into()),
    )
}

#[derive(Deserialize)]
struct LeaveForm {
    password: String,
}

#[post("/account/delete")]
async fn delete_account(
    state: web::Data<AppState>,
    req: HttpRequest,
    posted: Posted<LeaveForm>,
) -> Result<HttpResponse, AppError> {
    let leaving = Leaving {
        password: posted.form.password,
    };
    match your_account::leave(&state, &posted.caller, leaving, peer(&req)).await {
        Ok(()) => {
            let mut res = redirect(
                "/",
                Some(Flash {
                    ok: true,
                    text: "Your account is deleted.".into(),
                }),
            );
            res.add_cookie(&session_removal())
                .map_err(AppError::internal)?;
            Ok(res)
        }
        Err(e) => told(Err(e)),
    }
}

#[derive(Template)]
#[template(path = "pages/unsubscribe.html")]
struct UnsubscribePage {
    ctx: Ctx,
    token: String,
    league: Option<String>,
    done: bool,
    problem: String,
}

/// The page a mail's stop link opens: it asks first (a link opened by a mail scanner changes
/// nothing).
#[get("/unsubscribe/{token}")]
async fn unsubscribe_form(
    state: web::Data<AppState>,
    page: Page,
    token: web::Path<String>,
) -> Result<HttpResponse, AppError> {
    let (league, problem) =
        link_state(crate::domain::play::night_mail::unsubscribe_page(&state, &token).await)?;
    page.render_as(
        super::found(&problem),
        UnsubscribePage {
            ctx: page.ctx.clone(),
            token: token.into_inner(),
            league,
            done: false,
            problem,
        },
    )
}

/// Stops the league's mail at once: the page's button, and a mail program's one-click POST
/// (RFC 8058: `List-Unsubscribe=One-Click`, no cookies, so no form token; the signed link is
/// the authority).
#[post("/unsubscribe/{token}")]
async fn unsubscribe(
    state: web::Data<AppState>,
    page: Page,
    token: web::Path<String>,
) -> Result<HttpResponse, AppError> {
    let (league, problem) =
        link_state(crate::domain::play::night_mail::unsubscribe(&state, &token).await)?;
    page.render_as(
        super::found(&problem),
        UnsubscribePage {
            ctx: page.ctx.clone(),
            token: token.into_inner(),
            done: league.is_some(),
            league,
            problem,
        },
    )
}

#[derive(Template)]
#[template(path = "pages/never.html")]
struct NeverPage {
    ctx: Ctx,
    token: String,
    /// Whether the address had stopped such mail already; `None` when the link is not good.
    known: Option<bool>,
    done: bool,
    problem: String,
}

/// The page of a "never mail this address again" link: it asks first (a mail scanner that only
/// opens the link changes nothing).
#[get("/never/{token}")]
async fn never_form(
    state: web::Data<AppState>,
    page: Page,
    token: web::Path<String>,
) -> Result<HttpResponse, AppError> {
    let (known, problem) =
        link_state(crate::domain::people::budgets::never_page(&state, &token).await)?;
    page.render_as(
        super::found(&problem),
        NeverPage {
            ctx: page.ctx.clone(),
            token: token.into_inner(),
            known,
            done: false,
            problem,
        },
    )
}

/// Stops, at once, all mail others ask the service to send the address: the page's button and
/// a mail program's one-click POST (RFC 8058; the signed link is the authority).
#[post("/never/{token}")]
async fn never(
    state: web::Data<AppState>,
    page: Page,
    token: web::Path<String>,
) -> Result<HttpResponse, AppError> {
    let (done, problem) =
        link_state(crate::domain::people::budgets::never_mail(&state, &token).await)?;
    page.render_as(
        super::found(&problem),
        NeverPage {
            ctx: page.ctx.clone(),
            token: token.into_inner(),
            known: done.map(|()| true),
            done: done.is_some(),
            problem,
        },
    )
}

pub fn configure(cfg: &mut web::ServiceConfig) {
    cfg.service(unsubscribe_form)
        .service(unsubscribe)
        .service(never_form)
        .service(never)
        .service(account_page)
        .service(account_name)
        .service(account_password)
        .service(account_email)
        .service(email_undo_link)
        .service(undo_email)
        .service(email_link)
        .service(confirm_email)
        .service(end_other_sessions)
        .service(end_session)
        .service(delete_account)
        .service(forgot_form)
        .service(forgot)
        .service(reset_form)
        .service(signup_finish_form)
        .service(signup_finish)
        .service(invitation)
        .service(join)
        .service(join_new)
        .service(reset)
        .service(login_form)
        .service(login)
        .service(signup_form)
        .service(signup)
        .service(logout);
}

#[cfg(test)]
mod tests {
    use super::local;

    #[test]
    fn next_stays_on_this_site() {
        assert_eq!(local(Some("/leagues/3")), "/leagues/3");
        assert_eq!(local(Some("//evil.example")), "/");
        assert_eq!(local(Some("https://evil.example")), "/");
        assert_eq!(local(Some("/\\evil.example")), "/");
        assert_eq!(local(None), "/");
        assert_eq!(local(Some("/%09/evil.example")), "/");
        assert_eq!(local(Some("/\t/evil.example")), "/");
        assert_eq!(local(Some("/x\r\nSet-Cookie: a=b")), "/");
        assert_eq!(local(Some("/%5Cevil.example")), "/");
        assert_eq!(local(Some("/clubs/demo?x=1%202")), "/clubs/demo?x=1%202");
    }
}
