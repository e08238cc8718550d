//! A forgotten password on a phone, in a real headless Chromium: *Forgot your password?* from
//! the login page, the link from the mail the suite's own SMTP server received, a new password,
//! and a login with it; axe on each page.

#[path = "common/browser.rs"]
mod browser;
mod common;

use browser::*;
use common::smtp::SmtpSink;
use common::{PASSWORD, signed_up, spawn_app_with};
use mahjong_league::config::Secret;

#[tokio::test]
async fn a_forgotten_password_is_reset_on_a_phone_through_the_mailed_link() {
    let sink = SmtpSink::start().await;
    let url = sink.url();
    let app = spawn_app_with(move |s| s.smtp_url = Some(Secret::new(url))).await;
    signed_up(&app, "rose@example.org").await;
    let (_driver, c) = browser().await;
    c.set_window_size(390, 844).await.unwrap();

    c.goto(&app.url("/login")).await.unwrap();
    click(&c, "a[href='/forgot']").await;
    wait_text(&c, "h1", "Forgot your password?").await;
    let (_, found) = axe(&c).await;
    assert_eq!(found, serde_json::json!([]), "axe on /forgot");
    fill(&c, "#email", "rose@example.org").await;
    click(&c, "form[action='/forgot'] button[type=submit]").await;
    // The answer stays on screen, in words, as it would for any address.
    wait_text(&c, ".flash.ok", "If an account has this email").await;

    let mail = &sink.wait_for(1).await[0];
    let link = mail.link("/reset/");
    c.goto(&link).await.unwrap();
    wait_text(&c, "h1", "Choose a new password").await;
    assert!(text_of(&c, "main").await.contains("rose@example.org"));
    let (_, found) = axe(&c).await;
    assert_eq!(found, serde_json::json!([]), "axe on the reset page");
    fill(&c, "#password", "tiles and tea 2027").await;
    click(&c, "form button[type=submit]").await;
    wait_text(&c, ".flash.ok", "Your new password is set").await;

    // The old password is refused; the new one logs in.
    fill(&c, "#email", "rose@example.org").await;
    fill(&c, "#password", PASSWORD).await;
    click(&c, "form[action='/login'] button[type=submit]").await;
    wait_text(&c, ".flash.bad", "wrong email or password").await;
    log_in(
        &c,
        &app.address,
        "rose@example.org",
        "tiles and tea 2027",
        "/account",
    )
    .await;
    wait_text(&c, "h1", "Your account").await;
    let (_, found) = axe(&c).await;
    assert_eq!(found, serde_json::json!([]), "axe on /account");
    shots(&c, "account").await;
    c.close().await.unwrap();
}
