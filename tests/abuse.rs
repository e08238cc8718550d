//! No one turns the service against others (issue 51), tried as an attacker would, through real
//! HTTP and a real SMTP server: mail budgets kept in PostgreSQL (two instances give one budget),
//! invitations sent once, bounded email changes told to the old address and undone, wrong
//! passwords counted by every request that checks one, names that stay names, addresses that are
//! addresses, and consent before a match.

mod common;

use std::time::Duration;

use common::smtp::SmtpSink;
use common::{PASSWORD, TestApp, another_instance, club_owner, signed_up, spawn_app_with};
use mahjong_league::config::{Secret, Settings};
use serde_json::{Value, json};

async fn app_mailing_to(sink: &SmtpSink, change: impl FnOnce(&mut Settings)) -> TestApp {
    let url = sink.url();
    spawn_app_with(move |s| {
        s.smtp_url = Some(Secret::new(url));
        change(s);
    })
    .await
}

async fn send(req: reqwest::RequestBuilder) -> (u16, Option<u64>, Value) {
    let res = req.send().await.unwrap();
    let status = res.status().as_u16();
    let retry = res
        .headers()
        .get("retry-after")
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.parse().ok());
    let body = res.json().await.unwrap_or(Value::Null);
    (status, retry, body)
}

async fn invite(
    app: &TestApp,
    by: &reqwest::Client,
    club: &str,
    email: &str,
) -> (u16, Option<u64>, Value) {
    send(
        by.put(app.url(&format!("/api/v1/clubs/{club}/members")))
            .json(&json!({ "email": email, "role": "member" })),
    )
    .await
}

/// Opens a page a mailed link leads to and submits its one form, as a person taps its button
/// (the answer is a redirect with the outcome): the page as it was shown.
async fn submit_page(browser: &reqwest::Client, link: &str) -> String {
    let page = browser
        .get(link)
        .send()
        .await
        .unwrap()
        .text()
        .await
        .unwrap();
    let res = browser
        .post(link)
        .form(&[("csrf", common::csrf_of(&page))])
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), 303, "{link}");
    page
}

/// Waits (up to 20 s) until `n` messages of `kind` have arrived; answers every message.
async fn wait_kind(sink: &SmtpSink, kind: &str, n: usize) -> Vec<common::smtp::Received> {
    for _ in 0..200 {
        let got = sink.messages();
        if got.iter().filter(|m| m.kind() == kind).count() >= n {
            return got;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    panic!("fewer than {n} messages of kind {kind} arrived")
}

/// Sets the password through a reset link (its token, as the page's form does through the API).
async fn choose_password(app: &TestApp, link: &str, password: &str) {
    let token = link.rsplit("/reset/").next().unwrap();
    let res = reqwest::Client::new()
        .post(app.url(&format!("/api/v1/password-resets/{token}")))
        .json(&json!({ "password": password }))
        .send()
        .await
        .unwrap();
    assert_eq!(res.status().as_u16(), 204, "{link}");
}

async fn count(app: &TestApp, sql: &str) -> i64 {
    sqlx::query_scalar(sqlx::AssertSqlSafe(sql.to_string()))
        .fetch_one(&app.db)
        .await
        .unwrap()
}

/// One account reaches at most its budget of outside addresses in 24 hours, by invitations and
/// email changes together, across two instances of the service on one database; past it the
/// answer is 429 with Retry-After and words, and nothing is queued. An address reached already
/// costs nothing more; a new club a day is bounded too.
#[tokio::test]
async fn outside_addresses_are_one_budget_across_routes_and_instances() {
    let sink = SmtpSink::start().await;
    let app = app_mailing_to(&sink, |s| s.outside_mail_per_account_day = 4).await;
    let other = another_instance(&app, |s| s.outside_mail_per_account_day = 4).await;
    let owner = club_owner(&app, "one", "eve@example.org").await;
    // The same session on the second instance (its cookie works on both).
    let res = owner
        .post(other.url("/api/v1/clubs"))
        .json(&json!({ "slug": "two", "name": "Two" }))
        .send()
        .await
        .unwrap();
    assert_eq!(
        res.status(),
        201,
        "a second club, made through the other instance"
    );

    assert_eq!(
        invite(&app, &owner, "one", "a1@outside.example").await.0,
        202
    );
    assert_eq!(
        invite(&other, &owner, "two", "a2@outside.example").await.0,
        202
    );
    // The same address again, in the other club: no new address reached.
    assert_eq!(
        invite(&other, &owner, "two", "A1@outside.example").await.0,
        202
    );
    // An email change to a third outside address counts with the invitations.
    let (status, _, body) = send(
        owner
            .post(other.url("/api/v1/account/email"))
            .json(&json!({ "email": "a3@outside.example", "password": PASSWORD })),
    )
    .await;
    assert_eq!(status, 202, "{body}");
    assert_eq!(
        invite(&app, &owner, "one", "a4@outside.example").await.0,
        202
    );
    let queued = count(
        &app,
        "SELECT count(*) FROM mail_outbox WHERE kind IN ('invitation', 'email_change')",
    )
    .await;
    assert_eq!(queued, 5);

    // The fifth distinct address is refused, on either instance, by either route.
    for (status, retry, body) in [
        invite(&app, &owner, "one", "a5@outside.example").await,
        invite(&other, &owner, "two", "a5@outside.example").await,
        send(
            owner
                .post(app.url("/api/v1/account/email"))
                .json(&json!({ "email": "a6@outside.example", "password": PASSWORD })),
        )
        .await,
    ] {
        assert_eq!(status, 429, "{body}");
        let retry = retry.expect("Retry-After");
        assert!(retry > 23 * 3600 && retry <= 24 * 3600 + 1, "{retry}");
        let detail = body["detail"].as_str().unwrap();
        assert!(
            detail.contains("4 addresses") && detail.contains("nothing was sent"),
            "{detail}"
        );
    }
    assert_eq!(
        count(
            &app,
            "SELECT count(*) FROM mail_outbox WHERE kind IN ('invitation', 'email_change')"
        )
        .await,
        queued,
        "nothing queued past the budget"
    );
    assert_eq!(
        count(
            &app,
            "SELECT count(*) FROM invitations WHERE lower(email) = 'a5@outside.example'"
        )
        .await,
        0,
        "nothing stored past the budget"
    );

    // Clubs: 3 a day (two made above, one more, then 429).
    let make = |slug: &'static str| {
        let owner = &owner;
        let app = &app;
        async move {
            send(
                owner
                    .post(app.url("/api/v1/clubs"))
                    .json(&json!({ "slug": slug, "name": slug })),
            )
            .await
        }
    };
    assert_eq!(make("three").await.0, 201);
    let (status, retry, body) = make("four").await;
    assert_eq!(status, 429, "{body}");
    assert!(retry.is_some_and(|r| r > 23 * 3600), "{retry:?}");
    assert!(
        body["detail"].as_str().unwrap().contains("3 clubs"),
        "{body}"
    );
}

/// Inviting an address with a pending invitation (in any case) sends nothing; *Send again*
/// sends it once a day with a new link; a club's own day budget refuses past it with 429.
#[tokio::test]
async fn an_invitation_is_mailed_once_unless_sent_again_and_a_club_has_a_day_budget() {
    let sink = SmtpSink::start().await;
    let app = app_mailing_to(&sink, |s| s.mail_per_club_day = 3).await;
    let owner = club_owner(&app, "tiles", "ann@example.org").await;
    let (status, _, first) = invite(&app, &owner, "tiles", "rose@example.org").await;
    assert_eq!((status, first["sent"].as_bool()), (202, Some(true)));
    for email in ["rose@example.org", "ROSE@example.org", "Rose@Example.org"] {
        for _ in 0..10 {
            let (status, _, body) = invite(&app, &owner, "tiles", email).await;
            assert_eq!(status, 202);
            assert_eq!(body["sent"], false, "{body}");
            assert!(
                body["message"].as_str().unwrap().contains("Send again"),
                "{body}"
            );
        }
    }
    let got = sink.wait_for(1).await;
    tokio::time::sleep(Duration::from_millis(500)).await;
    assert_eq!(
        sink.messages().len(),
        1,
        "31 invitations of one address, one mail: {got:?}"
    );
    let first_link = sink.messages()[0].link("/invitations/");

    let id = first["invitation"]["id"].as_i64().unwrap();
    let again = app.url(&format!("/api/v1/clubs/tiles/invitations/{id}/send-again"));
    let (status, retry, body) = send(owner.post(&again)).await;
    assert_eq!(status, 429, "{body}");
    assert!(retry.is_some_and(|r| r > 23 * 3600), "{retry:?}");
    assert!(
        body["detail"].as_str().unwrap().contains("once a day"),
        "{body}"
    );
    // A day later, Send again mails a new link; the first one stops working.
    for sql in [
        "UPDATE invitations SET sent_at = now() - interval '25 hours'",
        "UPDATE address_mail SET at = at - interval '25 hours'",
    ] {
        sqlx::query(sql).execute(&app.db).await.unwrap();
    }
    let (status, _, body) = send(owner.post(&again)).await;
    assert_eq!(status, 202, "{body}");
    let got = sink.wait_for(2).await;
    let second_link = got[1].link("/invitations/");
    assert_ne!(first_link, second_link);
    let gone = common::browser_client()
        .get(&first_link)
        .send()
        .await
        .unwrap();
    assert_eq!(
        gone.status(),
        404,
        "the first link no longer works, and the page says so with 404"
    );
    assert!(gone.text().await.unwrap().contains("does not work"));
    let works = common::browser_client()
        .get(&second_link)
        .send()
        .await
        .unwrap();
    assert_eq!(works.status(), 200);

    // The club's budget: 3 messages a day (two written), so one more invitation, then 429.
    assert_eq!(
        invite(&app, &owner, "tiles", "bea@example.org").await.0,
        202
    );
    let (status, retry, body) = invite(&app, &owner, "tiles", "cy@example.org").await;
    assert_eq!(status, 429, "{body}");
    assert!(retry.is_some(), "Retry-After");
    assert!(
        body["detail"]
            .as_str()
            .unwrap()
            .contains("tiles has written 3 messages"),
        "{body}"
    );
    assert_eq!(
        count(
            &app,
            "SELECT count(*) FROM invitations WHERE email = 'cy@example.org'"
        )
        .await,
        0
    );
    // An operator raises the club's budget with a command.
    let bin = env!("CARGO_BIN_EXE_mahjong-league");
    let url = {
        let mut url = url::Url::parse(&std::env::var("TEST_DATABASE_URL").unwrap()).unwrap();
        let name = app.db.connect_options().get_database().unwrap().to_string();
        url.set_path(&format!("/{name}"));
        url.to_string()
    };
    let out = std::process::Command::new(bin)
        .args(["club", "mail-budget", "tiles", "10", "--database-url", &url])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(invite(&app, &owner, "tiles", "cy@example.org").await.0, 202);
}

/// Email changes: 3 an hour; a newer request ends every older link; once confirmed, the old
/// address is told with a link that undoes the change and ends every session; a password change
/// is told too. An address with an account gets a word, not a link, and the same answer.
#[tokio::test]
async fn email_changes_are_bounded_told_to_the_old_address_and_undone() {
    let sink = SmtpSink::start().await;
    let app = app_mailing_to(&sink, |_| {}).await;
    let rose = signed_up(&app, "rose@example.org").await;
    signed_up(&app, "taken@example.org").await;
    let change = |email: &'static str| {
        let rose = &rose;
        let app = &app;
        async move {
            send(
                rose.post(app.url("/api/v1/account/email"))
                    .json(&json!({ "email": email, "password": PASSWORD })),
            )
            .await
        }
    };
    let (s1, _, told_new) = change("rose.new@example.org").await;
    let (s2, _, told_taken) = change("taken@example.org").await;
    assert_eq!((s1, s2), (202, 202));
    assert_eq!(
        told_new["message"]
            .as_str()
            .unwrap()
            .replace("rose.new@example.org", "…"),
        told_taken["message"]
            .as_str()
            .unwrap()
            .replace("taken@example.org", "…"),
        "the same answer whether or not the address has an account"
    );
    let (s3, _, _) = change("rose.newer@example.org").await;
    assert_eq!(s3, 202);
    let (s4, retry, body) = change("rose.newest@example.org").await;
    assert_eq!(s4, 429, "{body}");
    assert!(retry.is_some_and(|r| r > 3000 && r <= 3601), "{retry:?}");

    let got = sink.wait_for(3).await;
    let to = |addr: &str| got.iter().find(|m| m.to == [addr]).cloned().unwrap();
    assert!(
        !to("taken@example.org").text().contains("/account/email/"),
        "no link to a taken address"
    );
    let older = to("rose.new@example.org").link("/account/email/");
    let newer = to("rose.newer@example.org").link("/account/email/");
    let browser = common::browser_client();
    let res = browser.get(&older).send().await.unwrap();
    assert_eq!(res.status(), 404, "a newer request ended the older link");
    submit_page(&browser, &newer).await;
    let me: Value = rose
        .get(app.url("/api/v1/session"))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(me["email"], "rose.newer@example.org");

    // The old address is told, with an undo link.
    let told = sink.wait_for(4).await;
    let notice = told
        .iter()
        .find(|m| m.to == ["rose@example.org"])
        .expect("the old address is told");
    assert!(
        notice.text().contains("rose.newer@example.org"),
        "{}",
        notice.text()
    );
    let undo = notice.link("/account/email/undo/");
    let page = submit_page(&browser, &undo).await;
    assert!(page.contains("rose@example.org"), "{page}");
    let res = rose.get(app.url("/api/v1/session")).send().await.unwrap();
    assert_eq!(res.status(), 401, "every session ended");
    let res = reqwest::Client::new()
        .post(app.url("/api/v1/session"))
        .json(&json!({ "email": "rose@example.org", "password": PASSWORD }))
        .send()
        .await
        .unwrap();
    assert_eq!(
        res.status(),
        401,
        "the password is chosen again after an undo"
    );
    assert_eq!(
        browser.get(&undo).send().await.unwrap().status(),
        404,
        "an undo works once"
    );
    // The restored address gets the link that chooses it.
    let got = wait_kind(&sink, "email_undone", 1).await;
    let undone = got.iter().find(|m| m.kind() == "email_undone").unwrap();
    assert_eq!(undone.to, ["rose@example.org"]);
    choose_password(&app, &undone.link("/reset/"), PASSWORD).await;
    // A password chosen through a reset link is told to the address, as a change is.
    let got = wait_kind(&sink, "password_changed", 1).await;
    let reset = got.iter().find(|m| m.kind() == "password_changed").unwrap();
    assert_eq!(reset.to, ["rose@example.org"]);
    let said = reset.text();
    assert!(
        said.starts_with("Hello")
            && said.contains("If this was not you")
            && said.contains("with a reset link mailed to this address"),
        "{said}"
    );

    // A password change is told to the address.
    let rose = common::logged_in(&app, "rose@example.org", PASSWORD).await;
    let res = rose
        .put(app.url("/api/v1/account/password"))
        .json(&json!({ "current_password": PASSWORD, "new_password": "another long password" }))
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), 204);
    let got = wait_kind(&sink, "password_changed", 2).await;
    let told = got
        .iter()
        .filter(|m| m.kind() == "password_changed")
        .nth(1)
        .expect("the password change is told");
    assert_eq!(told.to, ["rose@example.org"]);
}

/// Wrong current passwords on changing the password, the email or deleting the account count
/// with log in's: 5 from one address, then 429 with Retry-After on every one of them, log in too.
#[tokio::test]
async fn wrong_passwords_count_together_whichever_request_checks_them() {
    let app = spawn_app_with(|_| {}).await;
    let rose = signed_up(&app, "rose@example.org").await;
    let wrong = [
        rose.put(app.url("/api/v1/account/password")).json(
            &json!({ "current_password": "not it at all", "new_password": "a new long password" }),
        ),
        rose.post(app.url("/api/v1/account/email"))
            .json(&json!({ "email": "x@example.org", "password": "not it at all" })),
        rose.delete(app.url("/api/v1/account"))
            .json(&json!({ "password": "not it at all" })),
        rose.put(app.url("/api/v1/account/password")).json(
            &json!({ "current_password": "not it at all", "new_password": "a new long password" }),
        ),
        rose.delete(app.url("/api/v1/account"))
            .json(&json!({ "password": "not it at all" })),
    ];
    for req in wrong {
        assert_eq!(send(req).await.0, 422);
    }
    for req in [
        rose.delete(app.url("/api/v1/account"))
            .json(&json!({ "password": "not it at all" })),
        rose.put(app.url("/api/v1/account/password"))
            .json(&json!({ "current_password": PASSWORD, "new_password": "a new long password" })),
        reqwest::Client::new()
            .post(app.url("/api/v1/session"))
            .json(&json!({ "email": "rose@example.org", "password": PASSWORD })),
    ] {
        let (status, retry, body) = send(req).await;
        assert_eq!(status, 429, "{body}");
        assert!(retry.is_some_and(|r| (1..=61).contains(&r)), "{retry:?}");
        assert!(
            body["detail"].as_str().unwrap().contains("wrong passwords"),
            "{body}"
        );
    }
    let res = rose.get(app.url("/api/v1/account")).send().await.unwrap();
    assert_eq!(res.status(), 200, "the account is still there");
}

/// Names stay names: control characters and bidi controls are refused with 422 naming the field;
/// addresses are one mailbox; a name that reads like a header or holds a link stays inside its
/// line in the mail, and its link is not one.
#[tokio::test]
async fn names_stay_names_and_addresses_are_addresses() {
    let sink = SmtpSink::start().await;
    let app = app_mailing_to(&sink, |_| {}).await;
    let owner = club_owner(&app, "tiles", "ann@example.org").await;
    for (method, path, body, field) in [
        (
            "PATCH",
            "/api/v1/account",
            json!({ "display_name": "Ann\r\nBcc: all@example.org" }),
            "display_name",
        ),
        (
            "PATCH",
            "/api/v1/account",
            json!({ "display_name": "Ann\u{202E}gpj.exe" }),
            "display_name",
        ),
        (
            "POST",
            "/api/v1/clubs",
            json!({ "slug": "bidi", "name": "Maple\u{202E}" }),
            "name",
        ),
        (
            "POST",
            "/api/v1/clubs/tiles/leagues",
            json!({ "name": "Spring\nSubject: x", "card": "demo-2026", "ruleset": "nmjl-money" }),
            "name",
        ),
        (
            "POST",
            "/api/v1/users",
            json!({ "email": "z@example.org", "display_name": "Zed\u{2066}" }),
            "display_name",
        ),
    ] {
        let req = owner
            .request(method.parse().unwrap(), app.url(path))
            .json(&body);
        let (status, _, problem) = send(req).await;
        assert_eq!(status, 422, "{path} {body}: {problem}");
        assert_eq!(problem["errors"][0]["field"], field, "{problem}");
    }
    for bad in [
        "a@b@c.example",
        "v1@x.example,v2@x.example",
        "<v3@x.example>",
        "Rose <r@x.example>",
    ] {
        let (status, _, problem) = invite(&app, &owner, "tiles", bad).await;
        assert_eq!(status, 422, "{bad}: {problem}");
        assert_eq!(problem["errors"][0]["field"], "email");
    }
    assert_eq!(
        count(&app, "SELECT count(*) FROM invitations").await,
        0,
        "nothing stored"
    );
    assert_eq!(
        count(
            &app,
            "SELECT count(*) FROM mail_outbox WHERE kind = 'invitation'"
        )
        .await,
        0
    );

    // A name with no control character, but shaped like a header and a link.
    let res = owner
        .patch(app.url("/api/v1/account"))
        .json(&json!({ "display_name": "Bcc: all@example.org https://evil.example/login" }))
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), 204);
    assert_eq!(
        invite(&app, &owner, "tiles", "rose@example.org").await.0,
        202
    );
    let got = sink.wait_for(1).await;
    let text = got[0].text();
    for line in text.lines() {
        let lower = line.to_ascii_lowercase();
        assert!(
            !lower.starts_with("bcc:") && !lower.starts_with("subject:"),
            "{line:?} in\n{text}"
        );
    }
    assert!(!text.contains("https://evil.example"), "{text}");
    assert!(!got[0].html().contains("https://evil.example"));
    assert!(
        text.contains(&format!("{}/invitations/", app.address)),
        "the service's own link stays"
    );
}

/// A member who names three players proposes the match to them: it locks when each has
/// accepted (one tap from the mail, no login, or on the page), and all four are mailed then; no
/// game can be entered before; at most 5 such proposals wait at once. An organizer's locks at
/// once. Nights ahead are refused on an open-play league.
#[tokio::test]
async fn a_named_match_waits_for_each_players_consent() {
    let sink = SmtpSink::start().await;
    let app = app_mailing_to(&sink, |_| {}).await;
    let owner = club_owner(&app, "oak", "org@example.org").await;
    let league: Value = owner
        .post(app.url("/api/v1/clubs/oak/leagues"))
        .json(&json!({ "name": "Open play", "card": "demo-2026", "ruleset": "nmjl-money", "kind": "open" }))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    let league = league["id"].as_i64().unwrap();
    let emails = [
        "mia@example.org",
        "bea@example.org",
        "cy@example.org",
        "dot@example.org",
    ];
    let mut members = Vec::new();
    for e in emails {
        members.push(common::member_of(&app, &owner, "oak", e, "member").await);
    }
    // Each member's player (made when they first come to the league's matches).
    let mut players = Vec::new();
    for m in &members {
        let res: Value = m
            .post(app.url(&format!("/api/v1/leagues/{league}/matches")))
            .json(&json!({ "date": (chrono::Utc::now() + chrono::Duration::days(3)).date_naive(), "time": "19:00", "place": "Mia's" }))
            .send()
            .await
            .unwrap()
            .json()
            .await
            .unwrap();
        players.push(res["players"][0]["id"].as_i64().unwrap());
        let res = m
            .post(app.url(&format!("/api/v1/matches/{}/leave", res["id"])))
            .json(&json!({}))
            .send()
            .await
            .unwrap();
        assert_eq!(res.status(), 200);
    }
    let day = (chrono::Utc::now() + chrono::Duration::days(5)).date_naive();
    let propose = |n: usize| {
        let mia = &members[0];
        let app = &app;
        let others = players[1..].to_vec();
        async move {
            send(
                mia.post(app.url(&format!("/api/v1/leagues/{league}/matches")))
                    .json(&json!({ "date": day, "time": format!("1{n}:00"), "place": "Mia's", "players": others })),
            )
            .await
        }
    };
    let (status, _, m) = propose(0).await;
    assert_eq!(status, 201, "{m}");
    assert_eq!(m["status"], "forming", "{m}");
    assert_eq!(m["waiting_for"].as_array().unwrap().len(), 3);
    assert!(
        m["table"].is_null(),
        "no table, so no game can be entered before it locks"
    );
    let id = m["id"].as_i64().unwrap();

    // Each named player gets a mail with a one-tap link; Bea and Cy accept from it, no login.
    let got = wait_kind(&sink, "match_proposed", 3).await;
    let proposals: Vec<_> = got
        .iter()
        .filter(|m| m.kind() == "match_proposed")
        .collect();
    assert_eq!(proposals.len(), 3);
    let link_of = |to: &str| {
        proposals
            .iter()
            .find(|m| m.to == [to])
            .unwrap()
            .link("/accept/")
    };
    for who in ["bea@example.org", "cy@example.org"] {
        let browser = common::browser_client();
        let link = link_of(who);
        let page = submit_page(&browser, &link).await;
        assert!(page.contains("Accept: I play"), "{page}");
    }
    let now: Value = members[0]
        .get(app.url(&format!("/api/v1/matches/{id}")))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(now["status"], "forming");
    assert_eq!(now["waiting_for"][0]["id"], players[3]);
    assert!(
        sink.messages().iter().all(|m| m.kind() != "match"),
        "no mail that it is on yet"
    );
    // Dot accepts on the match's page (logged in): it locks and all four are mailed.
    let (status, _, locked) =
        send(members[3].post(app.url(&format!("/api/v1/matches/{id}/accept")))).await;
    assert_eq!(status, 200, "{locked}");
    assert_eq!(locked["status"], "locked");
    assert!(locked["table"].is_i64());
    let got = wait_kind(&sink, "match", 4).await;
    let on: Vec<_> = got.iter().filter(|m| m.kind() == "match").collect();
    assert_eq!(on.len(), 4, "all four are told it is on");

    // At most 5 proposals naming others wait at once.
    for n in 1..=5 {
        assert_eq!(propose(n).await.0, 201, "proposal {n}");
    }
    let (status, _, body) = propose(6).await;
    assert_eq!(status, 409, "{body}");
    assert!(
        body["detail"]
            .as_str()
            .unwrap()
            .contains("5 proposed matches"),
        "{body}"
    );

    // An organizer's named match locks at once.
    let res = owner
        .post(app.url(&format!("/api/v1/leagues/{league}/matches")))
        .json(
            &json!({ "date": day, "time": "20:30", "place": "Club room", "players": players[1..] }),
        )
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), 201);
    let made: Value = res.json().await.unwrap();
    assert_eq!(made["status"], "locked", "{made}");

    // Nights ahead are refused on open play.
    let (status, _, body) = send(
        owner
            .post(app.url(&format!("/api/v1/leagues/{league}/schedule")))
            .json(&json!({ "date": day, "time": "19:00", "place": "Club", "tables": 2 })),
    )
    .await;
    assert_eq!(status, 422, "{body}");
    assert!(
        body["detail"].as_str().unwrap().contains("open play"),
        "{body}"
    );
}

/// A sign-up cannot hold a password for an address its requester does not read: the link's
/// page asks for one. (The sign-up test in account.rs follows it to the end.)
#[tokio::test]
async fn finishing_a_sign_up_needs_the_password_chosen_at_the_link() {
    let app = spawn_app_with(|_| {}).await;
    let res = reqwest::Client::new()
        .post(app.url("/api/v1/users"))
        .json(&json!({ "email": "owner@example.org", "display_name": "Owner", "password": "the attacker's choice" }))
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), 202);
    // What is dropped is still bounded.
    let (status, _, problem) = send(reqwest::Client::new().post(app.url("/api/v1/users")).json(
        &json!({ "email": "x@example.org", "display_name": "X", "password": "p".repeat(1001) }),
    ))
    .await;
    assert_eq!(status, 422);
    assert_eq!(problem["errors"][0]["field"], "password");
    let link = common::wait_mailed_path(&app.db, "signup", "owner@example.org", "/signup/").await;
    let token = link.trim_start_matches("/signup/");
    let finish = |body: Value| {
        let app = &app;
        async move {
            send(
                reqwest::Client::new()
                    .post(app.url(&format!("/api/v1/sign-ups/{token}")))
                    .json(&body),
            )
            .await
        }
    };
    assert_eq!(finish(json!({})).await.0, 400, "a password is needed");
    assert_eq!(finish(json!({ "password": "short" })).await.0, 422);
    assert_eq!(
        finish(json!({ "password": "the owner's own choice" }))
            .await
            .0,
        201
    );
    let log_in = |password: &'static str| {
        let app = &app;
        async move {
            send(
                reqwest::Client::new()
                    .post(app.url("/api/v1/session"))
                    .json(&json!({ "email": "owner@example.org", "password": password })),
            )
            .await
            .0
        }
    };
    assert_eq!(log_in("the attacker's choice").await, 401);
    assert_eq!(log_in("the owner's own choice").await, 200);
}
