//! An organizer tests an app's webhook from the club's API page, on a tablet, in a real headless
//! Chromium: the receiver (a real HTTP server here) gets one signed `webhook.test` event and the
//! page says what it answered, in the webhooks' section; when the receiver is down, the page says
//! so in words. axe finds nothing, at phone and tablet widths.

#[path = "common/browser.rs"]
mod browser;
mod common;

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};

use actix_web::{App, HttpRequest, HttpResponse, HttpServer, web};
use browser::*;
use common::{PASSWORD, club_owner, spawn_app};
use serde_json::{Value, json};

/// A receiver that counts the test events it takes, or answers 503 while `down`.
#[derive(Clone, Default)]
struct Receiver {
    tests: Arc<AtomicUsize>,
    down: Arc<AtomicBool>,
}

async fn hook(req: HttpRequest, body: web::Bytes, r: web::Data<Receiver>) -> HttpResponse {
    if r.down.load(Ordering::SeqCst) {
        return HttpResponse::ServiceUnavailable().finish();
    }
    let event: Value = serde_json::from_slice(&body).unwrap_or(Value::Null);
    let signed = req.headers().contains_key("mahjong-signature");
    if event["type"] == "webhook.test" && signed {
        r.tests.fetch_add(1, Ordering::SeqCst);
    }
    HttpResponse::NoContent().finish()
}

#[tokio::test]
async fn an_organizer_sends_a_test_event_and_reads_what_the_app_answered() {
    let app = spawn_app().await;
    let owner = club_owner(&app, "tiles", "owner@example.org").await;
    let r = Receiver::default();
    let data = web::Data::new(r.clone());
    let server = HttpServer::new(move || {
        App::new()
            .app_data(data.clone())
            .route("/hook", web::post().to(hook))
    })
    .workers(1)
    .bind(("127.0.0.1", 0))
    .unwrap();
    let hook_url = format!("http://127.0.0.1:{}/hook", server.addrs()[0].port());
    tokio::spawn(server.run());
    // The app registers its webhook through the API.
    let res = owner
        .post(app.url("/api/v1/clubs/tiles/webhooks"))
        .json(&json!({ "url": hook_url }))
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), 201);

    let (_driver, c) = browser().await;
    c.set_window_size(820, 1180).await.unwrap();
    log_in(
        &c,
        &app.url(""),
        "owner@example.org",
        PASSWORD,
        "/clubs/tiles/tokens",
    )
    .await;
    wait_text(&c, "#webhooks h2", "Webhooks").await;
    let row = text_of(&c, "#webhooks .webhook-list li").await;
    assert!(row.contains(&hook_url) && row.contains("Working"), "{row}");
    click(&c, "#webhooks button[type=submit]").await;
    let said = wait_text(&c, "#webhooks .flash.ok", "Test event sent to").await;
    assert!(said.contains(&hook_url) && said.contains("204"), "{said}");
    assert_eq!(r.tests.load(Ordering::SeqCst), 1, "one signed test event");
    // The result is in the webhooks' section, not at the top of the page.
    assert!(
        c.find(fantoccini::Locator::Css("main > .flash"))
            .await
            .is_err(),
        "the result is shown where the organizer tapped"
    );
    let (rules, found) = axe(&c).await;
    assert!(rules > 0);
    assert_eq!(found, json!([]), "axe on the tokens page with a webhook");
    shots(&c, "webhook-tested").await;
    // The section itself at phone and tablet widths, where the organizer looks.
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("target/screenshots");
    for w in [390, 820] {
        c.set_window_size(w, 900).await.unwrap();
        c.execute(
            "document.getElementById('webhooks').scrollIntoView()",
            vec![],
        )
        .await
        .unwrap();
        let png = c.screenshot().await.unwrap();
        std::fs::write(dir.join(format!("webhooks-{w}.png")), png).unwrap();
    }
    c.set_window_size(820, 1180).await.unwrap();

    // The app is down: said in words, with what it answered.
    r.down.store(true, Ordering::SeqCst);
    click(&c, "#webhooks button[type=submit]").await;
    let said = wait_text(&c, "#webhooks .flash.bad", "did not reach").await;
    assert!(said.contains("503") && said.contains(&hook_url), "{said}");
    assert_eq!(r.tests.load(Ordering::SeqCst), 1);
    let (_, found) = axe(&c).await;
    assert_eq!(found, json!([]), "axe with the refusal shown");
    // Nothing was queued for delivery by the tests.
    let hooks: Value = owner
        .get(app.url("/api/v1/clubs/tiles/webhooks"))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(hooks["webhooks"][0]["pending"], 0);
    assert_eq!(hooks["webhooks"][0]["delivered"], 0);
}
