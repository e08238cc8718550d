//! The foundation over real HTTP: health, the landing page, errors in both formats, the
//! OpenAPI document and Swagger UI.

mod common;

use common::spawn_app;

#[tokio::test]
async fn health_and_readiness() {
    let app = spawn_app().await;
    let res = app.get("/healthz").await;
    assert_eq!(res.status(), 200);
    assert!(res.headers().contains_key("x-request-id"));
    let res = app.get("/readyz").await;
    assert_eq!(res.status(), 200);
    let body: serde_json::Value = res.json().await.unwrap();
    assert_eq!(body["status"], "ready");
}

#[tokio::test]
async fn readiness_fails_when_the_database_is_gone() {
    let app = spawn_app().await;
    common::database_away(&app, true).await;
    let res = app.get("/readyz").await;
    assert_eq!(res.status(), 503);
    // As its OpenAPI says: a problem in JSON, and when to ask again.
    assert_eq!(res.headers()["content-type"], "application/problem+json");
    assert!(res.headers().contains_key("retry-after"));
}

#[tokio::test]
async fn landing_page_lists_public_leagues_and_links_the_stylesheet() {
    let app = spawn_app().await;
    mahjong_league::storage::people::clubs::ensure_demo(&app.db)
        .await
        .unwrap();
    let res = app.get("/").await;
    assert_eq!(res.status(), 200);
    let html = res.text().await.unwrap();
    assert!(html.contains("Demo Mah Jongg Club"), "{html}");
    assert!(
        html.contains("Demo league"),
        "the demo club shows through its public league"
    );
    assert!(html.contains("/static/style.css"));
    let css = app.get("/static/style.css").await;
    assert_eq!(css.status(), 200);
    assert!(
        css.headers()["content-type"]
            .to_str()
            .unwrap()
            .starts_with("text/css")
    );
}

#[tokio::test]
async fn unknown_routes_are_404_in_the_format_of_their_part() {
    let app = spawn_app().await;
    let res = app.get("/api/v1/nothing-here").await;
    assert_eq!(res.status(), 404);
    assert_eq!(res.headers()["content-type"], "application/problem+json");
    let body: serde_json::Value = res.json().await.unwrap();
    assert_eq!(body["status"], 404);
    assert_eq!(body["detail"], "no route for GET /api/v1/nothing-here");

    let res = app.get("/no/such/page").await;
    assert_eq!(res.status(), 404);
    assert!(
        res.headers()["content-type"]
            .to_str()
            .unwrap()
            .starts_with("text/html")
    );
    assert!(
        res.text()
            .await
            .unwrap()
            .contains("No route for GET /no/such/page.")
    );

    // The health endpoints are for machines: their errors are JSON too, and a method they do
    // not take is 405.
    let res = app.client.post(app.url("/healthz")).send().await.unwrap();
    assert_eq!(res.status(), 405);
    assert_eq!(res.headers()["allow"], "GET");
    assert!(
        res.headers()["content-type"]
            .to_str()
            .unwrap()
            .starts_with("application/problem+json")
    );
}

#[tokio::test]
async fn served_openapi_equals_the_committed_document() {
    let app = spawn_app().await;
    let served: serde_json::Value = app.get("/api/openapi.json").await.json().await.unwrap();
    let committed: serde_json::Value =
        serde_json::from_str(include_str!("../openapi/openapi.json"))
            .expect("openapi/openapi.json is JSON");
    // The service serves the committed file; the code's own document must be that file.
    let made = serde_json::to_value(mahjong_league::api::openapi()).unwrap();
    assert_eq!(
        made, committed,
        "openapi/openapi.json is out of date: run `make openapi`"
    );
    assert_eq!(served, committed);
    assert_eq!(served["openapi"], "3.1.0");
}

#[tokio::test]
async fn swagger_ui_is_served_from_the_binary() {
    let app = spawn_app().await;
    let res = app.get("/api/docs").await;
    assert!(res.status().is_redirection());
    let res = app.get("/api/docs/").await;
    assert_eq!(res.status(), 200);
    let html = res.text().await.unwrap();
    assert!(html.contains("swagger-ui"), "{html}");
    for asset in [
        "/api/docs/swagger-ui.css",
        "/api/docs/swagger-ui-bundle.js",
        "/api/docs/swagger-initializer.js",
    ] {
        let res = app.get(asset).await;
        assert_eq!(res.status(), 200, "{asset}");
    }
    let init = app
        .get("/api/docs/swagger-initializer.js")
        .await
        .text()
        .await
        .unwrap();
    assert!(init.contains("/api/openapi.json"));
}
