//! Deprecation in practice (issue 65): every field the OpenAPI document marks deprecated is
//! still answered, over real HTTP, until its Sunset: an app built on it keeps working, and each
//! answer that uses it says since when and until when (`Deprecation`, `Sunset`, `Link` to the
//! changelog). A field marked deprecated without such a run here fails the test, so a new one
//! cannot be retired silently.

mod common;

use chrono::{DateTime, Duration, Utc};
use common::{TestApp, club_owner, one_table, spawn_app};
use mahjong_league::api::retiring::{self, Retiring};
use serde_json::{Value, json};

/// The headers every answer that uses `r` carries.
fn announced(res: &reqwest::Response, r: &Retiring) {
    let h = res.headers();
    assert_eq!(h["deprecation"], format!("@{}", r.since).as_str());
    assert_eq!(h["sunset"], r.sunset);
    let link = h["link"].to_str().unwrap();
    assert!(
        link.contains("rel=\"deprecation\"") && link.contains("#changelog"),
        "{link}"
    );
}

/// `SignUp.password`: an older app still sends a password when signing up; the sign-up is taken
/// as always (202, the link mailed), and the answer says the field is retiring.
async fn sign_up_password(app: &TestApp) {
    let r = &retiring::SIGN_UP_PASSWORD;
    let res = reqwest::Client::new()
        .post(app.url("/api/v1/users"))
        .json(
            &json!({"email": "old.app@example.org", "display_name": "Old App",
                      "password": "a password of old"}),
        )
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), 202);
    announced(&res, r);
    // Taken: still waiting for the outbox's worker, or already its mail (the worker may be
    // quicker than this read).
    let asked: i64 = sqlx::query_scalar(
        "SELECT (SELECT count(*) FROM signup_requests WHERE email = 'old.app@example.org') \
              + (SELECT count(*) FROM mail_outbox WHERE to_address = 'old.app@example.org')",
    )
    .fetch_one(&app.db)
    .await
    .unwrap();
    assert_eq!(asked, 1, "the sign-up is taken");
    // Without it, nothing is said about retiring.
    let res = reqwest::Client::new()
        .post(app.url("/api/v1/users"))
        .json(&json!({"email": "new.app@example.org", "display_name": "New App"}))
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), 202);
    assert!(res.headers().get("deprecation").is_none());
}

/// `Started.without_player`: starting check-in from a night ahead still answers the field
/// (always empty now), announced.
async fn started_without_player(app: &TestApp) {
    let r = &retiring::STARTED_WITHOUT_PLAYER;
    let owner = club_owner(app, "retiring", "owner@example.org").await;
    let t = one_table(app, &owner, "retiring", &["Ann", "Bea", "Cy", "Dot"]).await;
    let date = (Utc::now() + Duration::days(2)).date_naive();
    let made: Value = owner
        .post(app.url(&format!("/api/v1/leagues/{}/schedule", t.league)))
        .json(&json!({"date": date, "time": "19:00", "place": "Club room", "tables": 1}))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    let res = owner
        .post(app.url(&format!(
            "/api/v1/scheduled-nights/{}/start",
            made["id"].as_i64().expect("a night ahead")
        )))
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), 201);
    announced(&res, r);
    let started: Value = res.json().await.unwrap();
    assert_eq!(started["without_player"], json!([]), "{started}");
}

#[tokio::test]
async fn every_deprecated_field_is_still_answered_until_its_sunset() {
    let app = spawn_app().await;
    let mut run = Vec::new();
    for r in retiring::ALL {
        let sunset = DateTime::parse_from_rfc2822(r.sunset)
            .unwrap_or_else(|e| panic!("{}.{}: sunset {}: {e}", r.schema, r.field, r.sunset));
        let name = format!("{}.{}", r.schema, r.field);
        if Utc::now() >= sunset {
            // Past its sunset the field may be gone: the changelog says when it went.
            continue;
        }
        match name.as_str() {
            "SignUp.password" => sign_up_password(&app).await,
            "Started.without_player" => started_without_player(&app).await,
            other => {
                panic!("{other} is deprecated: show here that it is answered until its sunset")
            }
        }
        run.push(name);
    }
    assert!(!run.is_empty(), "no deprecated field was tried");
}
