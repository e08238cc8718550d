//! One roster and the club's clock (issue 53), through real HTTP with mail caught by a real SMTP
//! server: everyone who joins a club is on its player list, linked to their account, and a
//! club's time zone is an IANA name, refused with a suggestion when it is not.

mod common;

use common::smtp::SmtpSink;
use common::{PASSWORD, TestApp, club_owner, csrf_of, signed_up, spawn_app, spawn_app_with};
use mahjong_league::config::Secret;
use serde_json::{Value, json};

async fn json_of(res: reqwest::Response, status: u16) -> Value {
    let got = res.status().as_u16();
    let body: Value = res.json().await.unwrap_or(Value::Null);
    assert_eq!(got, status, "{body}");
    body
}

async fn app_mailing_to(sink: &SmtpSink) -> TestApp {
    let url = sink.url();
    spawn_app_with(move |s| s.smtp_url = Some(Secret::new(url))).await
}

async fn new_player(app: &TestApp, owner: &reqwest::Client, name: &str) -> i64 {
    let res = owner
        .post(app.url("/api/v1/clubs/maple/players"))
        .json(&json!({ "name": name }))
        .send()
        .await
        .unwrap();
    json_of(res, 201).await["id"].as_i64().unwrap()
}

/// The user id and the player linked to them, and the one they say they are.
async fn roster_of(app: &TestApp, email: &str) -> (Option<i64>, Option<i64>) {
    sqlx::query_as(
        "SELECT (SELECT p.id FROM players p WHERE p.user_id = u.id), \
                (SELECT p.id FROM players p WHERE p.claimed_by = u.id) \
         FROM users u WHERE lower(u.email) = lower($1)",
    )
    .bind(email)
    .fetch_one(&app.db)
    .await
    .unwrap()
}

/// The token of the latest invitation mailed to `to`.
fn token_of(link: &str) -> String {
    link.rsplit('/').next().unwrap().to_string()
}

#[tokio::test]
async fn whoever_joins_is_on_the_player_list_as_the_organizer_invited_them_or_as_they_say() {
    let sink = SmtpSink::start().await;
    let app = app_mailing_to(&sink).await;
    let owner = club_owner(&app, "maple", "owner@example.org").await;
    let mia = new_player(&app, &owner, "Mia Chen").await;
    let rose = new_player(&app, &owner, "Rose").await;

    // Invited from Mia Chen's row: the mail and the link name her; whoever joins is Mia Chen.
    let res = owner
        .post(app.url(&format!("/api/v1/clubs/maple/players/{mia}/invitation")))
        .json(&json!({ "email": "mia@example.org" }))
        .send()
        .await
        .unwrap();
    let invited = json_of(res, 202).await;
    assert!(
        invited["message"]
            .as_str()
            .unwrap()
            .contains("An invitation for Mia Chen to join as member"),
        "{invited}"
    );
    let mail = sink.wait_for(1).await.pop().unwrap();
    assert!(
        mail.text()
            .contains("You join as Mia Chen on the club's player list"),
        "{}",
        mail.text()
    );
    let token = token_of(&mail.link("/invitations/"));
    let view = json_of(
        reqwest::get(app.url(&format!("/api/v1/invitations/{token}")))
            .await
            .unwrap(),
        200,
    )
    .await;
    assert_eq!(view["player"], json!({"id": mia, "name": "Mia Chen"}));
    assert_eq!(view["players"], json!([]), "nothing else to choose");
    let phone = reqwest::Client::builder()
        .cookie_store(true)
        .build()
        .unwrap();
    let joined = json_of(
        phone
            .post(app.url(&format!("/api/v1/invitations/{token}/account")))
            .json(&json!({ "display_name": "Mia", "password": PASSWORD }))
            .send()
            .await
            .unwrap(),
        201,
    )
    .await;
    assert_eq!(joined["player"]["id"], mia, "{joined}");
    assert_eq!(roster_of(&app, "mia@example.org").await, (Some(mia), None));

    // Kit, invited by address alone, says nothing: a player is made under her name.
    let kit = signed_up(&app, "kit@example.org").await;
    let invite = |email: &'static str, role: &'static str| {
        owner
            .put(app.url("/api/v1/clubs/maple/members"))
            .json(&json!({ "email": email, "role": role }))
            .send()
    };
    json_of(invite("kit@example.org", "member").await.unwrap(), 202).await;
    let link = common::mailed_path(&app, "invitation", "kit@example.org", "/invitations/").await;
    let joined = json_of(
        kit.post(app.url(&format!("/api/v1{link}")))
            .json(&json!({}))
            .send()
            .await
            .unwrap(),
        200,
    )
    .await;
    assert_eq!(joined["player"]["name"], "kit@example.org", "{joined}");
    let kit_player = joined["player"]["id"].as_i64().unwrap();
    assert_eq!(
        roster_of(&app, "kit@example.org").await,
        (Some(kit_player), None)
    );

    // Rose joins and says she is the club's Rose: the organizers get a mail whose link
    // confirms it with one tap, without logging in.
    let rose_phone = signed_up(&app, "rose@example.org").await;
    json_of(invite("rose@example.org", "member").await.unwrap(), 202).await;
    let link = common::mailed_path(&app, "invitation", "rose@example.org", "/invitations/").await;
    let offered = json_of(
        reqwest::get(app.url(&format!("/api/v1{link}")))
            .await
            .unwrap(),
        200,
    )
    .await;
    assert_eq!(offered["players"], json!([{"id": rose, "name": "Rose"}]));
    let joined = json_of(
        rose_phone
            .post(app.url(&format!("/api/v1{link}")))
            .json(&json!({ "player": rose }))
            .send()
            .await
            .unwrap(),
        200,
    )
    .await;
    assert!(
        joined["message"]
            .as_str()
            .unwrap()
            .contains("An organizer of maple confirms that you are Rose"),
        "{joined}"
    );
    assert_eq!(
        roster_of(&app, "rose@example.org").await,
        (None, Some(rose))
    );
    let claim = common::wait_mailed_path(&app.db, "claim", "owner@example.org", "/claims/").await;
    let forged = format!("{}x", claim);
    let organizer_phone = common::browser_client();
    assert_eq!(
        organizer_phone
            .get(app.url(&forged))
            .send()
            .await
            .unwrap()
            .status(),
        404
    );
    let page = common::text_at(&organizer_phone, &app.url(&claim)).await;
    assert!(
        page.contains("Is the member rose@example.org the player Rose?")
            && page.contains("Confirm: the member rose@example.org is the player Rose")
            && page.contains("Rose has played no games yet")
            && page.contains("No invitation for Rose is waiting at another address"),
        "{page}"
    );
    let res = organizer_phone
        .post(app.url(&claim))
        .form(&[("csrf", csrf_of(&page).as_str()), ("answer", "confirm")])
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), 303);
    let after = common::text_at(&organizer_phone, &app.url(&claim)).await;
    assert!(
        after.contains("Confirmed: rose@example.org is Rose"),
        "{after}"
    );
    assert_eq!(
        roster_of(&app, "rose@example.org").await,
        (Some(rose), None)
    );

    // The organizer's player list says who each player is on the service.
    let club_page = common::text_at(&owner, &app.url("/clubs/maple")).await;
    for words in [
        "✓ Linked to Mia&#39;s account",
        "✓ Linked to rose@example.org&#39;s account",
        "✓ Linked to kit@example.org&#39;s account",
    ] {
        assert!(club_page.contains(words), "{words} in {club_page}");
    }

    // Staff may join without playing; a member may not.
    let sam = signed_up(&app, "sam@example.org").await;
    json_of(invite("sam@example.org", "scorer").await.unwrap(), 202).await;
    let link = common::mailed_path(&app, "invitation", "sam@example.org", "/invitations/").await;
    let joined = json_of(
        sam.post(app.url(&format!("/api/v1{link}")))
            .json(&json!({ "plays": false }))
            .send()
            .await
            .unwrap(),
        200,
    )
    .await;
    assert_eq!(joined["player"], Value::Null, "{joined}");
    assert_eq!(roster_of(&app, "sam@example.org").await, (None, None));
    let lou = signed_up(&app, "lou@example.org").await;
    json_of(invite("lou@example.org", "member").await.unwrap(), 202).await;
    let link = common::mailed_path(&app, "invitation", "lou@example.org", "/invitations/").await;
    let refused = json_of(
        lou.post(app.url(&format!("/api/v1{link}")))
            .json(&json!({ "plays": false }))
            .send()
            .await
            .unwrap(),
        422,
    )
    .await;
    assert_eq!(refused["errors"][0]["field"], "plays", "{refused}");

    // Inviting a player someone is linked to is a 409 naming them.
    let res = owner
        .post(app.url(&format!("/api/v1/clubs/maple/players/{mia}/invitation")))
        .json(&json!({ "email": "other@example.org" }))
        .send()
        .await
        .unwrap();
    let conflict = json_of(res, 409).await;
    assert!(
        conflict["detail"]
            .as_str()
            .unwrap()
            .contains("Mia Chen is linked to Mia's account already"),
        "{conflict}"
    );

    // A member's address on a player's row: Sam, staff without a player, is that player at
    // once; Kit, who has a player already, is a 409 naming both.
    let lou = new_player(&app, &owner, "Lou Park").await;
    let invite_row = |email: &'static str| {
        owner
            .post(app.url(&format!("/api/v1/clubs/maple/players/{lou}/invitation")))
            .json(&json!({ "email": email }))
            .send()
    };
    let kept = json_of(invite_row("kit@example.org").await.unwrap(), 409).await;
    assert!(
        kept["detail"]
            .as_str()
            .unwrap()
            .contains("kit@example.org is a member already, as the player kit@example.org"),
        "{kept}"
    );
    let linked = json_of(invite_row("sam@example.org").await.unwrap(), 200).await;
    assert_eq!(
        linked["message"],
        "sam@example.org is a member already: they are Lou Park on the player list now."
    );
    assert_eq!(roster_of(&app, "sam@example.org").await, (Some(lou), None));
}

#[tokio::test]
async fn a_club_clock_is_an_iana_name_and_a_word_gets_the_zone_it_means() {
    let app = spawn_app().await;
    let owner = signed_up(&app, "owner@example.org").await;
    let refused = json_of(
        owner
            .post(app.url("/api/v1/clubs"))
            .json(&json!({ "slug": "maple", "name": "Maple", "time_zone": "Eastern" }))
            .send()
            .await
            .unwrap(),
        422,
    )
    .await;
    assert_eq!(refused["errors"][0]["field"], "time_zone");
    assert_eq!(refused["errors"][0]["suggestion"], "America/New_York");
    assert!(
        refused["detail"]
            .as_str()
            .unwrap()
            .contains("did you mean America/New_York?"),
        "{refused}"
    );
    let made = json_of(
        owner
            .post(app.url("/api/v1/clubs"))
            .json(&json!({ "slug": "maple", "name": "Maple", "time_zone": "America/New_York" }))
            .send()
            .await
            .unwrap(),
        201,
    )
    .await;
    assert_eq!(made["time_zone"], "America/New_York");
    let patch = |tz: &'static str| {
        owner
            .patch(app.url("/api/v1/clubs/maple"))
            .json(&json!({ "time_zone": tz }))
            .send()
    };
    let refused = json_of(patch("CST").await.unwrap(), 422).await;
    assert_eq!(refused["errors"][0]["suggestion"], "America/Chicago");
    let refused = json_of(patch("Narnia").await.unwrap(), 422).await;
    assert_eq!(refused["errors"][0].get("suggestion"), None, "{refused}");
    assert_eq!(
        json_of(patch("America/Chicago").await.unwrap(), 200).await["time_zone"],
        "America/Chicago"
    );

    // A club stored before names were checked, with a name that is none: its organizers are
    // asked to pick its zone until they do.
    sqlx::query(
        "UPDATE clubs SET time_zone = 'UTC', time_zone_was = 'Central-ish' WHERE slug = 'maple'",
    )
    .execute(&app.db)
    .await
    .unwrap();
    let page = common::text_at(&owner, &app.url("/clubs/maple")).await;
    assert!(
        page.contains("was stored as “Central-ish”, which is no time zone's name"),
        "{page}"
    );
    json_of(patch("America/Chicago").await.unwrap(), 200).await;
    let page = common::text_at(&owner, &app.url("/clubs/maple")).await;
    assert!(!page.contains("Central-ish"), "{page}");
    assert!(
        page.contains("On the club's clock: Central Time (Chicago)"),
        "{page}"
    );
}

/// A member who said she is "Carol Diaz" is removed: her claim, her proposal and her waiting
/// matches end with her membership, the claim's mailed link then links nothing and says why,
/// and she is told by mail. Another member leaves by herself (the API answered 403 before),
/// keeping her games under her player, unlinked; the last owner cannot leave.
#[tokio::test]
async fn a_removed_member_leaves_nothing_waiting_and_a_member_can_leave() {
    let sink = SmtpSink::start().await;
    let url = sink.url();
    let app = spawn_app_with(move |s| s.smtp_url = Some(Secret::new(url))).await;
    let owner = club_owner(&app, "oak", "owner@oak.example").await;
    let carol_player = json_of(
        owner
            .post(app.url("/api/v1/clubs/oak/players"))
            .json(&json!({ "name": "Carol Diaz" }))
            .send()
            .await
            .unwrap(),
        201,
    )
    .await["id"]
        .as_i64()
        .unwrap();
    let carol = common::member_of(&app, &owner, "oak", "carol@oak.example", "member").await;
    let page = common::text_at(&carol, &app.url(&format!("/players/{carol_player}"))).await;
    let res = carol
        .post(app.url(&format!("/players/{carol_player}/claim")))
        .form(&[("csrf", csrf_of(&page))])
        .send()
        .await
        .unwrap();
    assert!(res.status().is_success(), "{}", res.status());
    let claim = common::wait_mailed_path(&app.db, "claim", "owner@oak.example", "/claims/").await;
    let carol_id: i64 =
        sqlx::query_scalar("SELECT id FROM users WHERE email = 'carol@oak.example'")
            .fetch_one(&app.db)
            .await
            .unwrap();

    let res = owner
        .delete(app.url(&format!("/api/v1/clubs/oak/members/{carol_id}")))
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), 204);
    assert_eq!(
        roster_of(&app, "carol@oak.example").await,
        (None, None),
        "her claim ended with her membership"
    );
    // The mailed link now links nothing, and says why.
    let browser = common::browser_client();
    let res = browser.get(app.url(&claim)).send().await.unwrap();
    assert_eq!(res.status(), 404);
    let text = res.text().await.unwrap();
    assert!(
        text.contains("no longer a member of the club") && text.contains("nothing was linked"),
        "{text}"
    );
    let linked: Option<i64> = sqlx::query_scalar("SELECT user_id FROM players WHERE id = $1")
        .bind(carol_player)
        .fetch_one(&app.db)
        .await
        .unwrap();
    assert_eq!(linked, None);
    // She is told, by name of who did it.
    let mut told = None;
    for _ in 0..100 {
        told = sink
            .messages()
            .into_iter()
            .find(|m| m.kind() == "member_removed");
        if told.is_some() {
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
    }
    let told = told.expect("the removed member is told");
    assert_eq!(told.to, ["carol@oak.example"]);
    assert!(
        told.text()
            .contains("owner@oak.example took you out of oak"),
        "{}",
        told.text()
    );

    // Another member leaves by herself, and her player stays with its name, unlinked.
    let dot = common::member_of(&app, &owner, "oak", "dot@oak.example", "member").await;
    let dot_id: i64 = sqlx::query_scalar("SELECT id FROM users WHERE email = 'dot@oak.example'")
        .fetch_one(&app.db)
        .await
        .unwrap();
    // A role change is mailed to the member it changes.
    let res = owner
        .put(app.url("/api/v1/clubs/oak/members"))
        .json(&json!({ "email": "dot@oak.example", "role": "scorer" }))
        .send()
        .await
        .unwrap();
    assert!(res.status().is_success(), "{}", res.status());
    let mut role_mail = None;
    for _ in 0..100 {
        role_mail = sink
            .messages()
            .into_iter()
            .find(|m| m.kind() == "member_role");
        if role_mail.is_some() {
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
    }
    let role_mail = role_mail.expect("the role change is mailed");
    assert_eq!(role_mail.to, ["dot@oak.example"]);
    assert!(
        role_mail
            .text()
            .contains("owner@oak.example made you a scorer"),
        "{}",
        role_mail.text()
    );
    let club = common::text_at(&dot, &app.url("/clubs/oak")).await;
    assert!(club.contains("Leave this club"), "{club}");
    let res = dot
        .delete(app.url(&format!("/api/v1/clubs/oak/members/{dot_id}")))
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), 204, "a member leaves by herself");
    let res = dot
        .get(app.url("/api/v1/clubs/oak/players"))
        .send()
        .await
        .unwrap();
    assert_eq!(
        res.status(),
        404,
        "the club's members-only reads close to her"
    );
    // The last owner cannot leave without naming another.
    let owner_id: i64 =
        sqlx::query_scalar("SELECT id FROM users WHERE email = 'owner@oak.example'")
            .fetch_one(&app.db)
            .await
            .unwrap();
    let res = owner
        .delete(app.url(&format!("/api/v1/clubs/oak/members/{owner_id}")))
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), 409);
    let problem: Value = res.json().await.unwrap();
    assert!(
        problem["detail"].as_str().unwrap().contains("last owner"),
        "{problem}"
    );
}
