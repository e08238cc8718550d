//! `/metrics` over real HTTP (issue 30, item 3): Prometheus's text format with the requests by
//! route template and status, games recorded, open event streams, the webhook outbox, the pools
//! and the standings cache, each moving as the service is used; answered on loopback, and
//! through a proxy or from elsewhere only with the metrics token. The Grafana dashboard in
//! `deploy/` queries only metrics the service exposes.

mod common;

use common::{club_owner, one_table, spawn_app, spawn_app_with};
use mahjong_league::config::Secret;
use serde_json::json;

/// The value of the sample `name{labels}` (labels as Prometheus writes them, sorted), 0 when
/// absent.
fn sample(text: &str, series: &str) -> f64 {
    text.lines()
        .find_map(|l| {
            l.strip_prefix(series)
                .and_then(|rest| rest.trim().parse().ok())
        })
        .unwrap_or(0.0)
}

async fn scrape(app: &common::TestApp) -> String {
    let res = app.get("/metrics").await;
    assert_eq!(res.status(), 200);
    assert!(
        res.headers()["content-type"]
            .to_str()
            .unwrap()
            .starts_with("text/plain; version=0.0.4")
    );
    res.text().await.unwrap()
}

#[tokio::test]
async fn metrics_move_as_the_service_is_used() {
    let app = spawn_app().await;
    let owner = club_owner(&app, "metered", "m@example.org").await;
    let t = one_table(&app, &owner, "metered", &["Ann", "Bea", "Cy", "Dee"]).await;
    let standings = format!("/api/v1/leagues/{}/standings", t.league);
    let series = "mahjong_http_requests_total{method=\"GET\",route=\"/api/v1/leagues/{league}/standings\",status=\"200\"}";
    let before = scrape(&app).await;
    for name in [
        "mahjong_http_request_duration_seconds_bucket",
        "mahjong_games_recorded_total",
        "mahjong_event_streams_open",
        "mahjong_webhook_outbox_pending",
        "mahjong_mail_outbox{status=\"failed\"} 0",
        "mahjong_db_pool_connections{pool=\"requests\",state=\"idle\"}",
        "mahjong_db_pool_connections{pool=\"game_entry\",state=\"in_use\"}",
        "mahjong_standings_cache_total{result=\"hit\"}",
    ] {
        assert!(before.contains(name), "{name} in {before}");
    }

    // Two reads of the standings: counted under the route's template, one miss then a hit.
    for _ in 0..2 {
        assert_eq!(
            owner
                .get(app.url(&standings))
                .send()
                .await
                .unwrap()
                .status(),
            200
        );
    }
    // A game recorded, and an event stream open meanwhile.
    let mut stream = common::sse::Sse::open(
        &owner,
        &app.url(&format!("/api/v1/leagues/{}/events", t.league)),
        None,
    )
    .await;
    let res = owner
        .post(app.url(&format!("/api/v1/tables/{}/games", t.table)))
        .json(&json!({"number": 1, "outcome": "wall"}))
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), 201);
    assert!(
        stream
            .next(std::time::Duration::from_secs(10))
            .await
            .is_some()
    );
    let after = scrape(&app).await;
    assert_eq!(
        sample(&after, series) - sample(&before, series),
        2.0,
        "{after}"
    );
    assert_eq!(
        sample(&after, "mahjong_games_recorded_total")
            - sample(&before, "mahjong_games_recorded_total"),
        1.0
    );
    assert_eq!(sample(&after, "mahjong_event_streams_open"), 1.0, "{after}");
    let reads = |t: &str| {
        sample(t, "mahjong_standings_cache_total{result=\"hit\"}")
            + sample(t, "mahjong_standings_cache_total{result=\"miss\"}")
    };
    assert_eq!(reads(&after) - reads(&before), 2.0);
    assert!(sample(&after, "mahjong_standings_cache_total{result=\"miss\"}") >= 1.0);
    // The standings read is kept, and what it takes is counted within the budget.
    let kept = sample(&after, "mahjong_cache_bytes{cache=\"standings_bodies\"}");
    assert!(kept > 0.0 && kept <= 256.0 * 1024.0 * 1024.0, "{after}");
    assert!(sample(&after, "mahjong_cache_bytes{cache=\"standings_rows\"}") > 0.0);
    // A route nobody has is one series, not one per path.
    app.get("/no/such/page/12345").await;
    let text = scrape(&app).await;
    assert!(text.contains("route=\"unmatched\""), "{text}");
    assert!(!text.contains("12345"));
    drop(stream);

    // The dashboard asks only for what is here.
    let dashboard: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(
            std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("deploy/grafana-dashboard.json"),
        )
        .unwrap(),
    )
    .unwrap();
    let mut asked = 0;
    for panel in dashboard["panels"].as_array().unwrap() {
        for target in panel["targets"].as_array().unwrap() {
            let expr = target["expr"].as_str().unwrap();
            let names: Vec<&str> = expr
                .split(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
                .filter(|w| w.starts_with("mahjong_"))
                .collect();
            assert!(!names.is_empty(), "{expr}");
            for n in names {
                assert!(
                    text.contains(n),
                    "the dashboard asks for {n}, which /metrics lacks"
                );
                asked += 1;
            }
        }
    }
    assert!(asked >= 7);
}

#[tokio::test]
async fn through_a_proxy_metrics_need_the_token() {
    let app = spawn_app_with(|s| s.metrics_token = Some(Secret::new("a-long-metrics-token"))).await;
    let forwarded = |req: reqwest::RequestBuilder| req.header("X-Forwarded-For", "198.51.100.4");
    let c = reqwest::Client::new();
    let res = forwarded(c.get(app.url("/metrics"))).send().await.unwrap();
    assert_eq!(res.status(), 401);
    let res = forwarded(c.get(app.url("/metrics")).bearer_auth("wrong"))
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), 401);
    let res = forwarded(
        c.get(app.url("/metrics"))
            .bearer_auth("a-long-metrics-token"),
    )
    .send()
    .await
    .unwrap();
    assert_eq!(res.status(), 200);
    assert!(
        res.text()
            .await
            .unwrap()
            .contains("mahjong_http_requests_total")
    );
    // Without a token set, a forwarded request is refused outright.
    let plain = spawn_app().await;
    let res = forwarded(c.get(plain.url("/metrics")))
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), 403);
}
