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

    // The login form keeps her email; the old password is refused, the new one logs in.
    let kept = c
        .find(fantoccini::Locator::Css("#email"))
        .await
        .unwrap()
        .prop("value")
        .await
        .unwrap();
    assert_eq!(kept.as_deref(), Some("rose@example.org"));
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
    // Sessions in words, on the account's clock.
    wait_text(&c, "main", "Chrome (headless) on Linux, since").await;
    let (_, found) = axe(&c).await;
    assert_eq!(found, serde_json::json!([]), "axe on /account");
    shots(&c, "account").await;
    c.close().await.unwrap();
}

async fn set_value(c: &fantoccini::Client, css: &str, value: &str) {
    c.execute(
        "document.querySelector(arguments[0]).value = arguments[1];",
        vec![serde_json::json!(css), serde_json::json!(value)],
    )
    .await
    .unwrap();
}

async fn axe_clean(c: &fantoccini::Client, what: &str) {
    let (_, found) = axe(c).await;
    assert_eq!(found, serde_json::json!([]), "axe on {what}");
}

/// The season ahead as its people live it: the owner invites Rose on a tablet; Rose joins from
/// the mail on her phone, signing up and saying which player she is; the owner schedules a
/// night; Rose answers the night's mail on her phone; the owner sees her coming and starts
/// check-in from the replies.
#[tokio::test]
async fn an_invited_member_joins_and_replies_to_a_night_ahead_on_a_phone() {
    let sink = SmtpSink::start().await;
    let url = sink.url();
    let app = spawn_app_with(move |s| s.smtp_url = Some(Secret::new(url))).await;
    let owner = common::club_owner(&app, "tiles", "owner@example.org").await;
    let t = common::one_table(&app, &owner, "tiles", &["Rose Adler", "Bea", "Cy", "Dot"]).await;
    let (_driver, c) = browser().await;

    // The owner invites Rose from the members page, on a tablet.
    c.set_window_size(820, 1180).await.unwrap();
    log_in(
        &c,
        &app.address,
        "owner@example.org",
        PASSWORD,
        "/clubs/tiles/members",
    )
    .await;
    fill(&c, "#member-email", "rose@example.org").await;
    c.find(fantoccini::Locator::Css("#member-role"))
        .await
        .unwrap()
        .select_by_value("member")
        .await
        .unwrap();
    click(&c, "#add-member button[type=submit]").await;
    wait_text(
        &c,
        ".flash.ok",
        "An invitation to join as member is on its way to rose@example.org",
    )
    .await;
    wait_text(&c, "#invited", "rose@example.org as member").await;
    click(&c, "form[action='/logout'] button").await;
    wait_text(&c, ".flash.ok", "You are logged out").await;

    // Rose opens the mail's link on her phone, signs up and says she is Rose Adler.
    c.set_window_size(390, 844).await.unwrap();
    let invitation = sink.wait_for(1).await[0].link("/invitations/");
    c.goto(&invitation).await.unwrap();
    wait_text(&c, "h1", "Join tiles").await;
    axe_clean(&c, "the invitation page").await;
    fill(&c, "#display_name", "Rose Adler").await;
    fill(&c, "#password", PASSWORD).await;
    c.find(fantoccini::Locator::Css("#new-player"))
        .await
        .unwrap()
        .select_by_value(&t.players[0].to_string())
        .await
        .unwrap();
    click(&c, "form[action$='/account'] button[type=submit]").await;
    wait_text(&c, ".flash.ok", "Welcome to tiles: you are a member.").await;
    click(&c, "form[action='/logout'] button").await;
    wait_text(&c, ".flash.ok", "You are logged out").await;

    // On the tablet, the owner confirms Rose is Rose Adler and schedules a night on the league
    // page.
    c.set_window_size(820, 1180).await.unwrap();
    log_in(
        &c,
        &app.address,
        "owner@example.org",
        PASSWORD,
        "/clubs/tiles/members",
    )
    .await;
    click(&c, "#claims button[value=confirm]").await;
    wait_text(&c, ".flash.ok", "Rose Adler").await;
    c.goto(&app.url(&format!("/leagues/{}", t.league)))
        .await
        .unwrap();
    click(&c, "#ahead summary").await;
    let date = (chrono::Utc::now() + chrono::Duration::days(6)).date_naive();
    set_value(&c, "#ahead-date", &date.to_string()).await;
    set_value(&c, "#ahead-time", "19:30").await;
    fill(&c, "#ahead-place", "Club room").await;
    set_value(&c, "#ahead-tables", "1").await;
    click(&c, "#schedule button[type=submit]").await;
    wait_text(&c, ".flash.ok", "the members are asked by mail").await;
    wait_text(&c, "#ahead", "Club room · 0 of 4 seats taken").await;
    axe_clean(&c, "the league page with a night ahead").await;
    click(&c, "form[action='/logout'] button").await;
    wait_text(&c, ".flash.ok", "You are logged out").await;

    // Rose taps Coming in the night's mail on her phone: that one tap saves it (the page's own
    // script posts it at once), and she could close the page there.
    c.set_window_size(390, 844).await.unwrap();
    let got = sink.wait_for(3).await;
    let mail = got
        .iter()
        .find(|m| m.to == ["rose@example.org"] && m.text().contains("Are you coming?"))
        .expect("the night's mail to Rose");
    assert!(
        mail.text()
            .contains("the page it opens saves your answer at once"),
        "{}",
        mail.text()
    );
    c.goto(&mail.link("answer=coming")).await.unwrap();
    wait_text(&c, ".flash.ok", "Saved: you are coming").await;
    wait_text(&c, "main", "Your answer now: Coming").await;
    wait_text(&c, "#change", "Change my answer").await;
    axe_clean(&c, "the reply page").await;
    shots(&c, "reply").await;
    let saved: String = sqlx::query_scalar("SELECT answer FROM night_replies LIMIT 1")
        .fetch_one(&app.db)
        .await
        .unwrap();
    assert_eq!(saved, "coming", "saved by the one tap in the mail");

    // The owner sees her coming and starts check-in from the replies.
    c.set_window_size(820, 1180).await.unwrap();
    let id: i64 = sqlx::query_scalar("SELECT id FROM scheduled_nights")
        .fetch_one(&app.db)
        .await
        .unwrap();
    log_in(
        &c,
        &app.address,
        "owner@example.org",
        PASSWORD,
        &format!("/ahead/{id}"),
    )
    .await;
    wait_text(&c, "#who", "Rose Adler").await;
    wait_text(&c, "#counts", "Coming: 1 of 4 seats").await;
    axe_clean(&c, "the night ahead's page").await;
    shots(&c, "ahead").await;
    // Days before the night, starting check-in says so and asks first.
    click(&c, "#start-early summary").await;
    let asks = wait_text(&c, "#start-early", "days early").await;
    assert!(
        asks.contains(" days.") && asks.contains("with the 1 who said coming so far"),
        "{asks}"
    );
    click(&c, "form[action$='/start'] button").await;
    wait_text(&c, ".flash.ok", "Night 2 is open: 1 coming is checked in.").await;
    c.close().await.unwrap();
}

/// `what` at a phone's and a tablet's width: axe finds nothing, and a screenshot of each is
/// kept in `target/screenshots/{name}-{width}.png` to look at.
async fn at_both_widths(c: &fantoccini::Client, name: &str, what: &str) {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("target/screenshots");
    std::fs::create_dir_all(&dir).unwrap();
    for (w, h) in [(390, 844), (820, 1180)] {
        c.set_window_size(w, h).await.unwrap();
        axe_clean(c, &format!("{what}, {w} px")).await;
        let png = c.screenshot().await.unwrap();
        std::fs::write(dir.join(format!("{name}-{w}.png")), png).unwrap();
    }
}

/// Issue 62's pages as their people meet them: a stranger stops the service's mail from the
/// invitation's link; an owner undoes an email change from the old address's mail; the club's
/// cards page says how much of its budget its cards and drafts use.
#[tokio::test]
async fn a_stranger_says_never_an_owner_undoes_a_change_and_the_cards_page_says_its_budget() {
    let sink = SmtpSink::start().await;
    let url = sink.url();
    let app = spawn_app_with(move |s| s.smtp_url = Some(Secret::new(url))).await;
    let owner = common::club_owner(&app, "elm", "owner@example.org").await;
    let res = owner
        .put(app.url("/api/v1/clubs/elm/members"))
        .json(&serde_json::json!({ "email": "stranger@example.net", "role": "member" }))
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), 202);
    let (_driver, c) = browser().await;

    // The stranger opens "never mail this address again" from the invitation.
    let invitation = sink.wait_for(1).await.pop().unwrap();
    c.goto(&invitation.link("/never/")).await.unwrap();
    wait_text(&c, "h1", "Never mail this address").await;
    at_both_widths(&c, "never", "the never page").await;
    click(&c, "form[action^='/never/'] button").await;
    wait_text(
        &c,
        "main",
        "Done: the service will not mail this address again",
    )
    .await;
    at_both_widths(&c, "never-done", "the never page, done").await;

    // The owner changes her address through the API and undoes it from the old mailbox.
    let res = owner
        .post(app.url("/api/v1/account/email"))
        .json(&serde_json::json!({ "email": "owner.new@example.org", "password": PASSWORD }))
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), 202);
    let confirm = sink
        .wait_for(2)
        .await
        .into_iter()
        .find(|m| m.to == ["owner.new@example.org"])
        .unwrap()
        .link("/account/email/");
    c.goto(&confirm).await.unwrap();
    click(&c, "main form button[type=submit]").await;
    let mut undo = None;
    for _ in 0..100 {
        undo = sink
            .messages()
            .into_iter()
            .find(|m| m.kind() == "email_changed");
        if undo.is_some() {
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
    }
    c.goto(
        &undo
            .expect("the old address is told")
            .link("/account/email/undo/"),
    )
    .await
    .unwrap();
    wait_text(&c, "main", "its password stops working").await;
    at_both_widths(&c, "email-undo", "the undo page").await;
    click(&c, "form[action^='/account/email/undo/'] button").await;
    wait_text(&c, ".flash.ok", "Its password no longer works").await;
    at_both_widths(&c, "email-undone", "the log-in page after an undo").await;

    // She chooses a new password from the mail, and her club's cards page shows its budget.
    let mut reset = None;
    for _ in 0..100 {
        reset = sink
            .messages()
            .into_iter()
            .find(|m| m.kind() == "email_undone");
        if reset.is_some() {
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
    }
    c.goto(&reset.expect("a link to choose it").link("/reset/"))
        .await
        .unwrap();
    fill(&c, "#password", "a new password of hers").await;
    click(&c, "form button[type=submit]").await;
    wait_text(&c, ".flash.ok", "Your new password is set").await;
    log_in(
        &c,
        &app.address,
        "owner@example.org",
        "a new password of hers",
        "/clubs/elm/cards",
    )
    .await;
    wait_text(&c, "#text-use", "Card files and drafts kept: 0 MB of 4 MB").await;
    at_both_widths(&c, "cards", "the club's cards page").await;
    c.close().await.unwrap();
}
