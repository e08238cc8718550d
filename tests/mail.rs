//! Club mail through a real SMTP server (the suite's own, `common::smtp`): a forgotten password
//! reset through the mailed link, the same answer for unknown addresses, mail kept while the
//! SMTP server is away, and `.eml` files when no SMTP server is set.

mod common;

use std::time::Duration;

use common::smtp::SmtpSink;
use common::{PASSWORD, TestApp, csrf_of, signed_up, spawn_app_with, text_at};
use mahjong_league::config::Secret;
use serde_json::{Value, json};

async fn app_mailing_to(sink: &SmtpSink) -> TestApp {
    let url = sink.url();
    spawn_app_with(move |s| s.smtp_url = Some(Secret::new(url))).await
}

async fn ask_reset(app: &TestApp, email: &str) -> (u16, Value) {
    let res = reqwest::Client::new()
        .post(app.url("/api/v1/password-resets"))
        .json(&json!({ "email": email }))
        .send()
        .await
        .unwrap();
    (res.status().as_u16(), res.json().await.unwrap())
}

async fn log_in(app: &TestApp, client: &reqwest::Client, password: &str) -> u16 {
    client
        .post(app.url("/api/v1/session"))
        .json(&json!({ "email": "rose@example.org", "password": password }))
        .send()
        .await
        .unwrap()
        .status()
        .as_u16()
}

fn browser() -> reqwest::Client {
    common::browser_client()
}

#[tokio::test]
async fn a_forgotten_password_is_reset_through_the_mailed_link() {
    let sink = SmtpSink::start().await;
    let app = app_mailing_to(&sink).await;
    // Rose is logged in on two devices.
    let phone = signed_up(&app, "rose@example.org").await;
    let laptop = browser();
    assert_eq!(log_in(&app, &laptop, PASSWORD).await, 200);

    // An unknown address and a known one get the same answer; only the known one gets mail.
    let unknown = ask_reset(&app, "nobody@example.org").await;
    let known = ask_reset(&app, "ROSE@example.org").await;
    assert_eq!(unknown, known);
    assert_eq!(known.0, 202);
    assert!(
        known.1["message"]
            .as_str()
            .unwrap()
            .contains("within 60 minutes"),
        "{known:?}"
    );
    let got = sink.wait_for(1).await;
    common::passes(6).await;
    assert_eq!(sink.messages().len(), 1, "no mail for an unknown address");
    let mail = &got[0];
    assert_eq!(mail.to, ["rose@example.org"]);
    assert_eq!(mail.from, "league@example.org");
    let parsed = mail.parsed();
    assert_eq!(parsed.subject(), Some("Choose a new password"));
    assert!(
        parsed.header("List-Unsubscribe").is_none(),
        "sent to one person"
    );
    let text = mail.text();
    assert!(
        text.contains("rose@example.org") && text.contains("within 60 minutes"),
        "{text}"
    );
    assert!(mail.html().contains("Choose a new password</a>"));
    let link = mail.link("/reset/");
    assert!(link.starts_with(&app.address), "{link} is on the service");

    // The link, followed in a browser: the page names the account, and its form sets the
    // password.
    let browser = browser();
    let page = text_at(&browser, &link).await;
    assert!(page.contains("rose@example.org"), "{page}");
    let path = link.trim_start_matches(&app.address).to_string();
    let res = browser
        .post(&link)
        .form(&[
            ("csrf", csrf_of(&page).as_str()),
            ("password", "tiles and tea 2027"),
        ])
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), 303);
    assert_eq!(
        res.headers()["location"],
        "/login?email=rose%40example.org",
        "the login form keeps her address"
    );

    // The old password no longer works, the new one does, and both devices were logged out.
    for device in [&phone, &laptop] {
        let me = device.get(app.url("/api/v1/session")).send().await.unwrap();
        assert_eq!(me.status(), 401, "every other session ended");
    }
    assert_eq!(log_in(&app, &browser, PASSWORD).await, 401);
    assert_eq!(log_in(&app, &browser, "tiles and tea 2027").await, 200);

    // The link works once: the page and the API say so in words.
    let again = text_at(&browser, &link).await;
    assert!(again.contains("was used already"), "{again}");
    let token = path.trim_start_matches("/reset/");
    let res = reqwest::Client::new()
        .post(app.url(&format!("/api/v1/password-resets/{token}")))
        .json(&json!({ "password": "another long one" }))
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), 404);
    let problem: Value = res.json().await.unwrap();
    assert!(
        problem["detail"]
            .as_str()
            .unwrap()
            .contains("ask for a new one")
    );
}

#[tokio::test]
async fn resets_are_limited_per_email_whoever_asks_and_links_expire() {
    let sink = SmtpSink::start().await;
    let app = app_mailing_to(&sink).await;
    signed_up(&app, "rose@example.org").await;
    for _ in 0..3 {
        assert_eq!(ask_reset(&app, "rose@example.org").await.0, 202);
    }
    let (status, problem) = ask_reset(&app, "Rose@Example.org").await;
    assert_eq!(status, 429, "{problem}");
    assert!(
        problem["detail"]
            .as_str()
            .unwrap()
            .contains("for this email")
    );
    // The same for an address with no account: the limit tells nothing.
    for _ in 0..3 {
        assert_eq!(ask_reset(&app, "nobody@example.org").await.0, 202);
    }
    assert_eq!(ask_reset(&app, "nobody@example.org").await.0, 429);
    assert_eq!(ask_reset(&app, "not an address").await.0, 422);

    // A link older than an hour no longer works.
    let mails = sink.wait_for(3).await;
    sqlx::query("UPDATE password_resets SET expires_at = now() - interval '1 second'")
        .execute(&app.db)
        .await
        .unwrap();
    let link = mails[0].link("/reset/");
    let page = text_at(&browser(), &link).await;
    assert!(page.contains("more than 60 minutes old"), "{page}");
}

#[tokio::test]
async fn mail_written_while_the_smtp_server_is_away_arrives_once_when_it_is_back() {
    let mut sink = SmtpSink::start().await;
    sink.stop();
    let app = app_mailing_to(&sink).await;
    signed_up(&app, "rose@example.org").await;
    // Rose's account is made; the mail of her sign-up is not what this test follows.
    sqlx::query("DELETE FROM mail_outbox WHERE kind = 'signup'")
        .execute(&app.db)
        .await
        .unwrap();
    assert_eq!(ask_reset(&app, "rose@example.org").await.0, 202);
    // Tried, refused, kept with the reason.
    let mut tried = None;
    for _ in 0..100 {
        let row: Option<(String, i32, Option<String>)> = sqlx::query_as(
            "SELECT status, attempts, last_error FROM mail_outbox WHERE attempts > 0",
        )
        .fetch_optional(&app.db)
        .await
        .unwrap();
        if row.is_some() {
            tried = row;
            break;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    let (status, attempts, error) = tried.expect("a try while the server is away");
    assert_eq!((status.as_str(), attempts), ("pending", 1));
    assert!(error.is_some_and(|e| !e.is_empty()));
    assert!(sink.messages().is_empty());
    let metrics = app.get("/metrics").await.text().await.unwrap();
    assert!(
        metrics.contains("mahjong_mail_outbox{status=\"pending\"} 1"),
        "{metrics}"
    );

    // The server is back; the next try (its backoff cut short here) delivers it, once.
    sink.restart().await;
    sqlx::query("UPDATE mail_outbox SET retry_at = now()")
        .execute(&app.db)
        .await
        .unwrap();
    let got = sink.wait_for(1).await;
    assert_eq!(got[0].to, ["rose@example.org"]);
    common::passes(10).await;
    assert_eq!(sink.messages().len(), 1, "delivered once");
    let (status, attempts): (String, i32) =
        sqlx::query_as("SELECT status, attempts FROM mail_outbox")
            .fetch_one(&app.db)
            .await
            .unwrap();
    assert_eq!((status.as_str(), attempts), ("sent", 2));
    let metrics = app.get("/metrics").await.text().await.unwrap();
    assert!(
        metrics.contains("mahjong_mail_outbox{status=\"pending\"} 0"),
        "{metrics}"
    );
}

#[tokio::test]
async fn without_an_smtp_server_each_message_is_an_eml_file() {
    let dir = tempfile::tempdir().unwrap();
    let data_dir = dir.path().to_path_buf();
    let app = spawn_app_with(move |s| s.data_dir = data_dir).await;
    signed_up(&app, "rose@example.org").await;
    assert_eq!(ask_reset(&app, "rose@example.org").await.0, 202);
    let mail_dir = dir.path().join("mail");
    let mut file = None;
    for _ in 0..100 {
        if let Some(entry) = std::fs::read_dir(&mail_dir).ok().and_then(|d| {
            d.filter_map(Result::ok)
                .find(|e| e.path().to_string_lossy().ends_with("-password_reset.eml"))
        }) {
            file = Some(entry.path());
            break;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    let file = file.expect("the reset's .eml file in <data-dir>/mail");
    let bytes = std::fs::read(&file).unwrap();
    let parsed = mail_parser::MessageParser::default().parse(&bytes).unwrap();
    assert_eq!(
        parsed.to().unwrap().first().unwrap().address(),
        Some("rose@example.org")
    );
    let text = parsed.body_text(0).unwrap();
    assert!(text.contains(&format!("{}/reset/", app.address)), "{text}");
}

#[tokio::test]
async fn a_reset_asked_while_the_database_is_away_is_a_503_not_a_lost_mail() {
    let sink = SmtpSink::start().await;
    let app = app_mailing_to(&sink).await;
    signed_up(&app, "rose@example.org").await;
    common::database_away(&app, true).await;
    let res = tokio::time::timeout(
        Duration::from_secs(20),
        reqwest::Client::new()
            .post(app.url("/api/v1/password-resets"))
            .json(&json!({ "email": "rose@example.org" }))
            .send(),
    )
    .await
    .expect("answered")
    .unwrap();
    assert_eq!(res.status(), 503);
    assert!(res.headers().contains_key("retry-after"));
    common::database_away(&app, false).await;
    assert_eq!(ask_reset(&app, "rose@example.org").await.0, 202);
    let got = sink.wait_for(1).await;
    assert_eq!(got[0].to, ["rose@example.org"]);
}

/// Links a club's player to an account (as a claim an organizer approved would).
async fn link_player(app: &TestApp, player: i64, email: &str) {
    sqlx::query(
        "UPDATE players SET user_id = (SELECT id FROM users WHERE email = $2) WHERE id = $1",
    )
    .bind(player)
    .bind(email)
    .execute(&app.db)
    .await
    .unwrap();
}

#[tokio::test]
async fn after_a_night_its_players_get_their_night_and_stop_it_with_one_tap() {
    let sink = SmtpSink::start().await;
    let app = app_mailing_to(&sink).await;
    let owner = common::club_owner(&app, "tiles", "owner@example.org").await;
    let t = common::one_table(&app, &owner, "tiles", &["Ann", "Bea", "Cy", "Dot"]).await;
    signed_up(&app, "ann@example.org").await;
    signed_up(&app, "bea@example.org").await;
    link_player(&app, t.players[0], "ann@example.org").await;
    link_player(&app, t.players[1], "bea@example.org").await;
    // Bea (South) self-picks 2468#2 (25): she gets 150, everyone else pays 50.
    let res = owner
        .post(app.url(&format!("/api/v1/tables/{}/games", t.table)))
        .json(&json!({"outcome": "mahjong", "winner": t.players[1],
                      "hand": "F F 2B 2B J 2B 4C 4C 6C 6C 8B 8B J 8B", "won_by": "self_pick"}))
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), 201);
    let close = |night: i64| {
        owner
            .post(app.url(&format!("/api/v1/nights/{night}/close")))
            .send()
    };
    assert!(close(t.night).await.unwrap().status().is_success());

    // The two players with accounts get their night; Cy and Dot have none.
    let got = sink.wait_for(2).await;
    let bea = got
        .iter()
        .find(|m| m.to == ["bea@example.org"])
        .expect("Bea's mail");
    let ann = got
        .iter()
        .find(|m| m.to == ["ann@example.org"])
        .expect("Ann's mail");
    assert_eq!(bea.parsed().subject(), Some("L: night 1 results"));
    let text = bea.text();
    assert!(
        text.contains("You played 1 game and scored 150 points: 1st of 4 that night."),
        "{text}"
    );
    assert!(
        text.contains("In the standings you are 1st with 150 points."),
        "{text}"
    );
    assert!(
        ann.text().contains("scored -50 points: 2nd (shared) of 4"),
        "{}",
        ann.text()
    );
    assert!(bea.html().contains("See the standings"));
    // Her night in one line, and her season a tap away.
    assert!(
        text.contains("Your night: 1 win of 1, +150, 1st."),
        "{text}"
    );
    assert!(
        ann.text().contains("Your night: 0 wins of 1, −50, 2nd."),
        "{}",
        ann.text()
    );
    let season = format!("/leagues/{}/players/{}", t.league, t.players[1]);
    assert!(
        bea.html().contains(&season) && text.contains(&season),
        "{text}"
    );
    // Sent to many, so it carries a one-click unsubscribe (RFC 8058).
    let parsed = bea.parsed();
    let header = |name: &str| {
        parsed
            .header_raw(name)
            .unwrap_or_else(|| panic!("{name} in {}", String::from_utf8_lossy(&bea.data)))
            .trim()
            .to_string()
    };
    assert_eq!(
        header("List-Unsubscribe-Post"),
        "List-Unsubscribe=One-Click"
    );
    let stop = header("List-Unsubscribe");
    let stop = stop
        .trim_start_matches('<')
        .trim_end_matches('>')
        .to_string();
    assert!(
        stop.starts_with(&format!("{}/unsubscribe/", app.address)),
        "{stop}"
    );

    // A mail program's one-click POST, without cookies or form token: honoured at once.
    let res = reqwest::Client::new()
        .post(&stop)
        .header("Content-Type", "application/x-www-form-urlencoded")
        .body("List-Unsubscribe=One-Click")
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), 200);
    assert!(res.text().await.unwrap().contains("no more mail from"));
    // A forged link changes nothing, and is a 404 on the page as in the API.
    let forged = stop.replace("-", "-9");
    let res = reqwest::Client::new().post(&forged).send().await.unwrap();
    assert_eq!(res.status(), 404);
    assert!(
        res.text()
            .await
            .unwrap()
            .contains("not one the service wrote")
    );

    // Reopened and closed again: Ann gets her night again, Bea (stopped) does not.
    let res = owner
        .post(app.url(&format!("/api/v1/nights/{}/reopen", t.night)))
        .send()
        .await
        .unwrap();
    assert!(res.status().is_success());
    assert!(close(t.night).await.unwrap().status().is_success());
    let got = sink.wait_for(3).await;
    assert_eq!(got[2].to, ["ann@example.org"]);
    common::passes(6).await;
    assert_eq!(sink.messages().len(), 3, "nothing more for Bea");
    let club_id: Option<i64> =
        sqlx::query_scalar("SELECT club_id FROM mail_outbox WHERE kind = 'night_results' LIMIT 1")
            .fetch_one(&app.db)
            .await
            .unwrap();
    assert!(club_id.is_some(), "a club's mail is the club's");

    // The organizers see what the club sent and what became of it; a player does not.
    let log: Value = owner
        .get(app.url("/api/v1/clubs/tiles/mail"))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    let log = log["mail"].as_array().unwrap();
    assert_eq!(log.len(), 3, "{log:?}");
    assert!(
        log.iter()
            .all(|m| m["status"] == "sent" && m["subject"] == "L: night 1 results")
    );
    assert_eq!(log[0]["to"], "ann@example.org", "newest first");
    let page = text_at(&owner, &app.url("/clubs/tiles/members")).await;
    assert!(
        page.contains("Mail from the club") && page.contains("to bea@example.org"),
        "{page}"
    );
    let ann = reqwest::Client::builder()
        .cookie_store(true)
        .build()
        .unwrap();
    ann.post(app.url("/api/v1/session"))
        .json(&json!({"email": "ann@example.org", "password": PASSWORD}))
        .send()
        .await
        .unwrap();
    let res = ann
        .get(app.url("/api/v1/clubs/tiles/mail"))
        .send()
        .await
        .unwrap();
    assert!(
        matches!(res.status().as_u16(), 403 | 404),
        "{}",
        res.status()
    );
}

#[tokio::test]
async fn a_club_past_its_daily_mail_limit_waits_and_its_organizers_see_why() {
    let sink = SmtpSink::start().await;
    let url = sink.url();
    let app = spawn_app_with(move |s| {
        s.smtp_url = Some(Secret::new(url));
        s.mail_per_club_day = 1;
    })
    .await;
    let owner = common::club_owner(&app, "tiles", "owner@example.org").await;
    let t = common::one_table(&app, &owner, "tiles", &["Ann", "Bea", "Cy", "Dot"]).await;
    for (player, email) in [
        (t.players[0], "ann@example.org"),
        (t.players[1], "bea@example.org"),
    ] {
        signed_up(&app, email).await;
        link_player(&app, player, email).await;
    }
    let res = owner
        .post(app.url(&format!("/api/v1/tables/{}/games", t.table)))
        .json(&json!({"outcome": "wall"}))
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), 201);
    let res = owner
        .post(app.url(&format!("/api/v1/nights/{}/close", t.night)))
        .send()
        .await
        .unwrap();
    assert!(res.status().is_success());
    sink.wait_for(1).await;
    common::passes(10).await;
    assert_eq!(sink.messages().len(), 1, "one message a day for this club");
    let page = text_at(&owner, &app.url("/clubs/tiles/members")).await;
    assert!(
        page.contains(
            "the club has sent 1 messages in the last 24 hours, its limit: this one waits"
        ),
        "{page}"
    );
    // A password reset is no club's mail, and still goes.
    assert_eq!(ask_reset(&app, "ann@example.org").await.0, 202);
    sink.wait_for(2).await;
}
