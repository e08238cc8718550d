//! The stateless engine endpoints answer as the CLI does.

mod common;

use common::spawn_app;
use mahjong_league::rules::answers::{adjudicate_value, check_value, score_value};
use mahjong_league::rules::{Card, GameResult, parse_tiles};
use serde_json::{Value, json};

const EXAMPLE: &str = include_str!("fixtures/example.toml");

#[tokio::test]
async fn check_adjudicate_and_preview_match_the_engine() {
    let app = spawn_app().await;
    let card = Card::parse(EXAMPLE).unwrap();
    let hands = [
        ("F F 2B J 2B 4B 4B J 4B 6C 6C 6C 8C 8C", vec!["2B J 2B"]),
        ("F F 2B 2B 2B 4B 4B 4B 4B 6C 6C 6C 8C J", vec![]),
        ("N N N E E E E W W W W S S S", vec!["N N N"]),
    ];
    for (hand, exposures) in hands {
        let res = app
            .client
            .post(app.url("/api/v1/hands/check"))
            .json(&json!({"card": EXAMPLE, "hand": hand, "exposures": exposures}))
            .send()
            .await
            .unwrap();
        assert_eq!(res.status(), 200);
        let got: Value = res.json().await.unwrap();
        let exps: Vec<_> = exposures.iter().map(|e| parse_tiles(e).unwrap()).collect();
        assert_eq!(
            got,
            check_value(&card, &parse_tiles(hand).unwrap(), &exps).unwrap(),
            "{hand}"
        );
    }
    let res = app.client.post(app.url("/api/v1/hands/adjudicate")).json(&json!({"card": EXAMPLE, "exposures": ["2B 2B 2B", ["6C", "6C", "J"]], "out_of_play": "8C 8C 8C"})).send().await.unwrap();
    let got: Value = res.json().await.unwrap();
    let exps = vec![
        parse_tiles("2B 2B 2B").unwrap(),
        parse_tiles("6C 6C J").unwrap(),
    ];
    assert_eq!(
        got,
        adjudicate_value(&card, &exps, &parse_tiles("8C 8C 8C").unwrap()).unwrap()
    );
    assert_eq!(got["reason"], "impossible");

    let result = json!({"seats": ["E","S","W","N"], "outcome": "mahjong", "winner": "E", "hand": "F F 2B 2B 2B 4B 4B 4B 4B 6C 6C 6C 8C 8C", "won_by": "discard", "discarder": "S"});
    let res = app
        .client
        .post(app.url("/api/v1/scores/preview"))
        .json(&json!({"card": EXAMPLE, "ruleset": "bigcard-points", "result": result}))
        .send()
        .await
        .unwrap();
    let got: Value = res.json().await.unwrap();
    let mut r: GameResult = serde_json::from_value(result).unwrap();
    r.ruleset = Some(serde_json::from_value(json!("bigcard-points")).unwrap());
    assert_eq!(got, score_value(&card, &r).unwrap());
    assert_eq!(got["scores"]["E"], 55);
}

#[tokio::test]
async fn built_in_cards_by_name_and_bad_input_named() {
    let app = spawn_app().await;
    let post = |path: &str, body: Value| app.client.post(app.url(path)).json(&body).send();
    let res = post(
        "/api/v1/hands/check",
        json!({"card": "demo-2026", "hand": "F F 2B 2B J 2B 4C 4C 6C 6C 8B 8B J 8B"}),
    )
    .await
    .unwrap();
    let v: Value = res.json().await.unwrap();
    assert_eq!(v["best"]["id"], "2468#2");

    for (path, body, status, field) in [
        (
            "/api/v1/hands/check",
            json!({"card": "demo-2026", "hand": "F F 2B"}),
            422,
            "hand",
        ),
        (
            "/api/v1/hands/check",
            json!({"card": "demo-2026", "hand": "F F 2B 2B J 2B 4C 4C 6C 6C 8B 8B J 8Q"}),
            422,
            "hand",
        ),
        (
            "/api/v1/hands/check",
            json!({"card": "nope", "hand": "F"}),
            422,
            "card",
        ),
        (
            "/api/v1/hands/check",
            json!({"card": "demo-2026"}),
            400,
            "hand",
        ),
        (
            "/api/v1/hands/check",
            json!({"card": "demo-2026", "hand": 7}),
            400,
            "hand",
        ),
        (
            "/api/v1/hands/check",
            json!({"card": "demo-2026", "hand": "F F 2B 2B J 2B 4C 4C 6C 6C 8B 8B J 8B", "exposures": ["8B 2B J"]}),
            422,
            "exposures[0]",
        ),
        (
            "/api/v1/hands/adjudicate",
            json!({"card": "demo-2026", "exposures": [], "out_of_play": "F F F F F F F F F"}),
            422,
            "body",
        ),
        (
            "/api/v1/scores/preview",
            json!({"card": "demo-2026", "ruleset": "nope", "result": {"seats": ["E","S","W","N"], "outcome": "wall"}}),
            422,
            "ruleset",
        ),
        (
            "/api/v1/scores/preview",
            json!({"card": "demo-2026", "ruleset": "tournament", "result": {"seats": ["E","S","W","N"], "outcome": "mahjong", "winner": "E", "discarder": "E", "won_by": "discard", "hand": "F F 2B 2B J 2B 4C 4C 6C 6C 8B 8B J 8B"}}),
            422,
            "discarder",
        ),
    ] {
        let res = post(path, body.clone()).await.unwrap();
        assert_eq!(res.status().as_u16(), status, "{body}");
        let p: Value = res.json().await.unwrap();
        assert_eq!(p["errors"][0]["field"], field, "{body}: {p}");
        assert!(!p["detail"].as_str().unwrap().is_empty());
    }
    // An inline card with errors is refused with its lines.
    let res = post("/api/v1/hands/check", json!({"card": "name = \"x\"\nyear = 1\n[[hand]]\nsection = \"s\"\npattern = \"FF\"\nvalue = 1\n", "hand": "F"})).await.unwrap();
    assert_eq!(res.status(), 422);
    let p: Value = res.json().await.unwrap();
    assert_eq!(p["errors"][0]["line"], 5);
}

#[tokio::test]
async fn engine_calls_are_rate_limited_per_address() {
    let app = spawn_app().await;
    let body = json!({"card": "demo-2026", "exposures": ["2B 2B 2B"]});
    let mut limited = None;
    for i in 0..400 {
        let res = app
            .client
            .post(app.url("/api/v1/hands/adjudicate"))
            .json(&body)
            .send()
            .await
            .unwrap();
        if res.status() == 429 {
            assert!(res.headers().contains_key("retry-after"));
            limited = Some(i);
            break;
        }
        assert_eq!(res.status(), 200);
    }
    let at = limited.expect("the limit was reached");
    assert!(at >= 120, "the first 120 calls pass (limited at {at})");
}
