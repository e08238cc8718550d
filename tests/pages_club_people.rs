//! A club's people on one list, on the club's clock (issue 53), in a real Chromium as the club
//! uses it: the organizer on a tablet invites from the player list and sets the clock; members
//! on phones follow their mail from a real SMTP server, join as their players, say who they are,
//! and score with a table code while logged in; the organizer confirms from the mail in one tap
//! and starts check-in from the replies. Axe runs at 390 and 820 px.

#[path = "common/browser.rs"]
mod browser;
mod common;

use browser::*;
use common::smtp::SmtpSink;
use common::{PASSWORD, spawn_app_with};
use mahjong_league::config::Secret;
use serde_json::json;

async fn axe_clean(c: &fantoccini::Client, what: &str) {
    let (_, found) = axe(c).await;
    assert_eq!(found, json!([]), "axe on {what}");
}

async fn log_out(c: &fantoccini::Client) {
    click(c, "form[action='/logout'] button").await;
    wait_text(c, ".flash.ok", "You are logged out").await;
}

#[tokio::test]
async fn a_club_invites_from_its_player_list_members_join_as_their_players_and_score_with_a_code() {
    let sink = SmtpSink::start().await;
    let url = sink.url();
    let app = spawn_app_with(move |s| s.smtp_url = Some(Secret::new(url))).await;
    let owner = common::club_owner(&app, "maple", "owner@example.org").await;
    let t = common::one_table(&app, &owner, "maple", &["Mia Chen", "Rose", "Bea", "Dot"]).await;
    let (mia, rose) = (t.players[0], t.players[1]);
    let (_driver, c) = browser().await;

    // The organizer, on a tablet, invites Mia Chen from her row: open the row's invitation, tap
    // the address box and type, send.
    c.set_window_size(820, 1180).await.unwrap();
    log_in(
        &c,
        &app.address,
        "owner@example.org",
        PASSWORD,
        "/clubs/maple",
    )
    .await;
    wait_text(&c, &format!("#player-{mia}"), "Not linked to an account").await;
    let mut hands = Hands::new(&c);
    hands.tap(&format!("#player-{mia} summary")).await;
    hands
        .type_into(&format!("#invite-{mia}"), "mia@example.org")
        .await;
    hands
        .tap(&format!("#player-{mia} button[type=submit]"))
        .await;
    wait_text(
        &c,
        ".flash.ok",
        "An invitation for Mia Chen to join as member is on its way to mia@example.org",
    )
    .await;
    wait_text(
        &c,
        &format!("#player-{mia}"),
        "Invited (mia@example.org), not joined yet",
    )
    .await;
    assert_eq!((hands.taps, hands.scrolls), (3, 0));
    shots(&c, "club-roster").await;
    axe_clean(&c, "the club page with its player list, 820 px").await;

    // The club's clock: the organizer types the city, as people say it, and saves once.
    c.find(fantoccini::Locator::Css("#club-tz"))
        .await
        .unwrap()
        .clear()
        .await
        .unwrap();
    fill(&c, "#club-tz", "Chicago").await;
    click(&c, "#settings button[type=submit]").await;
    let said = wait_text(
        &c,
        ".flash.ok",
        "“Chicago” is Central Time (Chicago) (America/Chicago)",
    )
    .await;
    assert!(
        said.contains("maple's clock is Central Time (Chicago)") && !said.contains('`'),
        "{said}"
    );
    wait_text(&c, "main", "On the club's clock: Central Time (Chicago)").await;
    let field = c
        .find(fantoccini::Locator::Css("#club-tz"))
        .await
        .unwrap()
        .prop("value")
        .await
        .unwrap();
    assert_eq!(field.as_deref(), Some("America/Chicago"));
    shots(&c, "club-roster-tablet").await;
    log_out(&c).await;

    // Mia, on her phone, follows the mail: the page says whom she joins as.
    c.set_window_size(390, 844).await.unwrap();
    let mail = sink.wait_for(1).await.pop().unwrap();
    c.goto(&mail.link("/invitations/")).await.unwrap();
    wait_text(&c, "main", "You join as Mia Chen on the club's player list").await;
    axe_clean(&c, "the invitation naming its player, 390 px").await;
    fill(&c, "#display_name", "Mia").await;
    fill(&c, "#password", PASSWORD).await;
    click(&c, "form[action$='/account'] button[type=submit]").await;
    wait_text(&c, ".flash.ok", "You are Mia Chen on maple's player list").await;

    // Still logged in, she opens table 1's code from the QR link and scores it: one tap.
    let code = common::table_code(&app, &owner, t.night).await;
    c.goto(&app.url(&format!("/t/{}", code.replace('-', ""))))
        .await
        .unwrap();
    click(&c, "form[action='/code'] button").await;
    wait_text(&c, ".flash.ok", "This device scores table 1 tonight").await;
    wait_for(&c, "#score[data-table] .entry-modes:not([hidden])").await;
    assert!(
        !text_of(&c, "header").await.contains("Log in"),
        "nothing asks her to log in"
    );
    axe_clean(
        &c,
        "the scoring screen opened by a code while logged in, 390 px",
    )
    .await;
    c.goto(&app.url("/")).await.unwrap();
    wait_text(&c, "header", "Mia").await;
    log_out(&c).await;

    // Rose joins from a plain invitation and says she is the club's Rose.
    let res = owner
        .put(app.url("/api/v1/clubs/maple/members"))
        .json(&json!({"email": "rose@example.org", "role": "member"}))
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), 202);
    let got = sink.wait_for(2).await;
    let rose_mail = got.iter().find(|m| m.to == ["rose@example.org"]).unwrap();
    c.goto(&rose_mail.link("/invitations/")).await.unwrap();
    fill(&c, "#display_name", "Rose Adler").await;
    fill(&c, "#password", PASSWORD).await;
    c.find(fantoccini::Locator::Css("#new-player"))
        .await
        .unwrap()
        .select_by_value(&rose.to_string())
        .await
        .unwrap();
    axe_clean(&c, "the invitation with players to choose, 390 px").await;
    click(&c, "form[action$='/account'] button[type=submit]").await;
    wait_text(
        &c,
        ".flash.ok",
        "An organizer of maple confirms that you are Rose",
    )
    .await;
    log_out(&c).await;

    // The organizer confirms from the mail on the tablet, without logging in: one tap.
    c.set_window_size(820, 1180).await.unwrap();
    let got = sink.wait_for(3).await;
    let claim = got
        .iter()
        .find(|m| m.to == ["owner@example.org"])
        .expect("the organizer's mail");
    assert!(
        claim.text().contains("Rose Adler (rose@example.org)"),
        "{}",
        claim.text()
    );
    c.goto(&claim.link("/claims/")).await.unwrap();
    wait_text(&c, "h1", "Is the member Rose Adler the player Rose?").await;
    // What the organizer needs to decide is on the page.
    wait_text(&c, "#claim-facts", "Rose has played no games yet").await;
    wait_text(
        &c,
        "#claim-facts",
        "No invitation for Rose is waiting at another address",
    )
    .await;
    axe_clean(&c, "the claim's page, 820 px").await;
    let mut hands = Hands::new(&c);
    hands.tap("#claim button[value=confirm]").await;
    wait_text(&c, ".flash.ok", "Confirmed: Rose Adler is Rose").await;
    wait_text(&c, "main", "✓ Confirmed: Rose Adler is Rose.").await;
    assert_eq!(hands.taps, 1);

    // A night ahead: both say Coming; check-in starts with both checked in as their players.
    let date = (chrono::Utc::now() + chrono::Duration::days(5)).date_naive();
    let res = owner
        .post(app.url(&format!("/api/v1/leagues/{}/schedule", t.league)))
        .json(&json!({"date": date, "time": "19:00", "place": "Club room", "tables": 1}))
        .send()
        .await
        .unwrap();
    let id = res.json::<serde_json::Value>().await.unwrap()["id"]
        .as_i64()
        .unwrap();
    for email in ["mia@example.org", "rose@example.org"] {
        let phone = common::logged_in(&app, email, PASSWORD).await;
        let res = phone
            .put(app.url(&format!("/api/v1/scheduled-nights/{id}/reply")))
            .json(&json!({"answer": "coming"}))
            .send()
            .await
            .unwrap();
        assert_eq!(res.status(), 200, "{email} is coming");
    }
    log_in(
        &c,
        &app.address,
        "owner@example.org",
        PASSWORD,
        &format!("/ahead/{id}"),
    )
    .await;
    wait_text(&c, "#counts", "Coming: 2 of 4 seats").await;
    // Five days before the night: starting asks first.
    click(&c, "#start-early summary").await;
    click(&c, "form[action$='/start'] button").await;
    wait_text(&c, ".flash.ok", "2 coming are checked in").await;
    c.close().await.unwrap();
}
