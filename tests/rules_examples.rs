//! Every worked example of rules.md §6, through the library.

use mahjong_league::rules::{Card, GameResult, Hand, Table, Verdict, parse_tiles};

fn card() -> Card {
    Card::parse(include_str!("fixtures/example.toml")).expect("example card is valid")
}

fn check(card: &Card, hand: &str, exposures: &[&str]) -> mahjong_league::rules::CheckReport {
    let tiles = parse_tiles(hand).unwrap();
    let exps: Vec<_> = exposures.iter().map(|e| parse_tiles(e).unwrap()).collect();
    card.check_report(&card.check(&Hand::new(&tiles, &exps).unwrap()))
}

#[test]
fn the_example_card_has_35_distinct_targets() {
    assert_eq!(card().targets.len(), 35);
}

#[test]
fn matching_examples() {
    let c = card();
    let r = check(&c, "F F 2B 2B 2B 4B 4B 4B 4B 6C 6C 6C 8C 8C", &[]);
    let best = r.best.unwrap();
    assert_eq!(best.id, "2468#1");
    assert_eq!(best.suits.get("g").map(String::as_str), Some("B"));
    assert_eq!(best.suits.get("r").map(String::as_str), Some("C"));
    assert!(best.jokerless);

    let r = check(&c, "F F 2B J 2B 4B 4B J 4B 6C 6C 6C 8C 8C", &[]);
    let best = r.best.unwrap();
    assert_eq!(best.id, "2468#1");
    assert!(!best.jokerless);
    assert_eq!(best.jokers, ["2B", "4B"]);

    // A pair never takes a joker; g and r must be different suits.
    for hand in [
        "F F 2B 2B 2B 4B 4B 4B 4B 6C 6C 6C 8C J",
        "F F 2B 2B 2B 4B 4B 4B 4B 6B 6B 6B 8B 8B",
    ] {
        let r = check(&c, hand, &[]);
        assert!(
            !r.winning && r.best.is_none() && r.matches.is_empty(),
            "{hand}"
        );
        assert_eq!(r.nearest[0].id, "2468#1", "{hand}");
    }
    let r = check(&c, "F F 2B 2B 2B 4B 4B 4B 4B 6C 6C 6C 8C J", &[]);
    assert_eq!(r.nearest[0].missing, 1);
    assert_eq!(r.nearest[0].needs, ["8C"]);

    let r = check(&c, "F F F F 5B 5B 5B 5B 5C 5C 5D J J 5D", &[]);
    let best = r.best.unwrap();
    assert_eq!(best.id, "Like Numbers#1");
    assert_eq!(best.shift, 4);
    assert_eq!(best.jokers, ["5D", "5D"]);

    let r = check(&c, "F F 2B WD 2B 6B 2C WD 2C 6C 2D WD 2D 6D", &[]);
    let best = r.best.unwrap();
    assert_eq!(best.id, "Year#1");
    assert!(best.singles_and_pairs && best.concealed);

    let r = check(&c, "N N N E E E E W W W W S S S", &[]);
    let best = r.best.unwrap();
    assert_eq!(best.id, "Winds#1");
    assert!(best.concealed && best.jokerless);

    let r = check(&c, "N N N E E E E W W W W S S S", &["N N N"]);
    assert!(!r.winning);

    let r = check(&c, "F F 2B 2B 2B 4B 4B 4B 4B 6C 6C 6C 8C 8C", &["2B 2B 2B"]);
    let best = r.best.unwrap();
    assert_eq!((best.id.as_str(), best.exposures), ("2468#1", 1));
}

#[test]
fn adjudication_examples() {
    let c = card();
    let verdict = |exps: &[&str], out: &str| {
        let exps: Vec<_> = exps.iter().map(|e| parse_tiles(e).unwrap()).collect();
        let table = Table::new(&exps, &parse_tiles(out).unwrap()).unwrap();
        c.verdict_report(&c.adjudicate(&table))
    };
    let v = verdict(&["2B 2B 2B", "6C 6C J"], "8C 8C");
    assert_eq!(
        (v.verdict, v.lines),
        ("alive", Some(vec!["2468#1".to_string()]))
    );
    let v = verdict(&["2B 2B 2B", "6C 6C J"], "8C 8C 8C");
    assert_eq!(v.verdict, "dead");
    assert_eq!(serde_json::to_value(v.reason).unwrap(), "impossible");
    let v = verdict(&["5B 5B 5B"], "");
    assert_eq!(serde_json::to_value(v.reason).unwrap(), "no_line");
    let v = verdict(&["N N N"], "");
    assert_eq!(serde_json::to_value(v.reason).unwrap(), "concealed");
    // With no exposures at all, every line is still open.
    let t = Table::new(&[], &[]).unwrap();
    assert_eq!(c.adjudicate(&t), Verdict::Alive(vec![0, 1, 2, 3]));
}

fn scores(result: serde_json::Value, ruleset: &str) -> Vec<(String, i64)> {
    let c = card();
    let mut result = result;
    result["ruleset"] = ruleset.into();
    let r: GameResult = serde_json::from_value(result).unwrap();
    let spec = r.ruleset.clone().unwrap();
    let report = r.validate(&c).unwrap().score(&spec.resolve().unwrap());
    report.scores.0
}

fn expect(result: serde_json::Value, ruleset: &str, want: &[(&str, i64)]) {
    let got = scores(result, ruleset);
    for (seat, n) in want {
        let have = got.iter().find(|(s, _)| s == seat).map(|(_, v)| *v);
        assert_eq!(have, Some(*n), "{ruleset}: seat {seat} in {got:?}");
    }
    let listed: i64 = got
        .iter()
        .filter(|(s, _)| !want.iter().any(|(w, _)| w == s))
        .map(|(_, v)| v.abs())
        .sum();
    assert_eq!(
        listed, 0,
        "{ruleset}: seats not listed must score 0: {got:?}"
    );
}

#[test]
fn scoring_examples() {
    let east_jokerless = serde_json::json!({
        "seats": ["E","S","W","N"], "outcome": "mahjong", "winner": "E",
        "hand": "F F 2B 2B 2B 4B 4B 4B 4B 6C 6C 6C 8C 8C", "exposures": [],
        "won_by": "discard", "discarder": "S"
    });
    let money = [("E", 200), ("S", -100), ("W", -50), ("N", -50)];
    expect(east_jokerless.clone(), "nmjl-money", &money);
    expect(east_jokerless.clone(), "bigcard-money", &money);
    expect(
        east_jokerless.clone(),
        "bigcard-points",
        &[("E", 55), ("S", -10)],
    );
    expect(east_jokerless, "tournament", &[("E", 45), ("S", -10)]);

    let west_three_exposures = serde_json::json!({
        "seats": ["E","S","W","N"], "outcome": "mahjong", "winner": "W",
        "hand": "F F 2B J 2B 4B 4B J 4B 6C 6C 6C 8C 8C",
        "exposures": ["2B J 2B", "4B 4B J 4B", "6C 6C 6C"],
        "won_by": "discard", "discarder": "N"
    });
    expect(
        west_three_exposures.clone(),
        "nmjl-money",
        &[("W", 100), ("N", -50), ("E", -25), ("S", -25)],
    );
    expect(
        west_three_exposures.clone(),
        "bigcard-money",
        &[("W", 100), ("N", -100)],
    );
    expect(
        west_three_exposures.clone(),
        "bigcard-points",
        &[("W", 25), ("N", -25)],
    );
    expect(west_three_exposures, "tournament", &[("W", 25), ("N", -25)]);

    let three_players = serde_json::json!({
        "seats": ["E","S","W"], "outcome": "mahjong", "winner": "S",
        "hand": "F F F F 5B 5B 5B 5B 5C 5C 5D J J 5D", "won_by": "self_pick"
    });
    expect(
        three_players.clone(),
        "nmjl-money",
        &[("S", 120), ("E", -60), ("W", -60)],
    );
    expect(
        three_players.clone(),
        "bigcard-money",
        &[("S", 120), ("E", -60), ("W", -60)],
    );
    expect(three_players.clone(), "bigcard-points", &[("S", 50)]);
    expect(three_players, "tournament", &[("S", 40)]);

    let wall = serde_json::json!({
        "seats": ["E","S","W","N"], "outcome": "wall",
        "dead": [
            {"seat": "W", "called_by": "N", "contested": true, "upheld": true},
            {"seat": "E", "called_by": "S", "contested": true, "upheld": false}
        ]
    });
    let money = [("E", 25), ("S", -25), ("W", -25), ("N", 25)];
    expect(wall.clone(), "nmjl-money", &money);
    expect(wall.clone(), "bigcard-money", &money);
    expect(
        wall.clone(),
        "bigcard-points",
        &[("E", 10), ("N", 10), ("S", 0), ("W", 0)],
    );
    expect(
        wall,
        "tournament",
        &[("E", 10), ("N", 10), ("S", 0), ("W", 0)],
    );
}

#[test]
fn breakdown_says_how_a_score_came_about() {
    let c = card();
    let r: GameResult = serde_json::from_value(serde_json::json!({
        "seats": ["E","S","W","N"], "outcome": "mahjong", "winner": "E",
        "hand": "F F 2B 2B 2B 4B 4B 4B 4B 6C 6C 6C 8C 8C", "won_by": "self_pick"
    }))
    .unwrap();
    let ruleset = mahjong_league::rules::Ruleset::preset("bigcard-points").unwrap();
    let report = r.validate(&c).unwrap().score(&ruleset);
    assert_eq!(
        report.breakdown[0].text,
        "hand 2468#1: 25; self-picked +10; jokerless +20; no exposures +10"
    );
    assert_eq!(report.breakdown[0].score, 65);
}

#[test]
fn invalid_results_say_what_is_wrong() {
    let c = card();
    let base = serde_json::json!({
        "seats": ["E","S","W","N"], "outcome": "mahjong", "winner": "E",
        "hand": "F F 2B 2B 2B 4B 4B 4B 4B 6C 6C 6C 8C 8C", "won_by": "discard", "discarder": "S"
    });
    let err = |patch: serde_json::Value| {
        let mut v = base.clone();
        for (k, x) in patch.as_object().unwrap() {
            v[k] = x.clone();
        }
        let r: GameResult = serde_json::from_value(v).unwrap();
        r.validate(&c).unwrap_err().to_string()
    };
    assert!(err(serde_json::json!({"discarder": "E"})).contains("is the winner"));
    assert!(err(serde_json::json!({"discarder": "X"})).contains("discarder `X` is not a seat"));
    assert!(
        err(serde_json::json!({"seats": ["E","S","W"], "discarder": "N"})).contains("not a seat")
    );
    assert!(
        err(serde_json::json!({"hand": "F F 2B 2B 2B 4B 4B 4B 4B 6C 6C 6C 8C 8C 8C"}))
            .contains("15 tiles")
    );
    assert!(
        err(serde_json::json!({"hand": "F F 2B 2B 2B 4B 4B 4B 4B 6C 6C 6C 8C J"}))
            .contains("nearest: 2468#1 (needs 8C)")
    );
    assert!(
        err(serde_json::json!({"won_by": "heavenly", "winner": "S", "discarder": null}))
            .contains("East")
    );
}
