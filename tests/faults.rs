//! Faults (issue 13): the database away answers 503 with `Retry-After` quickly, in the format of
//! its part of the site, and the service comes back by itself.

mod common;

use std::time::Duration;

use common::{admin_connection, club_owner, spawn_app};
use serde_json::json;

/// Closes (or reopens) the app's database to connections, ending the sessions it has.
async fn database_away(app: &common::TestApp, away: bool) {
    let name = app.db.connect_options().get_database().unwrap().to_string();
    let mut admin = admin_connection().await;
    sqlx::query(sqlx::AssertSqlSafe(format!(
        "ALTER DATABASE \"{name}\" ALLOW_CONNECTIONS {}",
        if away { "false" } else { "true" }
    )))
    .execute(&mut admin)
    .await
    .unwrap();
    if away {
        sqlx::query("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid()")
            .bind(&name)
            .execute(&mut admin)
            .await
            .unwrap();
    }
}

/// A guard against a request that never ends (not a speed limit).
async fn answered(req: reqwest::RequestBuilder) -> reqwest::Response {
    tokio::time::timeout(Duration::from_secs(20), req.send())
        .await
        .expect("the service answered")
        .expect("request sent")
}

#[tokio::test]
async fn the_database_away_is_a_503_and_the_service_comes_back() {
    let app = spawn_app().await;
    let owner = club_owner(&app, "outage", "owner@example.org").await;
    database_away(&app, true).await;

    let res = answered(owner.get(app.url("/api/v1/clubs/outage/players"))).await;
    assert_eq!(res.status(), 503);
    assert_eq!(res.headers()["content-type"], "application/problem+json");
    let wait: u64 = res.headers()["retry-after"]
        .to_str()
        .unwrap()
        .parse()
        .unwrap();
    assert!(wait >= 1);
    let body: serde_json::Value = res.json().await.unwrap();
    assert!(
        body["detail"].as_str().unwrap().contains("database"),
        "{body}"
    );

    let res = answered(
        owner
            .post(app.url("/api/v1/clubs/outage/players"))
            .json(&json!({"name": "Pat"})),
    )
    .await;
    assert_eq!(res.status(), 503);

    let res = answered(app.client.get(app.url("/readyz"))).await;
    assert_eq!(res.status(), 503);
    assert_eq!(res.headers()["content-type"], "application/problem+json");
    let res = answered(app.client.get(app.url("/healthz"))).await;
    assert_eq!(res.status(), 200, "the process itself is alive");
    let res = answered(owner.get(app.url("/clubs/outage"))).await;
    assert_eq!(res.status(), 503);
    assert!(
        res.headers()["content-type"]
            .to_str()
            .unwrap()
            .starts_with("text/html")
    );

    database_away(&app, false).await;
    let res = answered(app.client.get(app.url("/readyz"))).await;
    assert_eq!(res.status(), 200);
    let res = answered(
        owner
            .post(app.url("/api/v1/clubs/outage/players"))
            .json(&json!({"name": "Pat"})),
    )
    .await;
    assert_eq!(res.status(), 201, "back by itself");
}
