//! Nights ahead through a real SMTP server: an organizer schedules a night, every member is asked
//! by mail, members reply (through the mailed link with no login, and through the API), the seats
//! fill and a waiting list forms, a freed seat goes to the first waiting (mailed), check-in starts
//! from the replies, reminders and cancellations are mailed, and the league's calendar feed is
//! RFC 5545.

mod common;

use chrono::{Duration, TimeZone, Utc};
use common::smtp::SmtpSink;
use common::{
    TestApp, club_owner, csrf_of, member_as, member_of, one_table, spawn_app_with, text_at,
};
use mahjong_league::config::Secret;
use serde_json::{Value, json};

async fn app_mailing_to(sink: &SmtpSink) -> TestApp {
    let url = sink.url();
    spawn_app_with(move |s| s.smtp_url = Some(Secret::new(url))).await
}

async fn json(res: reqwest::Response, status: u16) -> Value {
    let got = res.status().as_u16();
    let body: Value = res.json().await.unwrap_or(Value::Null);
    assert_eq!(got, status, "{body}");
    body
}

async fn set_visibility(app: &TestApp, owner: &reqwest::Client, league: i64, to: &str) {
    let res = owner
        .patch(app.url(&format!("/api/v1/leagues/{league}")))
        .json(&json!({ "visibility": to }))
        .send()
        .await
        .unwrap();
    json(res, 200).await;
}

async fn reply(app: &TestApp, who: &reqwest::Client, id: i64, answer: &str) -> Value {
    let res = who
        .put(app.url(&format!("/api/v1/scheduled-nights/{id}/reply")))
        .json(&json!({ "answer": answer }))
        .send()
        .await
        .unwrap();
    json(res, 200).await
}

/// Content lines of a calendar, unfolded (RFC 5545 §3.1), after checking every physical line
/// ends in CRLF and holds at most 75 octets.
fn unfolded(ics: &str) -> Vec<String> {
    assert!(ics.ends_with("\r\n"), "ends with CRLF");
    let physical: Vec<&str> = ics.trim_end_matches("\r\n").split("\r\n").collect();
    let mut lines: Vec<String> = Vec::new();
    for l in physical {
        assert!(!l.contains('\n'), "a bare LF in {l:?}");
        assert!(l.len() <= 75, "{} octets: {l}", l.len());
        match l.strip_prefix(' ') {
            Some(rest) => lines.last_mut().expect("a first line").push_str(rest),
            None => lines.push(l.to_string()),
        }
    }
    lines
}

#[tokio::test]
async fn members_reply_ahead_the_seats_fill_and_check_in_starts_from_the_replies() {
    let sink = SmtpSink::start().await;
    let app = app_mailing_to(&sink).await;
    let owner = club_owner(&app, "tiles", "owner@example.org").await;
    sqlx::query("UPDATE clubs SET time_zone = 'America/New_York' WHERE slug = 'tiles'")
        .execute(&app.db)
        .await
        .unwrap();
    let mut t = one_table(&app, &owner, "tiles", &["Ann", "Bea", "Cy", "Dot"]).await;
    let eve = owner
        .post(app.url("/api/v1/clubs/tiles/players"))
        .json(&json!({ "name": "Eve" }))
        .send()
        .await
        .unwrap();
    t.players.push(json(eve, 201).await["id"].as_i64().unwrap());
    let mut members = Vec::new();
    for (i, name) in ["ann", "bea", "cy", "dot", "eve"].iter().enumerate() {
        let email = format!("{name}@example.org");
        let c = if *name == "cy" {
            // Cy joined before every member was on the player list: no player of hers.
            let c = member_of(&app, &owner, "tiles", &email, "member").await;
            sqlx::query(
                "DELETE FROM players WHERE user_id = (SELECT id FROM users WHERE email = $1)",
            )
            .bind(&email)
            .execute(&app.db)
            .await
            .unwrap();
            c
        } else {
            member_as(&app, &owner, "tiles", &email, t.players[i]).await
        };
        members.push(c);
    }
    let invitations = sink.wait_for(5).await.len();

    // Eight days ahead at 7 pm on the club's clock, one table: four seats.
    let date = (Utc::now() + Duration::days(8)).date_naive();
    let res = owner
        .post(app.url(&format!("/api/v1/leagues/{}/schedule", t.league)))
        .json(&json!({ "date": date, "time": "19:00", "place": "Club room, 12 Elm Street", "tables": 1 }))
        .send()
        .await
        .unwrap();
    let made = json(res, 201).await;
    let id = made["id"].as_i64().unwrap();
    assert_eq!(made["seats"], 4);
    assert_eq!(made["remind_hours"], 24);
    assert_eq!(made["time_zone"], "America/New_York");
    let new_york = chrono_tz::America::New_York
        .from_local_datetime(&date.and_hms_opt(19, 0, 0).unwrap())
        .unwrap()
        .with_timezone(&Utc);
    assert_eq!(made["starts_at"], json!(new_york));

    // Every member (the owner too) is asked, with one-click unsubscribe.
    let got = sink.wait_for(invitations + 6).await;
    let asked: Vec<_> = got[invitations..].to_vec();
    let mut to: Vec<String> = asked.iter().map(|m| m.to[0].clone()).collect();
    to.sort();
    assert_eq!(
        to,
        ["ann", "bea", "cy", "dot", "eve", "owner"].map(|n| format!("{n}@example.org"))
    );
    let ann_mail = asked.iter().find(|m| m.to == ["ann@example.org"]).unwrap();
    let parsed = ann_mail.parsed();
    assert!(parsed.header("List-Unsubscribe").is_some());
    assert!(
        parsed.subject().unwrap().contains("coming?"),
        "{:?}",
        parsed.subject()
    );
    let text = ann_mail.text();
    assert!(
        text.contains("Club room, 12 Elm Street")
            && text.contains("7:00 PM")
            && text.contains("with 1 table (4 seats)"),
        "{text}"
    );

    // Ann's mail scanner fetches the Coming link: the page (whose script would save it in a
    // browser) saves nothing by being fetched; its button saves, as with scripts off.
    let coming = ann_mail.link("answer=coming");
    let ann_phone = common::browser_client();
    let page = text_at(&ann_phone, &coming).await;
    assert!(
        page.contains("Hello ann@example.org")
            && page.contains("Save: Coming")
            && page.contains(
                "You tapped <strong>Coming</strong> in the mail: it is being saved. If this page stays as it is, tap Save below."
            )
            && page.contains("data-autosave=\"coming\""),
        "{page}"
    );
    let counts = |v: &Value| {
        (
            v["counts"]["coming"].as_i64().unwrap(),
            v["counts"]["waiting"].as_i64().unwrap(),
            v["counts"]["maybe"].as_i64().unwrap(),
            v["counts"]["not_coming"].as_i64().unwrap(),
        )
    };
    let now = json(
        owner
            .get(app.url(&format!("/api/v1/scheduled-nights/{id}")))
            .send()
            .await
            .unwrap(),
        200,
    )
    .await;
    assert_eq!(counts(&now), (0, 0, 0, 0), "opening the link saved nothing");
    let action = coming.split('?').next().unwrap().to_string();
    let res = ann_phone
        .post(&action)
        .form(&[("csrf", csrf_of(&page).as_str()), ("answer", "coming")])
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), 303);
    let after = text_at(&ann_phone, &action).await;
    assert!(after.contains("Saved: you are coming"), "{after}");
    // Her reply is in her data.
    let data = json(
        members[0]
            .get(app.url("/api/v1/account/data"))
            .send()
            .await
            .unwrap(),
        200,
    )
    .await;
    assert_eq!(data["nights_ahead"][0]["answer"], "coming", "{data}");
    assert_eq!(data["nights_ahead"][0]["place"], "Club room, 12 Elm Street");
    // An edited link is refused in words.
    let forged = action.replace(&format!("/{id}/"), &format!("/{id}/9"));
    assert!(
        text_at(&ann_phone, &forged)
            .await
            .contains("not one the club sent")
    );

    // Bea, Cy and Dot say coming: the seats are full. Eve waits; the owner says maybe.
    for c in &members[1..4] {
        reply(&app, c, id, "coming").await;
    }
    let eve = reply(&app, &members[4], id, "coming").await;
    assert_eq!(eve["your_waiting"], 1);
    reply(&app, &owner, id, "maybe").await;
    let now = reply(&app, &members[0], id, "coming").await;
    assert_eq!(
        counts(&now),
        (4, 1, 1, 0),
        "saying coming again keeps Ann's seat"
    );
    let names: Vec<(&str, &str)> = now["replies"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| (r["name"].as_str().unwrap(), r["answer"].as_str().unwrap()))
        .collect();
    assert_eq!(names[0], ("ann@example.org", "coming"));
    assert_eq!(names[4], ("eve@example.org", "coming"));

    // A stranger to the club sees the counts of a public league's night, never the names.
    set_visibility(&app, &owner, t.league, "public").await;
    let public = json(
        reqwest::Client::new()
            .get(app.url(&format!("/api/v1/scheduled-nights/{id}")))
            .send()
            .await
            .unwrap(),
        200,
    )
    .await;
    assert_eq!(counts(&public), (4, 1, 1, 0));
    assert!(public["replies"].is_null(), "{public}");

    // Bea cannot come after all: Eve gets the seat and a mail saying so.
    let before = sink.messages().len();
    let now = reply(&app, &members[1], id, "not_coming").await;
    assert_eq!(counts(&now), (4, 0, 1, 1));
    let got = sink.wait_for(before + 1).await;
    let seat = &got[before];
    assert_eq!(seat.to, ["eve@example.org"]);
    assert!(seat.parsed().subject().unwrap().contains("a seat for you"));

    // The calendar feed: one event at the right moment in UTC, lines as RFC 5545 says.
    let ics = reqwest::Client::new()
        .get(app.url(&format!("/api/v1/leagues/{}/calendar.ics", t.league)))
        .send()
        .await
        .unwrap();
    assert_eq!(ics.status(), 200);
    assert!(
        ics.headers()["content-type"]
            .to_str()
            .unwrap()
            .starts_with("text/calendar")
    );
    let lines = unfolded(&ics.text().await.unwrap());
    assert_eq!(lines.first().unwrap(), "BEGIN:VCALENDAR");
    assert_eq!(lines.last().unwrap(), "END:VCALENDAR");
    for needed in ["VERSION:2.0", "BEGIN:VEVENT", "END:VEVENT"] {
        assert!(lines.iter().any(|l| l == needed), "{needed} in {lines:?}");
    }
    assert!(lines.iter().any(|l| l.starts_with("PRODID:")));
    assert!(lines.iter().any(|l| l.starts_with("DTSTAMP:")));
    assert!(lines.iter().any(|l| l.starts_with("UID:scheduled-night-")));
    let start = format!("DTSTART:{}", new_york.format("%Y%m%dT%H%M%SZ"));
    assert!(lines.contains(&start), "{start} in {lines:?}");
    assert!(
        lines.contains(&"LOCATION:Club room\\, 12 Elm Street".to_string()),
        "{lines:?}"
    );

    // Members-only again: the feed needs a member's key, which the league page gives them.
    set_visibility(&app, &owner, t.league, "members").await;
    let feed = app.url(&format!("/api/v1/leagues/{}/calendar.ics", t.league));
    assert_eq!(reqwest::get(&feed).await.unwrap().status(), 404);
    let league_page = text_at(&members[2], &app.url(&format!("/leagues/{}", t.league))).await;
    let at = league_page
        .find("calendar.ics?key=")
        .expect("the key on the page");
    let key: String = league_page[at + "calendar.ics?key=".len()..]
        .chars()
        .take_while(|c| c.is_ascii_alphanumeric() || *c == '-')
        .collect();
    assert_eq!(
        reqwest::get(format!("{feed}?key={key}"))
            .await
            .unwrap()
            .status(),
        200
    );
    let flipped = if key.ends_with('0') { '1' } else { '0' };
    let forged = format!("{feed}?key={}{flipped}", &key[..key.len() - 1]);
    assert_eq!(reqwest::get(&forged).await.unwrap().status(), 404);

    // Check-in starts from the replies: everyone coming with a seat, and Cy, who had no player,
    // gets one under her name in the same step.
    let res = owner
        .post(app.url(&format!("/api/v1/scheduled-nights/{id}/start")))
        .send()
        .await
        .unwrap();
    // `without_player` is retiring: the answer says since when and until when it is there.
    assert_eq!(res.headers()["deprecation"], "@1795737600");
    assert_eq!(res.headers()["sunset"], "Tue, 01 Jun 2027 00:00:00 GMT");
    assert!(
        res.headers()["link"]
            .to_str()
            .unwrap()
            .contains("rel=\"deprecation\""),
        "{:?}",
        res.headers()
    );
    let started = json(res, 201).await;
    assert_eq!(started["checked_in"], 4, "{started}");
    assert_eq!(started["added"], json!(["cy@example.org"]));
    assert_eq!(started["without_player"], json!([]));
    assert!(
        started["message"]
            .as_str()
            .unwrap()
            .contains("Added to the club's player list: cy@example.org."),
        "{started}"
    );
    let cy: i64 = sqlx::query_scalar(
        "SELECT p.id FROM players p JOIN users u ON u.id = p.user_id WHERE u.email = 'cy@example.org'",
    )
    .fetch_one(&app.db)
    .await
    .unwrap();
    let mut checked: Vec<i64> = started["night"]["checkins"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["id"].as_i64().unwrap())
        .collect();
    checked.sort();
    let mut want = vec![t.players[0], t.players[3], t.players[4], cy];
    want.sort();
    assert_eq!(checked, want);
    assert_eq!(started["night"]["date"], json!(date));
    let res = owner
        .post(app.url(&format!("/api/v1/scheduled-nights/{id}/start")))
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), 409, "started once");
    let res = members[1]
        .put(app.url(&format!("/api/v1/scheduled-nights/{id}/reply")))
        .json(&json!({ "answer": "coming" }))
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), 409, "replies close when check-in starts");
}

#[tokio::test]
async fn reminders_and_cancellations_are_mailed_and_bad_input_is_named() {
    let sink = SmtpSink::start().await;
    let app = app_mailing_to(&sink).await;
    let owner = club_owner(&app, "tiles", "owner@example.org").await;
    let t = one_table(&app, &owner, "tiles", &["Ann", "Bea", "Cy", "Dot"]).await;
    let ann = member_of(&app, &owner, "tiles", "ann@example.org", "member").await;
    let bea = member_of(&app, &owner, "tiles", "bea@example.org", "member").await;
    let schedule = |body: Value| {
        owner
            .post(app.url(&format!("/api/v1/leagues/{}/schedule", t.league)))
            .json(&body)
            .send()
    };

    // Refusals name the field and say why.
    let tomorrow = (Utc::now() + Duration::days(1)).date_naive();
    let yesterday = (Utc::now() - Duration::days(1)).date_naive();
    for (body, field, words) in [
        (
            json!({"date": yesterday, "time": "19:00", "place": "Hall", "tables": 2}),
            "date",
            "has passed",
        ),
        (
            json!({"date": tomorrow, "time": "7pm", "place": "Hall", "tables": 2}),
            "time",
            "HH:MM",
        ),
        (
            json!({"date": tomorrow, "time": "19:00", "place": "  ", "tables": 2}),
            "place",
            "1 to 200",
        ),
        (
            json!({"date": tomorrow, "time": "19:00", "place": "Hall", "tables": 0}),
            "tables",
            "1 to 100",
        ),
        (
            json!({"date": tomorrow, "time": "19:00", "place": "Hall", "tables": 2, "remind_hours": 500}),
            "remind_hours",
            "168",
        ),
    ] {
        let p = json(schedule(body.clone()).await.unwrap(), 422).await;
        assert_eq!(p["errors"][0]["field"], field, "{body} → {p}");
        assert!(p["detail"].as_str().unwrap().contains(words), "{p}");
    }
    let res = ann
        .post(app.url(&format!("/api/v1/leagues/{}/schedule", t.league)))
        .json(&json!({"date": tomorrow, "time": "19:00", "place": "Hall", "tables": 2}))
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), 403, "members do not schedule");

    // Three days ahead with the default reminder a day before, and a night with none.
    let before = sink.wait_for(2).await.len();
    let soon = json(
        schedule(json!({"date": tomorrow + Duration::days(2), "time": "19:00", "place": "Hall", "tables": 2}))
            .await
            .unwrap(),
        201,
    )
    .await;
    let soon_id = soon["id"].as_i64().unwrap();
    let later = json(
        schedule(json!({"date": tomorrow + Duration::days(14), "time": "19:00", "place": "Hall", "tables": 2, "remind_hours": 0}))
            .await
            .unwrap(),
        201,
    )
    .await;
    let later_id = later["id"].as_i64().unwrap();
    reply(&app, &ann, soon_id, "coming").await;
    reply(&app, &bea, soon_id, "not_coming").await;
    reply(&app, &ann, later_id, "maybe").await;
    reply(&app, &bea, later_id, "not_coming").await;
    // 3 members asked twice; no reminder yet.
    sink.wait_for(before + 6).await;
    common::passes(6).await;
    assert_eq!(
        sink.messages().len(),
        before + 6,
        "no reminder before its time"
    );
    // The clock moves on: the night starts in 20 hours. Ann (coming) is reminded; Bea is not.
    sqlx::query(
        "UPDATE scheduled_nights SET starts_at = now() + interval '20 hours', \
         created_at = now() - interval '2 days' WHERE id = $1",
    )
    .bind(soon_id)
    .execute(&app.db)
    .await
    .unwrap();
    let got = sink.wait_for(before + 7).await;
    let reminders: Vec<_> = got
        .iter()
        .filter(|m| m.parsed().subject().unwrap_or("").starts_with("Reminder:"))
        .collect();
    assert_eq!(reminders.len(), 1, "one reminder, to Ann only");
    assert_eq!(reminders[0].to, ["ann@example.org"]);
    assert!(reminders[0].text().contains("you have a seat"));

    // A night scheduled inside its reminder window gets no separate reminder: its asking mail
    // is one.
    let inside = json(
        schedule(json!({"date": tomorrow, "time": "23:30", "place": "Hall", "tables": 1, "remind_hours": 48}))
            .await
            .unwrap(),
        201,
    )
    .await;
    reply(&app, &ann, inside["id"].as_i64().unwrap(), "coming").await;
    sink.wait_for(before + 10).await;

    // Cancelling tells Ann (maybe), not Bea (not coming); the calendar drops the night.
    let res = owner
        .delete(app.url(&format!("/api/v1/scheduled-nights/{later_id}")))
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), 204);
    let got = sink.wait_for(before + 11).await;
    let cancelled = got.last().unwrap();
    assert_eq!(cancelled.to, ["ann@example.org"]);
    assert!(cancelled.parsed().subject().unwrap().contains("cancelled"));
    let res = ann
        .put(app.url(&format!("/api/v1/scheduled-nights/{later_id}/reply")))
        .json(&json!({ "answer": "coming" }))
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), 409);
    let list = json(
        ann.get(app.url(&format!("/api/v1/leagues/{}/schedule", t.league)))
            .send()
            .await
            .unwrap(),
        200,
    )
    .await;
    let ids: Vec<i64> = list["scheduled_nights"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["id"].as_i64().unwrap())
        .collect();
    assert_eq!(ids, [soon_id, inside["id"].as_i64().unwrap()], "by start");
    common::passes(6).await;
    assert_eq!(
        sink.messages().len(),
        before + 11,
        "each reminder went once"
    );
}
