//! The rules-engine commands: `card check`, `hand check`, `hand adjudicate`, `score`.
//! Their names, flags and JSON are a contract (README "CLI").

use std::io::{BufRead, BufWriter, Read, Write};
use std::path::Path;
use std::sync::Arc;

use serde::Deserialize;
use serde_json::{Value, json};

use crate::rules::answers::{adjudicate_value, check_value, score_value};
use crate::rules::scoring::Tiles;
use crate::rules::{self, Card, CardRef, GameResult, InputError, builtin};

/// Exit status for a question answered.
pub const OK: u8 = 0;
/// Exit status of `card check` for an invalid card.
pub const INVALID_CARD: u8 = 1;
/// Exit status for input that cannot be read.
pub const BAD_INPUT: u8 = 2;

/// Loads CARD: a file path, or else the name of a built-in card.
pub fn load_card(spec: &str) -> Result<CardRef, String> {
    let path = Path::new(spec);
    if path.is_file() {
        let text = std::fs::read_to_string(path).map_err(|e| format!("card {spec}: {e}"))?;
        return Card::parse(&text)
            .map(|c| CardRef::Shared(Arc::new(c)))
            .map_err(|errs| {
                let shown: Vec<String> = errs.iter().map(|e| e.to_string()).collect();
                format!("card {spec} is invalid: {}", shown.join("; "))
            });
    }
    builtin::get(spec).map(CardRef::Builtin).ok_or_else(|| {
        format!(
            "card `{spec}`: no such file, and no built-in card has that name (built-in: {})",
            builtin::names().collect::<Vec<_>>().join(", ")
        )
    })
}

/// `card check FILE`.
pub fn card_check(file: &str, as_json: bool) -> u8 {
    let text = match std::fs::read_to_string(file) {
        Ok(t) => t,
        Err(e) => match builtin::source(file) {
            Some(t) => t.to_string(),
            None => return fail(&format!("cannot read {file}: {e}")),
        },
    };
    match Card::parse(&text) {
        Ok(card) => {
            let sections: Vec<Value> = card
                .sections
                .iter()
                .map(|s| {
                    let lines: Vec<_> = card.lines.iter().filter(|l| &l.section == s).collect();
                    json!({
                        "name": s,
                        "hands": lines.len(),
                        "targets": lines.iter().map(|l| l.targets.len()).sum::<usize>(),
                    })
                })
                .collect();
            if as_json {
                println!(
                    "{}",
                    json!({
                        "valid": true, "name": card.name, "year": card.year,
                        "hands": card.lines.len(), "targets": card.targets.len(),
                        "sections": sections,
                    })
                );
            } else {
                println!(
                    "{file}: valid card \"{}\" ({}): {} hands, {} targets",
                    card.name,
                    card.year,
                    card.lines.len(),
                    card.targets.len()
                );
                for s in &sections {
                    println!(
                        "  {}: {} hands, {} targets",
                        s["name"].as_str().unwrap_or(""),
                        s["hands"],
                        s["targets"]
                    );
                }
            }
            OK
        }
        Err(errors) => {
            if as_json {
                println!("{}", json!({"valid": false, "errors": errors}));
            } else {
                for e in &errors {
                    println!("{file}:{e}");
                }
                println!("{file}: invalid card, {} error(s)", errors.len());
            }
            INVALID_CARD
        }
    }
}

fn fail(message: &str) -> u8 {
    eprintln!("error: {message}");
    BAD_INPUT
}

fn parse_tiles_arg(text: &str, what: &str) -> Result<Vec<rules::Tile>, InputError> {
    rules::parse_tiles(text).map_err(|e| InputError::new(format!("{what}: {e}")))
}

/// `--exposure` arguments, numbered from 1 in messages.
fn parse_exposure_args(exposures: &[String]) -> Result<Vec<Vec<rules::Tile>>, InputError> {
    exposures
        .iter()
        .enumerate()
        .map(|(i, e)| parse_tiles_arg(e, &format!("exposure {}", i + 1)))
        .collect()
}

fn parse_exposures(items: &[Tiles]) -> Result<Vec<Vec<rules::Tile>>, InputError> {
    items
        .iter()
        .enumerate()
        .map(|(i, t)| {
            t.parse()
                .map_err(|e| e.context(&format!("exposure {}", i + 1)))
        })
        .collect()
}

#[derive(Deserialize)]
struct CheckRequest {
    hand: Tiles,
    #[serde(default)]
    exposures: Vec<Tiles>,
}

#[derive(Deserialize)]
struct AdjudicateRequest {
    #[serde(default)]
    exposures: Vec<Tiles>,
    #[serde(default, alias = "out_of_play")]
    out: Option<Tiles>,
}

/// Runs a batch: one JSON request per stdin line, one JSON answer per stdout line.
fn batch(answer: impl Fn(&str) -> Result<Value, InputError>) -> u8 {
    let stdin = std::io::stdin();
    let stdout = std::io::stdout();
    let mut out = BufWriter::new(stdout.lock());
    for line in stdin.lock().lines() {
        let line = match line {
            Ok(l) => l,
            Err(e) => return fail(&format!("reading standard input: {e}")),
        };
        if line.trim().is_empty() {
            continue;
        }
        let value = answer(&line).unwrap_or_else(|e| json!({"error": e.to_string()}));
        if writeln!(out, "{value}").is_err() {
            return BAD_INPUT;
        }
    }
    if out.flush().is_err() {
        return BAD_INPUT;
    }
    OK
}

fn request<T: for<'de> Deserialize<'de>>(line: &str) -> Result<T, InputError> {
    serde_json::from_str(line).map_err(|e| InputError::new(format!("request: {e}")))
}

/// `hand check`.
pub fn hand_check(
    card: &str,
    exposures: &[String],
    hand: Option<&str>,
    as_json: bool,
    batch_mode: bool,
) -> u8 {
    let card = match load_card(card) {
        Ok(c) => c,
        Err(e) => return fail(&e),
    };
    if batch_mode {
        return batch(|line| {
            let r: CheckRequest = request(line)?;
            let hand = r.hand.parse().map_err(|e| e.context("hand"))?;
            check_value(&card, &hand, &parse_exposures(&r.exposures)?)
        });
    }
    let Some(hand) = hand else {
        return fail("give the hand's tiles, e.g. \"F F 2B 2B 2B ...\" (or use --batch)");
    };
    let answer = (|| {
        let tiles = parse_tiles_arg(hand, "hand")?;
        let exps = parse_exposure_args(exposures)?;
        check_value(&card, &tiles, &exps)
    })();
    match answer {
        Err(e) => fail(&e.to_string()),
        Ok(v) if as_json => {
            println!("{v}");
            OK
        }
        Ok(v) => {
            print_check(&v);
            OK
        }
    }
}

fn print_check(v: &Value) {
    let s = |v: &Value| v.as_str().unwrap_or("").to_string();
    let list = |v: &Value| {
        v.as_array()
            .map(|a| {
                a.iter()
                    .map(|x| x.as_str().unwrap_or(""))
                    .collect::<Vec<_>>()
                    .join(" ")
            })
            .unwrap_or_default()
    };
    if let Some(best) = v.get("best").filter(|b| !b.is_null()) {
        let mut facts = Vec::new();
        for f in ["jokerless", "singles_and_pairs", "quints", "concealed"] {
            if best[f].as_bool() == Some(true) {
                facts.push(f.replace('_', "-"));
            }
        }
        facts.push(format!("{} exposure(s)", best["exposures"]));
        println!(
            "winning: {} ({}) value {}; {}",
            s(&best["id"]),
            s(&best["section"]),
            best["value"],
            facts.join(", ")
        );
        println!("  target: {}", list(&best["target"]));
        if !list(&best["jokers"]).is_empty() {
            println!("  jokers stand for: {}", list(&best["jokers"]));
        }
        let others: Vec<String> = v["matches"]
            .as_array()
            .into_iter()
            .flatten()
            .filter(|m| m["id"] != best["id"])
            .map(|m| format!("{} ({})", s(&m["id"]), m["value"]))
            .collect();
        if !others.is_empty() {
            println!("  also matches: {}", others.join(", "));
        }
    } else {
        println!("not a winning hand; nearest lines:");
        for n in v["nearest"].as_array().into_iter().flatten() {
            let why = match n.get("reason").and_then(|r| r.as_str()) {
                Some(r) => format!(" ({r})"),
                None => String::new(),
            };
            println!(
                "  {} ({}): missing {}: {}{why}",
                s(&n["id"]),
                s(&n["pattern"]),
                n["missing"],
                list(&n["needs"])
            );
        }
    }
}

/// `hand adjudicate`.
pub fn hand_adjudicate(
    card: &str,
    exposures: &[String],
    out: Option<&str>,
    as_json: bool,
    batch_mode: bool,
) -> u8 {
    let card = match load_card(card) {
        Ok(c) => c,
        Err(e) => return fail(&e),
    };
    if batch_mode {
        return batch(|line| {
            let r: AdjudicateRequest = request(line)?;
            let out = match &r.out {
                Some(t) => t.parse().map_err(|e| e.context("out"))?,
                None => Vec::new(),
            };
            adjudicate_value(&card, &parse_exposures(&r.exposures)?, &out)
        });
    }
    let answer = (|| {
        let exps = parse_exposure_args(exposures)?;
        let out = match out {
            Some(o) => parse_tiles_arg(o, "out")?,
            None => Vec::new(),
        };
        adjudicate_value(&card, &exps, &out)
    })();
    match answer {
        Err(e) => fail(&e.to_string()),
        Ok(v) if as_json => {
            println!("{v}");
            OK
        }
        Ok(v) => {
            match v["verdict"].as_str() {
                Some("alive") => {
                    let lines: Vec<&str> = v["lines"]
                        .as_array()
                        .into_iter()
                        .flatten()
                        .filter_map(|l| l.as_str())
                        .collect();
                    println!("alive: can still make {}", lines.join(", "));
                }
                _ => println!("dead: {}", v["reason"].as_str().unwrap_or("")),
            }
            OK
        }
    }
}

/// `score`.
pub fn score(card: &str, result: Option<&str>, as_json: bool, batch_mode: bool) -> u8 {
    let card = match load_card(card) {
        Ok(c) => c,
        Err(e) => return fail(&e),
    };
    if batch_mode {
        return batch(|line| score_value(&card, &request::<GameResult>(line)?));
    }
    let Some(source) = result else {
        return fail(
            "give RESULT.json, or - to read the result from standard input (or use --batch)",
        );
    };
    let text = if source == "-" {
        let mut s = String::new();
        if let Err(e) = std::io::stdin().read_to_string(&mut s) {
            return fail(&format!("reading standard input: {e}"));
        }
        s
    } else {
        match std::fs::read_to_string(source) {
            Ok(s) => s,
            Err(e) => return fail(&format!("cannot read {source}: {e}")),
        }
    };
    let answer = serde_json::from_str::<GameResult>(&text)
        .map_err(|e| InputError::new(format!("result: {e}")))
        .and_then(|r| score_value(&card, &r));
    match answer {
        Err(e) => fail(&e.to_string()),
        Ok(v) if as_json => {
            println!("{v}");
            OK
        }
        Ok(v) => {
            for b in v["breakdown"].as_array().into_iter().flatten() {
                let score = b["score"].as_i64().unwrap_or(0);
                println!(
                    "{} {:>+6}  {}",
                    b["seat"].as_str().unwrap_or(""),
                    score,
                    b["text"].as_str().unwrap_or("")
                );
            }
            OK
        }
    }
}

/// How long `seat` may search before it answers with the best plan found.
const SEAT_BUDGET: std::time::Duration = std::time::Duration::from_secs(8);

/// `seat`: plans rounds for numbered players (1..=N).
pub fn seat(players: usize, rounds: usize, seed: u64, as_json: bool) -> u8 {
    if players > 1000 || rounds > 100 {
        return fail("plan at most 1000 players and 100 rounds");
    }
    let plan = match crate::seating::plan(players, rounds, seed, None, SEAT_BUDGET, 4) {
        Ok(p) => p,
        Err(e) => return fail(&e),
    };
    let stats = plan.stats(players, 4, None);
    let numbered: Vec<Vec<Vec<usize>>> = plan
        .rounds
        .iter()
        .map(|r| {
            r.iter()
                .map(|t| t.iter().map(|p| p + 1).collect())
                .collect()
        })
        .collect();
    if as_json {
        println!(
            "{}",
            json!({
                "rounds": numbered,
                "extra_meetings": stats.extra_meetings,
                "max_meetings": stats.max_meetings,
                "east_spread": stats.east_spread,
            })
        );
    } else {
        for (i, round) in numbered.iter().enumerate() {
            let tables: Vec<String> = round
                .iter()
                .map(|t| {
                    t.iter()
                        .map(|p| p.to_string())
                        .collect::<Vec<_>>()
                        .join(" ")
                })
                .collect();
            println!("round {}: {}", i + 1, tables.join(" | "));
        }
        println!(
            "extra meetings {}, most meetings of a pair {}, East spread {}",
            stats.extra_meetings, stats.max_meetings, stats.east_spread
        );
    }
    OK
}
