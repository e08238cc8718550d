//! Your account: name, password, email confirmed through a link mailed to the new address (a
//! real SMTP server of the suite's own), sessions seen and ended, your data, and leaving (never
//! leaving a club without an owner).

mod common;

use std::time::Duration;

use common::smtp::SmtpSink;
use common::{PASSWORD, TestApp, club_owner, csrf_of, signed_up, spawn_app_with, text_at};
use mahjong_league::config::Secret;
use serde_json::{Value, json};

async fn app_mailing_to(sink: &SmtpSink) -> TestApp {
    let url = sink.url();
    spawn_app_with(move |s| s.smtp_url = Some(Secret::new(url))).await
}

/// A browser of its own, logged in as `email` and calling itself `agent`.
async fn device(app: &TestApp, email: &str, password: &str, agent: &str) -> reqwest::Client {
    let client = reqwest::Client::builder()
        .cookie_store(true)
        .user_agent(agent)
        .redirect(reqwest::redirect::Policy::none())
        .build()
        .unwrap();
    let res = client
        .post(app.url("/api/v1/session"))
        .json(&json!({ "email": email, "password": password }))
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), 200, "log in as {email}");
    client
}

async fn account(app: &TestApp, client: &reqwest::Client) -> Value {
    let res = client.get(app.url("/api/v1/account")).send().await.unwrap();
    assert_eq!(res.status(), 200);
    res.json().await.unwrap()
}

#[tokio::test]
async fn name_password_email_and_sessions_change_from_the_account() {
    let sink = SmtpSink::start().await;
    let app = app_mailing_to(&sink).await;
    signed_up(&app, "rose@example.org").await;
    let phone = device(&app, "rose@example.org", PASSWORD, "Phone browser").await;
    let laptop = device(&app, "rose@example.org", PASSWORD, "Laptop browser").await;

    // The account lists where Rose is logged in, this device marked.
    let me = account(&app, &phone).await;
    let sessions = me["sessions"].as_array().unwrap();
    assert_eq!(sessions.len(), 3, "{me}");
    let this: Vec<&Value> = sessions
        .iter()
        .filter(|s| s["this_device"] == true)
        .collect();
    assert_eq!(this.len(), 1);
    assert_eq!(this[0]["device"], "Phone browser");
    let laptop_id = sessions
        .iter()
        .find(|s| s["device"] == "Laptop browser")
        .unwrap()["id"]
        .clone();

    // A name on one line.
    let rename = |name: &str| {
        phone
            .patch(app.url("/api/v1/account"))
            .json(&json!({ "display_name": name }))
            .send()
    };
    assert_eq!(rename("Rose\nAdler").await.unwrap().status(), 422);
    assert_eq!(rename("  Rose Adler ").await.unwrap().status(), 204);
    assert_eq!(account(&app, &laptop).await["display_name"], "Rose Adler");

    // One session ended by its id; then the password changed with the current one, which ends
    // every other session.
    let res = phone
        .delete(app.url(&format!("/api/v1/account/sessions/{laptop_id}")))
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), 204);
    let res = laptop.get(app.url("/api/v1/account")).send().await.unwrap();
    assert_eq!(res.status(), 401);
    let laptop = device(&app, "rose@example.org", PASSWORD, "Laptop browser").await;
    let change = |current: &str| {
        phone
            .put(app.url("/api/v1/account/password"))
            .json(&json!({ "current_password": current, "new_password": "tiles and tea 2027" }))
            .send()
    };
    let res = change("not my password").await.unwrap();
    assert_eq!(res.status(), 422);
    let problem: Value = res.json().await.unwrap();
    assert_eq!(
        problem["errors"][0]["field"], "current_password",
        "{problem}"
    );
    assert_eq!(change(PASSWORD).await.unwrap().status(), 204);
    assert_eq!(
        account(&app, &phone).await["sessions"]
            .as_array()
            .unwrap()
            .len(),
        1
    );
    let res = laptop.get(app.url("/api/v1/account")).send().await.unwrap();
    assert_eq!(res.status(), 401, "the laptop was logged out");

    // A new email: a link goes to the new address; until it is followed nothing changes.
    let res = phone
        .post(app.url("/api/v1/account/email"))
        .json(&json!({ "email": "rose@example.net", "password": "tiles and tea 2027" }))
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), 202);
    let told: Value = res.json().await.unwrap();
    let got = sink.wait_for(2).await;
    let mail = got
        .iter()
        .find(|m| m.kind() == "email_change")
        .expect("the link to the new address");
    assert!(
        got.iter().any(|m| m.kind() == "password_changed"),
        "the password change before was told"
    );
    assert_eq!(mail.to, ["rose@example.net"]);
    assert_eq!(account(&app, &phone).await["email"], "rose@example.org");
    let link = mail.link("/account/email/");
    let page = text_at(&phone, &link).await;
    assert!(page.contains("rose@example.net"), "{page}");
    let res = phone
        .post(&link)
        .form(&[("csrf", csrf_of(&page))])
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), 303);
    assert_eq!(account(&app, &phone).await["email"], "rose@example.net");
    device(
        &app,
        "rose@example.net",
        "tiles and tea 2027",
        "Laptop browser",
    )
    .await;

    // An address another account has: the same answer, and a word to it with no link.
    signed_up(&app, "sam@example.org").await;
    let res = phone
        .post(app.url("/api/v1/account/email"))
        .json(&json!({ "email": "SAM@example.org", "password": "tiles and tea 2027" }))
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), 202);
    let again: Value = res.json().await.unwrap();
    assert_eq!(
        again["message"]
            .as_str()
            .unwrap()
            .replace("SAM@example.org", "X"),
        told["message"]
            .as_str()
            .unwrap()
            .replace("rose@example.net", "X")
            .replace("rose@example.org", "rose@example.net"),
    );
    let mut word = None;
    for _ in 0..100 {
        word = sink
            .messages()
            .into_iter()
            .find(|m| m.kind() == "email_change_known");
        if word.is_some() {
            break;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    let word = word.expect("the address with an account is told");
    assert_eq!(word.to, ["SAM@example.org"]);
    assert!(
        word.text().contains("has an account already"),
        "{}",
        word.text()
    );
    assert!(
        !word.text().contains("/account/email/"),
        "no link that would move it: {}",
        word.text()
    );
}

#[tokio::test]
async fn the_only_owner_cannot_leave_and_a_member_leaves_with_their_data() {
    let sink = SmtpSink::start().await;
    let app = app_mailing_to(&sink).await;
    let owner = club_owner(&app, "tiles", "ann@example.org").await;
    let sam = common::member_of(&app, &owner, "tiles", "sam@example.org", "member").await;

    // The account page says before anything is tried why Ann cannot leave.
    let page = text_at(&owner, &app.url("/account")).await;
    assert!(page.contains("You are the only owner of tiles"), "{page}");
    let leave = |client: &reqwest::Client, password: &str| {
        client
            .delete(app.url("/api/v1/account"))
            .json(&json!({ "password": password }))
            .send()
    };
    let res = leave(&owner, PASSWORD).await.unwrap();
    assert_eq!(res.status(), 409);
    let problem: Value = res.json().await.unwrap();
    assert!(
        problem["detail"]
            .as_str()
            .unwrap()
            .contains("only owner of tiles")
    );

    // Sam's data, then Sam leaves (a wrong password first).
    let data: Value = sam
        .get(app.url("/api/v1/account/data"))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(data["account"]["email"], "sam@example.org");
    assert_eq!(data["clubs"][0]["slug"], "tiles");
    assert_eq!(data["clubs"][0]["role"], "member");
    assert_eq!(leave(&sam, "wrong one").await.unwrap().status(), 422);
    assert_eq!(leave(&sam, PASSWORD).await.unwrap().status(), 204);
    let res = reqwest::Client::new()
        .post(app.url("/api/v1/session"))
        .json(&json!({ "email": "sam@example.org", "password": PASSWORD }))
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), 401);
    let members: Value = owner
        .get(app.url("/api/v1/clubs/tiles/members"))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(members["members"].as_array().unwrap().len(), 1, "{members}");

    // With a second owner Ann may go, and the club keeps its owner.
    common::member_of(&app, &owner, "tiles", "bea@example.org", "owner").await;
    assert_eq!(leave(&owner, PASSWORD).await.unwrap().status(), 204);
    let owners: i64 = sqlx::query_scalar("SELECT count(*) FROM memberships WHERE role = 'owner'")
        .fetch_one(&app.db)
        .await
        .unwrap();
    assert_eq!(owners, 1);
}

#[tokio::test]
async fn the_account_page_works_by_its_forms() {
    let sink = SmtpSink::start().await;
    let app = app_mailing_to(&sink).await;
    signed_up(&app, "rose@example.org").await;
    let phone = device(&app, "rose@example.org", PASSWORD, "Phone browser").await;
    device(&app, "rose@example.org", PASSWORD, "Laptop browser").await;
    let page = text_at(&phone, &app.url("/account")).await;
    assert!(
        page.contains("Laptop browser") && page.contains("this device"),
        "{page}"
    );
    let csrf = csrf_of(&page);
    let post = |path: &str, fields: Vec<(&str, &str)>| {
        let mut form = vec![("csrf", csrf.as_str())];
        form.extend(fields);
        phone.post(app.url(path)).form(&form).send()
    };
    let res = post("/account/name", vec![("display_name", "Rose A.")])
        .await
        .unwrap();
    assert_eq!(res.status(), 303);
    let res = post("/account/sessions/end", vec![]).await.unwrap();
    assert_eq!(res.status(), 303);
    let page = text_at(&phone, &app.url("/account")).await;
    assert!(page.contains("Logged out on 2 other devices."), "{page}");
    assert!(!page.contains("Laptop browser"));
    assert!(page.contains("value=\"Rose A.\""));
    let res = post(
        "/account/password",
        vec![
            ("current_password", "nope"),
            ("new_password", "a long new one"),
        ],
    )
    .await
    .unwrap();
    assert_eq!(res.status(), 303);
    let page = text_at(&phone, &app.url("/account")).await;
    assert!(page.contains("this is not your current password"), "{page}");
    // Anonymous: to the login page, and back here after it.
    let res = reqwest::Client::builder()
        .redirect(reqwest::redirect::Policy::none())
        .build()
        .unwrap()
        .get(app.url("/account"))
        .send()
        .await
        .unwrap();
    assert_eq!(res.headers()["location"], "/login?next=/account");
}

/// Sign-up answers a new address and a taken one alike; the new one gets a link that makes the
/// account when its page is confirmed (opening it makes nothing), the taken one a word that it
/// has an account; sign-ups to one address are limited.
#[tokio::test]
async fn sign_up_is_answered_alike_and_finished_through_the_mailed_link() {
    let sink = SmtpSink::start().await;
    let app = app_mailing_to(&sink).await;
    signed_up(&app, "sam@example.org").await;
    let ask = |email: &'static str| {
        let app = &app;
        async move {
            let res = reqwest::Client::new()
                .post(app.url("/api/v1/users"))
                .json(&json!({ "email": email, "display_name": "Someone", "password": PASSWORD }))
                .send()
                .await
                .unwrap();
            let status = res.status().as_u16();
            // `password` is retiring: the answer says so.
            let retiring = res.headers().get("deprecation").cloned();
            let body: Value = res.json().await.unwrap();
            (
                status,
                body["message"].as_str().unwrap_or("").replace(email, "…"),
                retiring,
            )
        }
    };
    let new = ask("rose@example.org").await;
    let taken = ask("sam@example.org").await;
    assert_eq!(new, taken, "the same answer for a new and a taken address");
    assert_eq!(new.0, 202);
    assert_eq!(new.2.unwrap(), "@1795737600");

    // Sam is told he has an account; Rose gets the link.
    let got = sink.wait_for(1).await;
    assert_eq!(got[0].to, ["sam@example.org"]);
    assert_eq!(
        got[0].parsed().subject(),
        Some("You have an account already")
    );
    let mut link = None;
    for _ in 0..100 {
        if let Some(m) = sink.signups().iter().find(|m| m.to == ["rose@example.org"]) {
            link = Some(m.link("/signup/"));
            break;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    let link = link.expect("Rose's sign-up link");
    let users = || async {
        sqlx::query_scalar::<_, i64>("SELECT count(*) FROM users")
            .fetch_one(&app.db)
            .await
            .unwrap()
    };
    let before = users().await;
    let browser = common::browser_client();
    let page = text_at(&browser, &link).await;
    assert!(
        page.contains("rose@example.org") && page.contains("Make my account"),
        "{page}"
    );
    assert!(
        page.contains("Choose a password"),
        "whoever opens the link chooses the password: {page}"
    );
    assert_eq!(users().await, before, "opening the link makes nothing");
    let short = browser
        .post(&link)
        .form(&[("csrf", csrf_of(&page)), ("password", "short".to_string())])
        .send()
        .await
        .unwrap();
    assert_eq!(short.status(), 303);
    assert_eq!(users().await, before, "a short password makes nothing");
    let res = browser
        .post(&link)
        .form(&[
            ("csrf", csrf_of(&page)),
            ("password", "the owner's own choice".to_string()),
        ])
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), 303);
    let me: Value = browser
        .get(app.url("/api/v1/session"))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(me["email"], "rose@example.org");
    assert_eq!(me["display_name"], "Someone");
    // The password the requester typed was dropped: the one chosen on the link's page holds.
    let log_in = |password: &'static str| {
        let app = &app;
        async move {
            reqwest::Client::new()
                .post(app.url("/api/v1/session"))
                .json(&json!({ "email": "rose@example.org", "password": password }))
                .send()
                .await
                .unwrap()
                .status()
                .as_u16()
        }
    };
    assert_eq!(log_in(PASSWORD).await, 401, "the requester's password");
    assert_eq!(log_in("the owner's own choice").await, 200);
    let again = text_at(&common::browser_client(), &link).await;
    assert!(again.contains("was used already"), "{again}");

    // At most 3 sign-up mails to one address at once, whoever asks.
    let statuses = [
        ask("eve@example.org").await.0,
        ask("eve@example.org").await.0,
        ask("eve@example.org").await.0,
        ask("eve@example.org").await.0,
    ];
    assert_eq!(statuses, [202, 202, 202, 429]);
}
