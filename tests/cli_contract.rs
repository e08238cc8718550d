//! The CLI contract: names, flags, JSON answers, batch mode and exit codes.

use std::io::Write;
use std::process::{Command, Output, Stdio};

const EXAMPLE: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/example.toml");

fn cli(args: &[&str], stdin: Option<&str>) -> Output {
    let mut child = Command::new(env!("CARGO_BIN_EXE_mahjong-league"))
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("run the binary");
    if let Some(input) = stdin {
        child
            .stdin
            .take()
            .unwrap()
            .write_all(input.as_bytes())
            .unwrap();
    }
    drop(child.stdin.take());
    child.wait_with_output().unwrap()
}

fn json(out: &Output) -> serde_json::Value {
    serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|e| panic!("{e}: {}", String::from_utf8_lossy(&out.stdout)))
}

#[test]
fn card_check_summarises_or_lists_errors_with_exit_1() {
    let out = cli(&["card", "check", EXAMPLE, "--json"], None);
    assert_eq!(out.status.code(), Some(0));
    let v = json(&out);
    assert_eq!(
        (v["hands"].as_u64(), v["targets"].as_u64()),
        (Some(4), Some(35))
    );

    let dir = std::env::temp_dir().join(format!("ml-cli-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let bad = dir.join("bad.toml");
    std::fs::write(&bad, "name = \"B\"\nyear = 2026\n[[hand]]\nsection = \"2468\"\npattern = \"FF 222 444\"\nvalue = 25\n").unwrap();
    let out = cli(&["card", "check", bad.to_str().unwrap()], None);
    assert_eq!(out.status.code(), Some(1));
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains("line 5: hand 2468#1: pattern has 8 tiles, a hand needs 14"),
        "{text}"
    );
    let out = cli(&["card", "check", "demo-2026"], None);
    assert_eq!(out.status.code(), Some(0));
}

#[test]
fn hand_check_answers_in_the_contract_shape() {
    let out = cli(
        &[
            "hand",
            "check",
            "--card",
            EXAMPLE,
            "--exposure",
            "2B 2B 2B",
            "F F 2B 2B 2B 4B 4B 4B 4B 6C 6C 6C 8C 8C",
            "--json",
        ],
        None,
    );
    assert_eq!(out.status.code(), Some(0));
    let v = json(&out);
    assert_eq!(v["winning"], true);
    for key in [
        "id",
        "section",
        "value",
        "jokerless",
        "singles_and_pairs",
        "exposures",
        "quints",
        "concealed",
    ] {
        assert!(v["best"].get(key).is_some(), "best lacks {key}");
    }
    assert_eq!(v["best"]["exposures"], 1);
    assert_eq!(v["matches"].as_array().unwrap().len(), 1);
    assert_eq!(v["nearest"], serde_json::json!([]));
}

#[test]
fn invalid_input_exits_2_with_one_line() {
    for args in [
        vec![
            "hand",
            "check",
            "--card",
            EXAMPLE,
            "F F 2B 2B 2B 4B 4B 4B 4B 6C 6C 6C 8C 8C 8C",
        ],
        vec![
            "hand",
            "check",
            "--card",
            EXAMPLE,
            "F F 2B 2B 2B 4B 4B 4B 4B 6C 6C 6C 8C 9Q",
        ],
        vec![
            "hand",
            "check",
            "--card",
            EXAMPLE,
            "3B 3B 3B 3B 3B 4B 4B 4B 4B 6C 6C 6C 8C 8C",
        ],
        vec!["hand", "check", "--card", "no-such-card", "F F"],
        vec![
            "hand",
            "adjudicate",
            "--card",
            EXAMPLE,
            "--exposure",
            "2B 3B J",
        ],
    ] {
        let out = cli(&args, None);
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(err.trim().lines().count(), 1, "{err}");
    }
    let out = cli(
        &[
            "hand",
            "check",
            "--card",
            EXAMPLE,
            "3B 3B 3B 3B 3B 4B 4B 4B 4B 6C 6C 6C 8C 8C",
        ],
        None,
    );
    assert!(String::from_utf8_lossy(&out.stderr).contains("3B is named 5 times"));
}

#[test]
fn batches_answer_every_line_in_order() {
    let input = concat!(
        r#"{"hand": "F F 2B 2B 2B 4B 4B 4B 4B 6C 6C 6C 8C 8C"}"#,
        "\n",
        "this is not json\n",
        r#"{"hand": ["N","N","N","E","E","E","E","W","W","W","W","S","S","S"], "exposures": [["N","N","N"]]}"#,
        "\n",
    );
    let out = cli(
        &["hand", "check", "--card", EXAMPLE, "--batch"],
        Some(input),
    );
    assert_eq!(out.status.code(), Some(0));
    let lines: Vec<serde_json::Value> = String::from_utf8_lossy(&out.stdout)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(lines.len(), 3);
    assert_eq!(lines[0]["best"]["id"], "2468#1");
    assert!(lines[1]["error"].is_string());
    assert_eq!(lines[2]["winning"], false);

    let input = concat!(
        r#"{"exposures": ["2B 2B 2B", "6C 6C J"], "out": "8C 8C 8C"}"#,
        "\n",
        r#"{"exposures": [], "out": []}"#,
        "\n",
    );
    let out = cli(
        &["hand", "adjudicate", "--card", EXAMPLE, "--batch"],
        Some(input),
    );
    let lines: Vec<serde_json::Value> = String::from_utf8_lossy(&out.stdout)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(
        lines[0],
        serde_json::json!({"verdict": "dead", "reason": "impossible"})
    );
    assert_eq!(lines[1]["verdict"], "alive");

    let input = concat!(
        r#"{"ruleset": "nmjl-money", "seats": ["E","S","W","N"], "outcome": "mahjong", "winner": "E", "hand": "F F 2B 2B 2B 4B 4B 4B 4B 6C 6C 6C 8C 8C", "exposures": [], "won_by": "discard", "discarder": "S", "misnamed_discard": false, "dead": []}"#,
        "\n",
        r#"{"ruleset": "no-such-preset", "seats": ["E","S","W","N"], "outcome": "wall"}"#,
        "\n",
    );
    let out = cli(&["score", "--card", EXAMPLE, "--batch"], Some(input));
    let lines: Vec<serde_json::Value> = String::from_utf8_lossy(&out.stdout)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(
        lines[0]["scores"],
        serde_json::json!({"E": 200, "S": -100, "W": -50, "N": -50})
    );
    assert!(lines[0]["breakdown"].as_array().unwrap().len() == 4);
    assert!(
        lines[1]["error"]
            .as_str()
            .unwrap()
            .contains("no-such-preset")
    );
}

#[test]
fn score_reads_a_file_or_stdin() {
    let result = r#"{"ruleset": "tournament", "seats": ["E","S","W"], "outcome": "mahjong", "winner": "S", "hand": "F F F F 5B 5B 5B 5B 5C 5C 5D J J 5D", "won_by": "self_pick"}"#;
    let out = cli(&["score", "--card", EXAMPLE, "--json", "-"], Some(result));
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(
        json(&out)["scores"],
        serde_json::json!({"E": 0, "S": 40, "W": 0})
    );
    let out = cli(
        &["score", "--card", EXAMPLE, "--json", "/no/such/file.json"],
        None,
    );
    assert_eq!(out.status.code(), Some(2));
}

#[test]
fn every_subcommand_has_help() {
    for args in [
        vec!["--help"],
        vec!["serve", "--help"],
        vec!["card", "check", "--help"],
        vec!["hand", "check", "--help"],
        vec!["hand", "adjudicate", "--help"],
        vec!["score", "--help"],
        vec!["db", "start", "--help"],
    ] {
        let out = cli(&args, None);
        assert_eq!(out.status.code(), Some(0), "{args:?}");
        assert!(
            String::from_utf8_lossy(&out.stdout).contains("Usage"),
            "{args:?}"
        );
    }
}

fn seat(players: usize, rounds: usize) -> serde_json::Value {
    let out = cli(
        &[
            "seat",
            "--players",
            &players.to_string(),
            "--rounds",
            &rounds.to_string(),
            "--seed",
            "1",
            "--json",
        ],
        None,
    );
    assert_eq!(out.status.code(), Some(0));
    json(&out)
}

/// Recomputes the figures from the printed rounds, so the test does not trust the command's own.
fn check_plan(v: &serde_json::Value, players: usize, rounds: usize) -> (u64, u64) {
    let rs = v["rounds"].as_array().unwrap();
    assert_eq!(rs.len(), rounds);
    let mut met = std::collections::HashMap::new();
    for round in rs {
        let mut seen: Vec<u64> = round
            .as_array()
            .unwrap()
            .iter()
            .flat_map(|t| t.as_array().unwrap().iter().map(|p| p.as_u64().unwrap()))
            .collect();
        seen.sort();
        assert_eq!(
            seen,
            (1..=players as u64).collect::<Vec<_>>(),
            "every player once per round"
        );
        for table in round.as_array().unwrap() {
            let t: Vec<u64> = table
                .as_array()
                .unwrap()
                .iter()
                .map(|p| p.as_u64().unwrap())
                .collect();
            assert!((2..=4).contains(&t.len()));
            for i in 0..t.len() {
                for j in i + 1..t.len() {
                    *met.entry((t[i].min(t[j]), t[i].max(t[j]))).or_insert(0u64) += 1;
                }
            }
        }
    }
    let extra: u64 = met.values().map(|c| c - 1).sum();
    let max = met.values().copied().max().unwrap_or(0);
    assert_eq!(v["extra_meetings"].as_u64(), Some(extra));
    assert_eq!(v["max_meetings"].as_u64(), Some(max));
    (extra, max)
}

#[test]
fn seat_plans_meet_the_targets() {
    assert_eq!(check_plan(&seat(16, 5), 16, 5), (0, 1));
    assert_eq!(check_plan(&seat(16, 8), 16, 8).0, 72);
    assert_eq!(check_plan(&seat(32, 8), 32, 8), (0, 1));
    let v = seat(13, 4);
    check_plan(&v, 13, 4);
    let sizes: Vec<usize> = v["rounds"][0]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t.as_array().unwrap().len())
        .collect();
    assert_eq!(sizes, [4, 3, 3, 3]);
    assert!(v["east_spread"].as_u64().unwrap() <= 2);
    assert_eq!(
        seat(16, 5)["rounds"],
        seat(16, 5)["rounds"],
        "the same seed gives the same plan"
    );
}
