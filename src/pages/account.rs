//! Log in, sign up, log out.

use actix_web::{HttpRequest, HttpResponse, get, post, web};
use askama::Template;
use serde::Deserialize;

use super::{Ctx, Flash, Page, Posted, redirect};
use crate::api::accounts::{self, LogIn, SignUp};
use crate::error::AppError;
use crate::startup::AppState;

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

/// Only paths of this site: never a redirect elsewhere.
fn local(next: Option<&str>) -> String {
    match next {
        Some(n) if n.starts_with('/') && !n.starts_with("//") && !n.contains('\\') => n.to_string(),
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
    let result = accounts::authenticate(
        &state,
        &req,
        LogIn {
            email: f.email,
            password: f.password,
        },
    )
    .await;
    match result {
        Ok((user, cookie)) => {
            let mut res = redirect(
                &next,
                Some(Flash {
                    ok: true,
                    text: format!("Welcome back, {}.", user.display_name),
                }),
            );
            res.add_cookie(&cookie)
                .map_err(|e| AppError::Internal(e.into()))?;
            Ok(res)
        }
        Err(e @ (AppError::Unauthorized(_) | AppError::TooManyRequests { .. })) => Ok(redirect(
            &format!("/login?next={}", super::urlencoding_encode(&next)),
            Some(Flash {
                ok: false,
                text: e.message(),
            }),
        )),
        Err(e) => Err(e),
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
    match accounts::register(&state, &req, sign_up).await {
        Ok((user, cookie)) => {
            let mut res = redirect(
                "/",
                Some(Flash {
                    ok: true,
                    text: format!(
                        "Welcome, {}. Create a club below, or ask an organizer to add you to theirs.",
                        user.display_name
                    ),
                }),
            );
            res.add_cookie(&cookie)
                .map_err(|e| AppError::Internal(e.into()))?;
            Ok(res)
        }
        Err(AppError::Internal(e)) => Err(AppError::Internal(e)),
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
    let gone = accounts::end_session(&state, &req).await?;
    let mut res = redirect(
        "/",
        Some(Flash {
            ok: true,
            text: "You are logged out.".into(),
        }),
    );
    res.add_cookie(&gone)
        .map_err(|e| AppError::Internal(e.into()))?;
    Ok(res)
}

pub fn configure(cfg: &mut web::ServiceConfig) {
    cfg.service(login_form)
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
    }
}
