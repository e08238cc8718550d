//! The API document says what the service accepts: its patterns for tiles, hands, exposures and
//! origins agree with the parsers the service uses, and the rules a schema can state are in it.
//! (scripts/api-fuzz.sh then holds the running service to the document.)

use mahjong_league::domain::people::clubs::normal_origin;
use mahjong_league::rules::tile::{Tile, parse_tiles};
use serde_json::Value;

fn document() -> Value {
    serde_json::to_value(mahjong_league::api::openapi()).unwrap()
}

fn regex(pattern: &str) -> regex::Regex {
    regex::RegexBuilder::new(pattern)
        .size_limit(1 << 28)
        .build()
        .unwrap_or_else(|e| panic!("the document's pattern does not compile: {e}"))
}

/// The `oneOf` branches of a tiles schema: (the one-string pattern, the list's item pattern,
/// minItems, maxItems).
fn tiles_schema(v: &Value) -> (String, String, u64, u64) {
    let branches = v["oneOf"].as_array().expect("tiles are a string or a list");
    let text = branches.iter().find(|b| b["type"] == "string").unwrap();
    let list = branches.iter().find(|b| b["type"] == "array").unwrap();
    (
        text["pattern"].as_str().unwrap().to_string(),
        list["items"]["pattern"].as_str().unwrap().to_string(),
        list["minItems"].as_u64().unwrap(),
        list["maxItems"].as_u64().unwrap(),
    )
}

/// Words a scorer might type for a tile, right and wrong, in three cases.
fn candidate_tokens() -> Vec<String> {
    let prefixes = ["", "0", "1", "2", "5", "9", "10"];
    let words = [
        "", "b", "bam", "bams", "bamboo", "c", "crak", "craks", "crack", "cracks", "d", "dot",
        "dots", "dragon", "n", "north", "e", "east", "w", "west", "s", "south", "rd", "red", "gd",
        "green", "wd", "soap", "white", "f", "flower", "flowers", "j", "joker", "x", "nn",
    ];
    let mut out = Vec::new();
    for p in prefixes {
        for w in words {
            let t = format!("{p}{w}");
            if t.is_empty() {
                continue;
            }
            let title: String = t
                .chars()
                .enumerate()
                .map(|(i, c)| if i == 0 { c.to_ascii_uppercase() } else { c })
                .collect();
            out.extend([t.clone(), t.to_ascii_uppercase(), title]);
        }
    }
    out
}

#[test]
fn one_tile_in_the_document_is_exactly_what_the_engine_reads() {
    let doc = document();
    let (_, item, min, max) =
        tiles_schema(&doc["components"]["schemas"]["CheckRequest"]["properties"]["hand"]);
    assert_eq!((min, max), (14, 14), "a hand's list holds 14 tiles");
    let one = regex(&item);
    let mut agreed = 0;
    for token in candidate_tokens() {
        assert_eq!(
            one.is_match(&token),
            Tile::parse(&token).is_some(),
            "the document and the engine disagree on `{token}`"
        );
        agreed += 1;
    }
    assert!(agreed > 600, "{agreed} candidates");
    // Every tile, as the service writes it, is one the document allows.
    for t in Tile::all() {
        assert!(one.is_match(&t.to_string()), "{t}");
    }
}

#[test]
fn a_hand_in_one_string_is_fourteen_tiles_as_the_engine_counts_them() {
    let doc = document();
    let (text, _, _, _) =
        tiles_schema(&doc["components"]["schemas"]["CheckRequest"]["properties"]["hand"]);
    let hand = regex(&text);
    let tokens = [
        "2B", "j", "north", "5crak", "RD", "0", "F", "9dots", "x", "10B",
    ];
    let seps = [" ", ",", ", ", "  "];
    // A deterministic walk over lengths 12 to 16, separators and a bad token now and then.
    let mut seed: u64 = 7;
    let mut next = |n: usize| {
        seed = seed
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        (seed >> 33) as usize % n
    };
    let (mut matched, mut refused) = (0, 0);
    for _ in 0..2000 {
        let len = 12 + next(5);
        let mut s = String::new();
        for i in 0..len {
            if i > 0 {
                s.push_str(seps[next(seps.len())]);
            }
            // Mostly good tiles: a bad one about one string in three.
            let pick = if next(40) == 0 { 8 + next(2) } else { next(8) };
            s.push_str(tokens[pick]);
        }
        let engine = parse_tiles(&s).map(|t| t.len() == 14).unwrap_or(false);
        assert_eq!(hand.is_match(&s), engine, "`{s}`");
        if engine {
            matched += 1;
        } else {
            refused += 1;
        }
    }
    assert!(
        matched > 200 && refused > 200,
        "{matched} matched, {refused} refused"
    );
}

#[test]
fn an_exposure_is_three_to_six_tiles_and_out_of_play_may_be_empty() {
    let doc = document();
    let exposures = &doc["components"]["schemas"]["CheckRequest"]["properties"]["exposures"];
    let (text, _, min, max) = tiles_schema(&exposures["items"]);
    assert_eq!((min, max), (3, 6));
    let group = regex(&text);
    for (s, ok) in [
        ("2B 2B", false),
        ("2B 2B 2B", true),
        ("2b,2b,j,j,j,j", true),
        ("2B 2B 2B 2B 2B 2B 2B", false),
        ("", false),
    ] {
        assert_eq!(group.is_match(s), ok, "`{s}`");
    }
    let out = &doc["components"]["schemas"]["AdjudicateRequest"]["properties"]["out_of_play"];
    let branches = out["oneOf"].as_array().unwrap();
    assert!(branches.iter().any(|b| b["type"] == "null"));
    let list = branches.iter().find(|b| b["type"] == "array").unwrap();
    let item = regex(list["items"]["pattern"].as_str().unwrap());
    // An item may hold several tiles, or none, as the engine reads it.
    for s in ["", "2B", "2B 3C, J", " ,"] {
        assert!(item.is_match(s) && parse_tiles(s).is_ok(), "`{s}`");
    }
    assert!(!item.is_match("2B X") && parse_tiles("2B X").is_err());
}

#[test]
fn an_origin_the_document_allows_is_one_the_club_can_store() {
    let doc = document();
    let pattern = doc["components"]["schemas"]["AllowedOrigins"]["properties"]["origins"]["items"]
        ["pattern"]
        .as_str()
        .unwrap()
        .to_string();
    let origin = regex(&pattern);
    for ok in [
        "https://tuesdaytiles.example",
        "http://localhost:3000",
        "HTTPS://Club.Example.org/",
        "http://192.168.1.20:8080",
        "https://a-b.c-d.example",
    ] {
        assert!(origin.is_match(ok), "{ok}");
        assert!(normal_origin(ok).is_ok(), "{ok}: {:?}", normal_origin(ok));
    }
    for bad in [
        "",
        "tuesdaytiles.example",
        "ftp://club.example",
        "https://club.example/standings",
        "https://user@club.example",
        "https://club.example?x=1",
        "https://1.2.3.4.5",
    ] {
        assert!(!origin.is_match(bad), "{bad}");
    }
}

#[test]
fn the_rules_a_schema_can_state_are_in_the_document() {
    let doc = document();
    let schemas = &doc["components"]["schemas"];
    // A new league names its name, card and ruleset.
    let required: Vec<&str> = schemas["NewLeague"]["required"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_str().unwrap())
        .collect();
    for field in ["name", "card", "ruleset"] {
        assert!(required.contains(&field), "{field} in {required:?}");
    }
    // Token scopes and timer actions are the words the service knows.
    assert_eq!(
        schemas["NewToken"]["properties"]["scopes"]["items"]["enum"],
        serde_json::json!(["read", "score", "admin"])
    );
    assert_eq!(
        schemas["NewToken"]["properties"]["scopes"]["uniqueItems"],
        true
    );
    let timer = regex(
        schemas["TimerChange"]["properties"]["action"]["pattern"]
            .as_str()
            .unwrap(),
    );
    assert!(timer.is_match("pause") && !timer.is_match("recorded"));
    // A game's number starts at 1.
    assert_eq!(schemas["GameInput"]["properties"]["number"]["minimum"], 1);
    // No text in a body may hold NUL (PostgreSQL text cannot), and no header is `null`.
    let name = regex(
        schemas["NewPlayer"]["properties"]["name"]["pattern"]
            .as_str()
            .unwrap(),
    );
    assert!(name.is_match("Ann") && !name.is_match("A\u{0}nn"));
    for (path, item) in doc["paths"].as_object().unwrap() {
        for (method, op) in item.as_object().unwrap() {
            for p in op["parameters"].as_array().into_iter().flatten() {
                if p["in"] == "header" {
                    assert_eq!(
                        p["schema"]["type"], "string",
                        "{method} {path} {}",
                        p["name"]
                    );
                }
            }
        }
    }
    // A correction's If-Match is a version, as the ETag gave it.
    let amend = &doc["paths"]["/api/v1/games/{game}"]["put"]["parameters"];
    let if_match = amend
        .as_array()
        .unwrap()
        .iter()
        .find(|p| p["name"] == "If-Match")
        .unwrap();
    let version = regex(if_match["schema"]["pattern"].as_str().unwrap());
    for (v, ok) in [
        ("\"3\"", true),
        ("3", true),
        ("W/\"12\"", true),
        ("*", false),
        ("", false),
    ] {
        assert_eq!(version.is_match(v), ok, "{v}");
    }
}

/// Issue 41, item 1: every operation has its own `operationId`, so generators (openapi-typescript,
/// openapi-python-client) make one function per operation and never type one as another.
#[test]
fn every_operation_has_its_own_operation_id() {
    let doc = document();
    let mut seen: std::collections::HashMap<String, String> = std::collections::HashMap::new();
    let mut count = 0;
    for (path, item) in doc["paths"].as_object().unwrap() {
        for (method, op) in item.as_object().unwrap() {
            let Some(id) = op.get("operationId").and_then(Value::as_str) else {
                panic!("{method} {path} has no operationId");
            };
            count += 1;
            let here = format!("{} {path}", method.to_uppercase());
            if let Some(before) = seen.insert(id.to_string(), here.clone()) {
                panic!("`{id}` names both {before} and {here}");
            }
        }
    }
    assert!(count > 90, "{count} operations");
}

/// Every field the document marks deprecated is one the service says is retiring in its answers
/// (`Deprecation` and `Sunset` headers), and every one it says so of is marked in the document.
#[test]
fn every_deprecated_field_is_announced_in_its_answers() {
    let doc = document();
    let mut marked: Vec<(String, String)> = Vec::new();
    for (schema, s) in doc["components"]["schemas"].as_object().unwrap() {
        for (field, p) in s["properties"].as_object().into_iter().flatten() {
            if p["deprecated"] == true {
                marked.push((schema.clone(), field.clone()));
            }
        }
    }
    marked.sort();
    let mut announced: Vec<(String, String)> = mahjong_league::api::retiring::ALL
        .iter()
        .map(|r| (r.schema.to_string(), r.field.to_string()))
        .collect();
    announced.sort();
    assert!(!marked.is_empty());
    assert_eq!(marked, announced);
}

/// Every list the API answers with (an object with `next`) takes `limit` and `cursor` and says
/// it sends a `Link` header: apps page every list alike.
#[test]
fn every_list_takes_limit_and_cursor() {
    let doc = document();
    let schemas = doc["components"]["schemas"].as_object().unwrap();
    let mut lists = 0;
    for (path, ops) in doc["paths"].as_object().unwrap() {
        let Some(get) = ops.get("get") else { continue };
        let Some(reference) =
            get["responses"]["200"]["content"]["application/json"]["schema"]["$ref"].as_str()
        else {
            continue;
        };
        let name = reference.rsplit('/').next().unwrap();
        if schemas[name]["properties"].get("next").is_none() {
            continue;
        }
        lists += 1;
        let params: Vec<&str> = get["parameters"]
            .as_array()
            .map(|ps| ps.iter().filter_map(|p| p["name"].as_str()).collect())
            .unwrap_or_default();
        assert!(
            params.contains(&"limit") && params.contains(&"cursor"),
            "{path}: {params:?}"
        );
        assert!(
            get["responses"]["200"]["headers"].get("Link").is_some(),
            "{path} says it sends Link"
        );
    }
    assert!(lists >= 17, "{lists} lists");
}

/// Every read that can answer 304 says, on its 200 and its 304, that it sends the `ETag` an app
/// sends back as `If-None-Match`: a generated client reads the header only where it is named.
#[test]
fn every_read_that_answers_304_says_it_sends_an_etag() {
    let doc = document();
    let mut reads = Vec::new();
    for (path, ops) in doc["paths"].as_object().unwrap() {
        for (method, op) in ops.as_object().unwrap() {
            if op["responses"].get("304").is_none() {
                continue;
            }
            reads.push(format!("{method} {path}"));
            for status in ["200", "304"] {
                assert!(
                    op["responses"][status]["headers"].get("ETag").is_some(),
                    "{method} {path} answers 304 but its {status} does not name ETag"
                );
            }
        }
    }
    for read in [
        "get /api/v1/leagues/{league}/standings",
        "get /api/v1/leagues/{league}/season",
        "get /api/v1/leagues/{league}/players/{player}/season",
    ] {
        assert!(reads.iter().any(|r| r == read), "{read} among {reads:?}");
    }
}
