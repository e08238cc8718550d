//! Budgets that hold against loops (issue 62), tried as an attacker would, through real HTTP
//! and a real SMTP server, counting what reaches the victim: mail counted where it lands
//! (withdraw-and-invite again, many clubs, many accounts, two instances), a one-click "never mail
//! this address again", a member's proposals that cannot be multiplied by leaving, the club's
//! day kept for its organizers, an email undo that takes back what was made since, and claims
//! that cannot be squatted.

mod common;

use std::time::Duration;

use common::smtp::{Received, SmtpSink};
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

async fn invite(app: &TestApp, by: &reqwest::Client, club: &str, email: &str) -> (u16, Value) {
    let (status, _, body) = send(
        by.put(app.url(&format!("/api/v1/clubs/{club}/members")))
            .json(&json!({ "email": email, "role": "member" })),
    )
    .await;
    (status, body)
}

async fn make_club(app: &TestApp, owner: &reqwest::Client, slug: &str) {
    let res = owner
        .post(app.url("/api/v1/clubs"))
        .json(&json!({ "slug": slug, "name": slug }))
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), 201, "club {slug}");
}

/// The messages that reached `to`, once the outbox has nothing left to send.
async fn reached(app: &TestApp, sink: &SmtpSink, to: &str) -> Vec<Received> {
    for _ in 0..200 {
        let pending: i64 =
            sqlx::query_scalar("SELECT count(*) FROM mail_outbox WHERE status = 'pending'")
                .fetch_one(&app.db)
                .await
                .unwrap();
        if pending == 0 {
            break;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    sink.messages()
        .into_iter()
        .filter(|m| m.to.iter().any(|t| t.eq_ignore_ascii_case(to)))
        .collect()
}

/// The first message of `kind` to `to`, waiting (up to 10 s) for it.
async fn mailed(app: &TestApp, sink: &SmtpSink, to: &str, kind: &str) -> Received {
    for _ in 0..100 {
        if let Some(m) = reached(app, sink, to)
            .await
            .into_iter()
            .find(|m| m.kind() == kind)
        {
            return m;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    panic!("no {kind} mail reached {to}")
}

fn detail(body: &Value) -> &str {
    body["detail"].as_str().unwrap_or_default()
}

/// Moves every count of mail a day back, as if a day had gone by.
async fn a_day_later(app: &TestApp) {
    for sql in [
        "UPDATE address_mail SET at = at - interval '25 hours'",
        "UPDATE mail_outbox SET created_at = created_at - interval '25 hours'",
        "UPDATE outside_mail SET at = at - interval '25 hours'",
        "UPDATE invitations SET sent_at = sent_at - interval '25 hours'",
    ] {
        sqlx::query(sql).execute(&app.db).await.unwrap();
    }
}

/// Withdraw and invite again, from one club, from three clubs of one account, from another
/// account and through a second instance: the stranger's address gets one invitation a day from
/// a club and three mails a day in all; the one-click "never" in each stops them all, for every
/// club, until the address signs up.
#[tokio::test]
async fn mail_is_counted_where_it_lands_and_never_means_never() {
    let sink = SmtpSink::start().await;
    let app = app_mailing_to(&sink, |_| {}).await;
    let smtp = sink.url();
    let other = another_instance(&app, move |s| s.smtp_url = Some(Secret::new(smtp))).await;
    let victim = "victim@stranger.example";
    let eve = club_owner(&app, "one", "eve@example.org").await;

    let (status, first) = invite(&app, &eve, "one", victim).await;
    assert_eq!(status, 202, "{first}");
    mailed(&app, &sink, victim, "invitation").await;
    // The loop of issue 62: withdraw, invite again, on either instance.
    let mut refused = 0;
    for round in 0..30 {
        let id = sqlx::query_scalar::<_, i64>(
            "SELECT id FROM invitations WHERE lower(email) = $1 AND revoked_at IS NULL AND accepted_at IS NULL",
        )
        .bind(victim)
        .fetch_optional(&app.db)
        .await
        .unwrap();
        if let Some(id) = id {
            let res = eve
                .delete(app.url(&format!("/api/v1/clubs/one/invitations/{id}")))
                .send()
                .await
                .unwrap();
            assert!(res.status().is_success(), "withdrawn: {}", res.status());
        }
        let through = if round % 2 == 0 { &other } else { &app };
        let (status, retry, body) = send(
            eve.put(through.url("/api/v1/clubs/one/members"))
                .json(&json!({ "email": victim.to_uppercase(), "role": "member" })),
        )
        .await;
        assert_eq!(status, 429, "round {round}: {body}");
        let retry = retry.expect("Retry-After");
        assert!(retry > 23 * 3600 && retry <= 24 * 3600 + 1, "{retry}");
        assert!(
            detail(&body).contains("withdrawn since counts"),
            "{}",
            detail(&body)
        );
        refused += 1;
    }
    assert_eq!(refused, 30);

    // Other clubs of the same account, and another account: three mails a day in all.
    make_club(&app, &eve, "two").await;
    make_club(&other, &eve, "three").await;
    assert_eq!(invite(&other, &eve, "two", victim).await.0, 202);
    assert_eq!(invite(&app, &eve, "three", victim).await.0, 202);
    let mallory = club_owner(&app, "four", "mallory@example.org").await;
    let (status, body) = invite(&other, &mallory, "four", victim).await;
    assert_eq!(status, 429, "{body}");
    assert!(
        detail(&body).contains("has had 3 messages in the last 24 hours that others asked"),
        "{body}"
    );
    // An email change naming the address counts where it lands too, with the same refusal.
    let (status, _, body) = send(
        mallory
            .post(app.url("/api/v1/account/email"))
            .json(&json!({ "email": victim, "password": PASSWORD })),
    )
    .await;
    assert_eq!(status, 429, "{body}");

    let mut got = reached(&app, &sink, victim).await;
    for _ in 0..50 {
        if got.len() >= 3 {
            break;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
        got = reached(&app, &sink, victim).await;
    }
    assert_eq!(
        got.len(),
        3,
        "three mails reach the stranger: {:?} of {:?}",
        got.iter().map(|m| m.kind()).collect::<Vec<_>>(),
        sink.messages()
            .iter()
            .map(|m| (m.kind(), m.to.clone()))
            .collect::<Vec<_>>()
    );
    // Each carries the one-click "never mail this address again" (RFC 8058).
    for m in &got {
        let parsed = m.parsed();
        let header = parsed
            .header_raw("List-Unsubscribe")
            .expect("List-Unsubscribe");
        assert!(header.contains("/never/"), "{header}");
        assert_eq!(
            parsed.header_raw("List-Unsubscribe-Post").map(str::trim),
            Some("List-Unsubscribe=One-Click")
        );
        assert!(m.text().contains("/never/"), "{}", m.text());
    }
    let never = got[0].link("/never/");
    // Opening the link changes nothing; the mail program's one-click POST does, no cookies.
    let page = common::text_at(&common::browser_client(), &never).await;
    assert!(page.contains("Never mail this address again"), "{page}");
    let res = reqwest::Client::new()
        .post(&never)
        .header("content-type", "application/x-www-form-urlencoded")
        .body("List-Unsubscribe=One-Click")
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), 200);
    assert!(res.text().await.unwrap().contains("Done"));
    let forged = format!("{}0", never);
    let res = reqwest::Client::new().post(&forged).send().await.unwrap();
    assert_eq!(res.status(), 404, "a forged link changes nothing");

    // A day later: no club and no account mails the address any more.
    a_day_later(&app).await;
    let (status, body) = invite(&app, &mallory, "four", victim).await;
    assert_eq!(status, 422, "{body}");
    assert!(
        detail(&body).contains("asked the service never to mail it"),
        "{body}"
    );
    assert_eq!(body["errors"][0]["field"], "email", "{body}");
    let (status, _, body) = send(
        mallory
            .post(app.url("/api/v1/account/email"))
            .json(&json!({ "email": victim, "password": PASSWORD })),
    )
    .await;
    assert_eq!(status, 202, "the same answer as for any address: {body}");
    tokio::time::sleep(Duration::from_millis(500)).await;
    assert_eq!(reached(&app, &sink, victim).await.len(), 3, "nothing more");
    assert_eq!(
        sqlx::query_scalar::<_, i64>("SELECT count(*) FROM address_mail")
            .fetch_one(&app.db)
            .await
            .unwrap(),
        3,
        "the addresses are counted by digest, and nothing past the budget"
    );
    let kept: i64 = sqlx::query_scalar(
        "SELECT count(*) FROM address_mail a WHERE a.digest ILIKE '%victim%' \
         OR EXISTS (SELECT 1 FROM address_optouts o WHERE o.digest ILIKE '%stranger%')",
    )
    .fetch_one(&app.db)
    .await
    .unwrap();
    assert_eq!(kept, 0, "no address is kept in the counts");

    // Signing up with the address lifts it: the person chose the service.
    signed_up(&app, victim).await;
    assert_eq!(invite(&app, &mallory, "four", victim).await.0, 202);
}

/// Members of an open-play league, each with a player: (owner, league, members, players).
async fn open_play(
    app: &TestApp,
    slug: &str,
    emails: &[&str],
) -> (reqwest::Client, i64, Vec<reqwest::Client>, Vec<i64>) {
    let owner = club_owner(app, slug, &format!("owner@{slug}.example")).await;
    let league: Value = owner
        .post(app.url(&format!("/api/v1/clubs/{slug}/leagues")))
        .json(&json!({ "name": "Open play", "card": "demo-2026", "ruleset": "nmjl-money", "kind": "open" }))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    let league = league["id"].as_i64().unwrap();
    let mut members = Vec::new();
    let mut players = Vec::new();
    for e in emails {
        let m = common::member_of(app, &owner, slug, e, "member").await;
        let day = (chrono::Utc::now() + chrono::Duration::days(3)).date_naive();
        let (status, _, made) = send(
            m.post(app.url(&format!("/api/v1/leagues/{league}/matches")))
                .json(&json!({ "date": day, "time": "19:00", "place": "Home" })),
        )
        .await;
        assert_eq!(status, 201, "{made}");
        players.push(made["players"][0]["id"].as_i64().unwrap());
        let res = m
            .post(app.url(&format!("/api/v1/matches/{}/leave", made["id"])))
            .json(&json!({}))
            .send()
            .await
            .unwrap();
        assert_eq!(res.status(), 200);
        members.push(m);
    }
    (owner, league, members, players)
}

async fn propose(
    app: &TestApp,
    who: &reqwest::Client,
    league: i64,
    players: &[i64],
    hour: u32,
) -> (u16, Option<u64>, Value) {
    let day = (chrono::Utc::now() + chrono::Duration::days(5)).date_naive();
    send(
        who.post(app.url(&format!("/api/v1/leagues/{league}/matches")))
            .json(&json!({ "date": day, "time": format!("{:02}:00", hour % 24), "place": "Mia's", "players": players })),
    )
    .await
}

/// Propose naming three, leave, again and again: the three get one mail, each proposal left is
/// ended, and a member's proposals to others stop at her day's budget.
#[tokio::test]
async fn proposing_and_leaving_mails_the_same_people_once_and_a_member_keeps_to_her_day() {
    let sink = SmtpSink::start().await;
    let app = app_mailing_to(&sink, |s| s.member_mail_per_day = 5).await;
    let emails = [
        "mia@oak.example",
        "bea@oak.example",
        "cy@oak.example",
        "dot@oak.example",
        "eve@oak.example",
        "fay@oak.example",
        "gus@oak.example",
    ];
    let (_owner, league, members, players) = open_play(&app, "oak", &emails).await;
    let mia = &members[0];
    for round in 0..40 {
        let (status, _, m) = propose(&app, mia, league, &players[1..4], round).await;
        assert_eq!(status, 201, "round {round}: {m}");
        let (status, _, left) = send(
            mia.post(app.url(&format!("/api/v1/matches/{}/leave", m["id"])))
                .json(&json!({})),
        )
        .await;
        assert_eq!(status, 200, "{left}");
        assert_eq!(left["status"], "cancelled", "leaving your proposal ends it");
    }
    for to in &emails[1..4] {
        let got: Vec<_> = reached(&app, &sink, to)
            .await
            .into_iter()
            .filter(|m| m.kind() == "match_proposed")
            .collect();
        assert_eq!(got.len(), 1, "{to} is asked once in forty proposals");
    }
    // Three others: three more mails would pass her day of 5 (3 spent): refused, nothing stored.
    let before: i64 = sqlx::query_scalar("SELECT count(*) FROM matches")
        .fetch_one(&app.db)
        .await
        .unwrap();
    let (status, retry, body) = propose(&app, mia, league, &players[4..7], 1).await;
    assert_eq!(status, 429, "{body}");
    assert!(retry.is_some_and(|r| r > 23 * 3600), "{retry:?}");
    assert!(
        detail(&body).contains("had the service mail 3 people")
            && detail(&body).contains("may reach 5"),
        "{body}"
    );
    let after: i64 = sqlx::query_scalar("SELECT count(*) FROM matches")
        .fetch_one(&app.db)
        .await
        .unwrap();
    assert_eq!(before, after, "nothing stored past the budget");
    // Naming two already asked and one new costs one mail: within her day.
    let mix = [players[1], players[2], players[4]];
    let (status, _, body) = propose(&app, mia, league, &mix, 2).await;
    assert_eq!(status, 201, "{body}");
    assert_eq!(
        reached(&app, &sink, emails[4])
            .await
            .iter()
            .filter(|m| m.kind() == "match_proposed")
            .count(),
        1
    );
}

/// The club's day keeps half for its organizers: members' proposals stop at half, and the
/// owner's invitation still goes.
#[tokio::test]
async fn members_mail_uses_at_most_half_of_the_clubs_day() {
    let sink = SmtpSink::start().await;
    let app = app_mailing_to(&sink, |s| s.mail_per_club_day = 20).await;
    let emails = [
        "mia@elm.example",
        "bea@elm.example",
        "cy@elm.example",
        "dot@elm.example",
        "eve@elm.example",
        "fay@elm.example",
    ];
    // Six invitations: six of the club's 20; members may cause 10.
    let (owner, league, members, players) = open_play(&app, "elm", &emails).await;
    let named = |skip: usize| -> Vec<i64> {
        players
            .iter()
            .enumerate()
            .filter(|(i, _)| *i != skip)
            .map(|(_, p)| *p)
            .take(3)
            .collect()
    };
    assert_eq!(
        propose(&app, &members[0], league, &named(0), 10).await.0,
        201
    );
    assert_eq!(
        propose(&app, &members[1], league, &named(1), 11).await.0,
        201
    );
    assert_eq!(
        propose(&app, &members[2], league, &named(2), 12).await.0,
        201
    );
    let (status, _, body) = propose(&app, &members[3], league, &named(3), 13).await;
    assert_eq!(status, 429, "{body}");
    assert!(
        detail(&body).contains("members' actions had the service write 9 messages")
            && detail(&body).contains("kept for its organizers"),
        "{body}"
    );
    let (status, body) = invite(&app, &owner, "elm", "new@elm.example").await;
    assert_eq!(status, 202, "the organizers' half is there: {body}");
}

/// The attacker of issue 62 knows the password: she changes the address (twice), makes an admin
/// token and a webhook, asks a reset to her own address, and uses her own undo link first. The
/// owner's undo from the first address wins and takes all of it back: sessions, the token, the
/// webhook, every reset and undo link made since, and the password; both addresses are told.
#[tokio::test]
async fn an_email_undo_takes_back_everything_made_since_and_cannot_be_played_back() {
    let sink = SmtpSink::start().await;
    let app = app_mailing_to(&sink, |s| s.webhooks_allow_private = true).await;
    let owner = club_owner(&app, "oak", "rose@example.org").await;
    let kept: Value = owner
        .post(app.url("/api/v1/clubs/oak/tokens"))
        .json(&json!({ "name": "club website", "scopes": ["read"] }))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    let kept = kept["token"].as_str().unwrap().to_string();
    let attacker = common::logged_in(&app, "rose@example.org", PASSWORD).await;
    let browser = common::browser_client();
    let change_and_confirm = |to: &'static str| {
        let attacker = &attacker;
        let app = &app;
        let sink = &sink;
        let browser = &browser;
        async move {
            let (status, _, body) = send(
                attacker
                    .post(app.url("/api/v1/account/email"))
                    .json(&json!({ "email": to, "password": PASSWORD })),
            )
            .await;
            assert_eq!(status, 202, "{body}");
            let link = loop {
                if let Some(m) = reached(app, sink, to)
                    .await
                    .into_iter()
                    .find(|m| m.kind() == "email_change")
                {
                    break m.link("/account/email/");
                }
                tokio::time::sleep(Duration::from_millis(50)).await;
            };
            let page = common::text_at(browser, &link).await;
            let res = browser
                .post(&link)
                .form(&[("csrf", common::csrf_of(&page))])
                .send()
                .await
                .unwrap();
            assert_eq!(res.status(), 303);
        }
    };
    change_and_confirm("evil@attacker.example").await;
    let token: Value = attacker
        .post(app.url("/api/v1/clubs/oak/tokens"))
        .json(&json!({ "name": "backdoor", "scopes": ["admin"] }))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    let token = token["token"].as_str().unwrap().to_string();
    let (status, _, hook) = send(
        reqwest::Client::new()
            .post(app.url("/api/v1/clubs/oak/webhooks"))
            .bearer_auth(&token)
            .json(&json!({ "url": "https://hooks.attacker.example/in" })),
    )
    .await;
    assert_eq!(status, 201, "{hook}");
    let res = reqwest::Client::new()
        .post(app.url("/api/v1/password-resets"))
        .json(&json!({ "email": "evil@attacker.example" }))
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), 202);
    let attackers_reset = loop {
        if let Some(m) = reached(&app, &sink, "evil@attacker.example")
            .await
            .into_iter()
            .find(|m| m.kind() == "password_reset")
        {
            break m.link("/reset/");
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    };
    change_and_confirm("evil2@attacker.example").await;

    // Two undo links: to rose@ (the first change) and to evil@ (the second).
    let owners_undo = mailed(&app, &sink, "rose@example.org", "email_changed")
        .await
        .link("/account/email/undo/");
    let attackers_undo = mailed(&app, &sink, "evil@attacker.example", "email_changed")
        .await
        .link("/account/email/undo/");
    // Ping: the attacker uses hers first; the account is at evil@ again.
    let page = common::text_at(&browser, &attackers_undo).await;
    let res = browser
        .post(&attackers_undo)
        .form(&[("csrf", common::csrf_of(&page))])
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), 303);
    let from_attackers_undo = loop {
        if let Some(m) = reached(&app, &sink, "evil@attacker.example")
            .await
            .into_iter()
            .find(|m| m.kind() == "email_undone")
        {
            break m.link("/reset/");
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    };
    // Pong: the owner's older undo still works, and wins.
    let page = common::text_at(&browser, &owners_undo).await;
    assert!(page.contains("rose@example.org"), "{page}");
    let res = browser
        .post(&owners_undo)
        .form(&[("csrf", common::csrf_of(&page))])
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), 303);

    // What the attacker had is all dead.
    let res = attacker
        .get(app.url("/api/v1/session"))
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), 401, "her session ended");
    let res = reqwest::Client::new()
        .get(app.url("/api/v1/clubs/oak/members"))
        .bearer_auth(&token)
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), 401, "her token is revoked");
    for link in [&attackers_reset, &from_attackers_undo] {
        let tok = link.rsplit("/reset/").next().unwrap();
        let res = reqwest::Client::new()
            .post(app.url(&format!("/api/v1/password-resets/{tok}")))
            .json(&json!({ "password": "the attacker's new one" }))
            .send()
            .await
            .unwrap();
        assert_eq!(res.status(), 404, "{link} no longer works");
    }
    for (email, password) in [
        ("rose@example.org", PASSWORD),
        ("evil@attacker.example", PASSWORD),
        ("evil2@attacker.example", PASSWORD),
    ] {
        let res = reqwest::Client::new()
            .post(app.url("/api/v1/session"))
            .json(&json!({ "email": email, "password": password }))
            .send()
            .await
            .unwrap();
        assert_eq!(res.status(), 401, "{email} does not log in");
    }
    let res = browser.get(&attackers_undo).send().await.unwrap();
    assert_eq!(res.status(), 404);
    // The token made before the change stays.
    let res = reqwest::Client::new()
        .get(app.url("/api/v1/clubs/oak"))
        .bearer_auth(&kept)
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), 200, "what was made before the change stays");

    // Both addresses are told; the owner's mail lists what was taken back.
    let told = reached(&app, &sink, "rose@example.org").await;
    let undone = told
        .iter()
        .rev()
        .find(|m| m.kind() == "email_undone")
        .expect("the restored address is told");
    let text = undone.text();
    assert!(
        text.contains("backdoor (oak)") && text.contains("hooks[.]attacker[.]example/in (oak)"),
        "{text}"
    );
    let other_side = reached(&app, &sink, "evil@attacker.example").await;
    assert!(
        other_side.iter().any(|m| m.kind() == "email_undone_told"),
        "the address it had is told"
    );
    // The owner chooses her password from the link and is back, alone.
    let tok = undone.link("/reset/");
    let tok = tok.rsplit("/reset/").next().unwrap();
    let res = reqwest::Client::new()
        .post(app.url(&format!("/api/v1/password-resets/{tok}")))
        .json(&json!({ "password": "only rose knows this" }))
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), 204);
    let rose = common::logged_in(&app, "rose@example.org", "only rose knows this").await;
    let hooks: Value = rose
        .get(app.url("/api/v1/clubs/oak/webhooks"))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(
        hooks["webhooks"].as_array().map(Vec::len),
        Some(0),
        "{hooks}"
    );
}

/// Taps "This is me" on the player's page: the page it leads to, with what happened.
async fn claim_on_page(app: &TestApp, member: &reqwest::Client, id: i64) -> String {
    let page = common::text_at(member, &app.url(&format!("/players/{id}"))).await;
    let res = member
        .post(app.url(&format!("/players/{id}/claim")))
        .form(&[("csrf", common::csrf_of(&page))])
        .send()
        .await
        .unwrap();
    res.text().await.unwrap()
}

/// A member holds one claim at a time; a player invited to another address cannot be claimed;
/// the organizers get claims in one mail a day, and the page of its link says what they need
/// to decide.
#[tokio::test]
async fn claims_cannot_be_squatted_and_come_in_one_mail_a_day() {
    let sink = SmtpSink::start().await;
    let app = app_mailing_to(&sink, |_| {}).await;
    let owner = club_owner(&app, "pine", "owner@pine.example").await;
    let mut ids = Vec::new();
    for name in ["Edie Fong", "Al Ruiz", "Bo Tan", "Cal Poe"] {
        let (status, _, p) = send(
            owner
                .post(app.url("/api/v1/clubs/pine/players"))
                .json(&json!({ "name": name })),
        )
        .await;
        assert_eq!(status, 201, "{p}");
        ids.push(p["id"].as_i64().unwrap());
    }
    // Edie's real address has an invitation from her row.
    let (status, _, body) = send(
        owner
            .post(app.url(&format!("/api/v1/clubs/pine/players/{}/invitation", ids[0])))
            .json(&json!({ "email": "edie@fong.example" })),
    )
    .await;
    assert!(status == 202 || status == 201, "{status} {body}");

    let squatter = common::member_of(&app, &owner, "pine", "sq@pine.example", "member").await;
    let said = claim_on_page(&app, &squatter, ids[0]).await;
    assert!(
        said.contains("invited Edie Fong by mail to another address"),
        "{said}"
    );
    let said = claim_on_page(&app, &squatter, ids[1]).await;
    assert!(said.contains("Asked:"), "{said}");
    for &id in &ids[2..] {
        let said = claim_on_page(&app, &squatter, id).await;
        assert!(said.contains("one claim at a time"), "{said}");
    }
    let held: i64 = sqlx::query_scalar("SELECT count(*) FROM players WHERE claimed_by IS NOT NULL")
        .fetch_one(&app.db)
        .await
        .unwrap();
    assert_eq!(held, 1, "one claim held");
    // A second member's claim the same day waits for the daily mail.
    let other = common::member_of(&app, &owner, "pine", "bo@pine.example", "member").await;
    let said = claim_on_page(&app, &other, ids[2]).await;
    assert!(said.contains("one mail a day"), "{said}");
    let claims: Vec<_> = reached(&app, &sink, "owner@pine.example")
        .await
        .into_iter()
        .filter(|m| m.kind() == "claim")
        .collect();
    assert_eq!(claims.len(), 1, "one claims mail a day");
    // The next day the waiting claim comes in one mail.
    sqlx::query("UPDATE clubs SET claims_mailed_at = claims_mailed_at - interval '25 hours'")
        .execute(&app.db)
        .await
        .unwrap();
    common::passes(5).await;
    let claims: Vec<_> = reached(&app, &sink, "owner@pine.example")
        .await
        .into_iter()
        .filter(|m| m.kind() == "claim")
        .collect();
    assert_eq!(claims.len(), 2, "the waiting claim came the next day");
    assert!(
        claims[1].text().contains("says they are Bo Tan"),
        "{}",
        claims[1].text()
    );
    // The page of the link says what the organizer needs to decide.
    let link = claims[0].link("/claims/");
    let page = common::text_at(&common::browser_client(), &link).await;
    assert!(
        page.contains("Is the member sq@pine.example the player Al Ruiz?")
            && page.contains("Al Ruiz has played no games yet")
            && page.contains("account was made"),
        "{page}"
    );
}

/// A game entered with a table code by someone logged in is the code's in the audit, used by
/// them: the log says how they could score there, not only a name they chose.
#[tokio::test]
async fn a_game_entered_with_a_code_is_the_codes_in_the_audit_used_by_whoever_held_it() {
    let app = spawn_app_with(|_| {}).await;
    let owner = club_owner(&app, "cedar", "owner@cedar.example").await;
    let t = common::one_table(&app, &owner, "cedar", &["Ann", "Bea", "Cy", "Di"]).await;
    let code = common::table_code(&app, &owner, t.night).await;
    let oscar = common::member_of(&app, &owner, "cedar", "oscar@cedar.example", "member").await;
    let door = common::text_at(&oscar, &app.url("/code")).await;
    let res = oscar
        .post(app.url("/code"))
        .form(&[("csrf", common::csrf_of(&door)), ("code", code)])
        .send()
        .await
        .unwrap();
    assert!(res.status().is_success(), "{}", res.status());
    let (status, _, game) = send(
        oscar
            .post(app.url(&format!("/api/v1/tables/{}/games", t.table)))
            .header("Origin", app.address.as_str())
            .json(&json!({ "outcome": "wall" })),
    )
    .await;
    assert_eq!(status, 201, "{game}");
    let audit: Value = owner
        .get(app.url(&format!("/api/v1/games/{}/audit", game["id"])))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(
        audit["audit"][0]["actor"],
        "table 1's code, used by oscar@cedar.example (oscar@cedar.example)",
        "{audit}"
    );
    // A stranger reading it would see no address; the table's code is named for everyone.
}

/// 64 log-ins at once on a two-core machine: the API answers each 401 or 503 with Retry-After,
/// never an error; the log-in page tries once more by itself, then says in words that the
/// service is busy.
#[tokio::test]
async fn a_burst_of_log_ins_is_answered_busy_in_words_never_broken() {
    let app = spawn_app_with(|s| s.trust_proxy = true).await;
    let api = (0..64).map(|i| {
        let url = app.url("/api/v1/session");
        async move {
            let res = reqwest::Client::new()
                .post(url)
                .header("X-Forwarded-For", format!("198.51.100.{i}"))
                .json(&json!({ "email": format!("nobody{i}@example.org"), "password": "not a password at all" }))
                .send()
                .await
                .unwrap();
            (res.status().as_u16(), res.headers().contains_key("retry-after"))
        }
    });
    let answers = futures_util::future::join_all(api).await;
    let busy = answers.iter().filter(|a| a.0 == 503).count();
    for (status, retry) in &answers {
        assert!(*status == 401 || *status == 503, "{status}");
        assert!(*status != 503 || *retry, "a 503 says when to retry");
    }
    println!("API: 64 at once, {busy} answered 503");
    let page = (0..64).map(|i| {
        let app = &app;
        async move {
            let client = common::browser_client();
            let from = format!("203.0.113.{i}");
            let form = client
                .get(app.url("/login"))
                .header("X-Forwarded-For", &from)
                .send()
                .await
                .unwrap()
                .text()
                .await
                .unwrap();
            let res = client
                .post(app.url("/login"))
                .header("X-Forwarded-For", &from)
                .header("Origin", app.address.as_str())
                .form(&[
                    ("csrf", common::csrf_of(&form)),
                    ("email", format!("nobody{i}@example.org")),
                    ("password", "not a password at all".into()),
                ])
                .send()
                .await
                .unwrap();
            let status = res.status().as_u16();
            let to = res
                .headers()
                .get("location")
                .and_then(|l| l.to_str().ok())
                .unwrap_or("/login")
                .to_string();
            let shown = client
                .get(app.url(&to))
                .header("X-Forwarded-For", &from)
                .send()
                .await
                .unwrap()
                .text()
                .await
                .unwrap();
            (status, shown)
        }
    });
    let answers = futures_util::future::join_all(page).await;
    let mut busy = 0;
    for (status, text) in &answers {
        assert_eq!(*status, 303, "back to the log-in page, with what happened");
        if text.contains("The service is busy") {
            busy += 1;
        } else {
            assert!(text.contains("wrong email or password"), "{text}");
        }
    }
    println!("page: 64 at once, {busy} told the service is busy after trying twice");
}

/// A club's card drafts are bounded before anything is stored: 20 drafts, 64 KB a draft, each
/// refused with 422 in words (the loop stored 100 drafts of 248 KB).
#[tokio::test]
async fn card_drafts_are_bounded_before_anything_is_stored() {
    let app = spawn_app_with(|_| {}).await;
    let owner = club_owner(&app, "birch", "owner@birch.example").await;
    let drafts = app.url("/api/v1/clubs/birch/card-drafts");
    let (status, _, first) = send(owner.post(&drafts).json(&json!({}))).await;
    assert_eq!(status, 201, "{first}");
    // A draft of 150 lines with long notes: about 100 KB.
    let line = json!({
        "section": "Winds", "pattern": "NNNN EEE WWW SSSS", "value": "25", "concealed": false,
        "suits": "", "numbers": "", "winds": "", "note": "n".repeat(300), "id": "", "unread": "x".repeat(300)
    });
    let big = json!({
        "revision": first["revision"], "head": first["head"], "lines": vec![line; 150], "public": false
    });
    let (status, _, body) = send(owner.put(format!("{drafts}/{}", first["id"])).json(&big)).await;
    assert_eq!(status, 422, "{body}");
    assert!(
        detail(&body).contains("a draft holds at most 64 KB")
            && detail(&body).contains("nothing was saved"),
        "{body}"
    );
    let stored: i64 = sqlx::query_scalar(
        "SELECT sum(octet_length(head::text) + octet_length(lines::text)) FROM card_drafts",
    )
    .fetch_one(&app.db)
    .await
    .unwrap();
    assert!(stored < 1024, "nothing of it stored: {stored} bytes");
    for n in 2..=20 {
        let (status, _, body) = send(owner.post(&drafts).json(&json!({}))).await;
        assert_eq!(status, 201, "draft {n}: {body}");
    }
    let (status, _, body) = send(owner.post(&drafts).json(&json!({ "from": "demo-2026" }))).await;
    assert_eq!(status, 422, "{body}");
    assert!(
        detail(&body).contains("keeps 20 card drafts already"),
        "{body}"
    );
    let count: i64 = sqlx::query_scalar("SELECT count(*) FROM card_drafts")
        .fetch_one(&app.db)
        .await
        .unwrap();
    assert_eq!(count, 20);

    // The club's card files and drafts together: 4 MB, said on its cards page. Sixteen uploads
    // of a quarter MB each are stood in for by one stored file of 4 MB.
    sqlx::query(
        "INSERT INTO cards (club_id, name, year, source) \
         SELECT id, 'Filler', 2026, repeat('x', 4 * 1024 * 1024) FROM clubs WHERE slug = 'birch'",
    )
    .execute(&app.db)
    .await
    .unwrap();
    let id = sqlx::query_scalar::<_, i64>("SELECT min(id) FROM card_drafts")
        .fetch_one(&app.db)
        .await
        .unwrap();
    let now: Value = owner
        .get(format!("{drafts}/{id}"))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    let (status, _, body) = send(owner.put(format!("{drafts}/{id}")).json(&json!({
        "revision": now["revision"], "head": now["head"],
        "lines": [{ "section": "Winds", "pattern": "NNNN EEE WWW SSSS", "value": "25", "concealed": false,
                    "suits": "", "numbers": "", "winds": "", "note": "", "id": "", "unread": "" }],
        "public": false
    })))
    .await;
    assert_eq!(status, 422, "{body}");
    assert!(
        detail(&body).contains("birch keeps 4 MB of 4 MB in card files and drafts"),
        "{body}"
    );
    let page = common::text_at(&owner, &app.url("/clubs/birch/cards")).await;
    assert!(
        page.contains("Card files and drafts kept: 4 MB of 4 MB"),
        "{page}"
    );
}
