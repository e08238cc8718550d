//! Log in, sign up, log out, and a forgotten password.

use actix_web::{HttpRequest, HttpResponse, get, post, web};
use askama::Template;
use serde::Deserialize;

use super::{Ctx, Flash, Page, Posted, redirect};
use crate::domain::accounts::{self, LogIn, NewPassword, ResetAsked, SignUp};
use crate::domain::{AppState, Error};
use crate::error::AppError;
use crate::http::{peer, session_cookie, session_removal, session_token};

#[derive(Template)]
#[template(path = "pages/login.html")]
struct LoginPage {
    ctx: Ctx,
    next: String,
}

#[derive(Template)]
#[template(path = "pages/signup.html")]
struct SignupPage {
    ctx: Ctx,
}

#[derive(Deserialize)]
struct Next {
    next: Option<String>,
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
    match accounts::authenticate(&state, login, peer(&req)).await {
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
    password: String,
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
        password: f.password,
    };
    match accounts::register(&state, sign_up, peer(&req)).await {
        Ok(session) => {
            let mut res = redirect(
                "/",
                Some(Flash {
                    ok: true,
                    text: format!(
                        "Welcome, {}. Create a club below, or ask an organizer to add you to theirs.",
                        session.user.display_name
                    ),
                }),
            );
            res.add_cookie(&session_cookie(&req, &session))
                .map_err(AppError::internal)?;
            Ok(res)
        }
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
    match accounts::ask_reset(&state.clone().into_inner(), asked, peer(&req)) {
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
    let (email, problem) = match accounts::reset_link(&state, &token).await {
        Ok(email) => (Some(email), String::new()),
        Err(e @ Error::NotFound(_)) => (None, e.message()),
        Err(e) => return Err(e.into()),
    };
    page.render(ResetPage {
        ctx: page.ctx.clone(),
        token: token.into_inner(),
        email,
        problem,
    })
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
        Ok(()) => Ok(redirect(
            "/login",
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

pub fn configure(cfg: &mut web::ServiceConfig) {
    cfg.service(forgot_form)
        .service(forgot)
        .service(reset_form)
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
