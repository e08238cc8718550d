//! Property tests of the rules engine against the built-in demo card.

use mahjong_league::rules::pattern::Target;
use mahjong_league::rules::tile::{Counts, Tile};
use mahjong_league::rules::{Card, GameResult, Hand, Ruleset, builtin, parse_tiles};
use proptest::prelude::*;

fn demo() -> &'static Card {
    builtin::get("demo-2026").expect("built-in demo card")
}

/// A small deterministic generator driven by a proptest seed.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
}

/// Fills a target: naturals for singles and pairs, a random mix of naturals and jokers in sets
/// within what a set of tiles holds. Returns the tiles and the filled sets (for exposures).
fn fill(target: &Target, rng: &mut Rng) -> Option<(Vec<Tile>, Vec<Vec<Tile>>)> {
    let mut used = Counts::default();
    let mut tiles = Vec::new();
    for &t in &target.kinds {
        for _ in 0..target.need.get(t) {
            tiles.push(t);
            used.add(t, 1);
        }
    }
    let mut sets = Vec::new();
    for &(t, size) in &target.sets {
        let mut set = Vec::new();
        for _ in 0..size {
            let natural_left = used.get(t) < t.copies_in_set();
            let joker_left = used.get(Tile::JOKER) < 8;
            let pick = match (natural_left, joker_left) {
                (true, true) if rng.below(2) == 0 => t,
                (true, true) => Tile::JOKER,
                (true, false) => t,
                (false, true) => Tile::JOKER,
                (false, false) => return None,
            };
            used.add(pick, 1);
            set.push(pick);
        }
        if set.iter().all(|x| x.is_joker()) {
            // Keep one natural when possible so the set may also be exposed.
            if used.get(t) < t.copies_in_set() {
                set[0] = t;
                used.add(t, 1);
                used.0[Tile::JOKER.index()] -= 1;
            }
        }
        tiles.extend_from_slice(&set);
        sets.push(set);
    }
    Some((tiles, sets))
}

fn shuffle(tiles: &mut [Tile], rng: &mut Rng) {
    for i in (1..tiles.len()).rev() {
        tiles.swap(i, rng.below(i + 1));
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2000))]

    /// Every target of every line, its sets filled with naturals and jokers, matches its line,
    /// in any order of tiles and with any of its sets exposed (unless the line is concealed).
    #[test]
    fn every_target_matches_its_line(index in 0usize..10_000, seed in 1u64..u64::MAX) {
        let card = demo();
        let target = &card.targets[index % card.targets.len()];
        let mut rng = Rng(seed);
        let Some((mut tiles, sets)) = fill(target, &mut rng) else { return Ok(()) };
        let line = &card.lines[target.line];
        let exposures: Vec<Vec<Tile>> = if line.concealed {
            Vec::new()
        } else {
            sets.into_iter().filter(|s| s.iter().any(|t| !t.is_joker()) && rng.below(2) == 0).collect()
        };
        shuffle(&mut tiles, &mut rng);
        let hand = Hand::new(&tiles, &exposures).unwrap();
        let check = card.check(&hand);
        prop_assert!(
            check.matches.iter().any(|m| m.line == target.line),
            "{} {:?} exposures {:?} does not match {}", mahjong_league::rules::format_tiles(&tiles), target.tiles, exposures, line.id
        );
        let best = &check.matches[check.best.unwrap()];
        prop_assert!(card.lines[best.line].value >= line.value);
        prop_assert_eq!(check.jokerless, !tiles.contains(&Tile::JOKER));
    }

    /// A joker put in a single, a pair or a run of singles never matches that target.
    #[test]
    fn a_joker_in_a_single_or_pair_never_matches(index in 0usize..10_000, seed in 1u64..u64::MAX) {
        let card = demo();
        let target = &card.targets[index % card.targets.len()];
        let mut rng = Rng(seed);
        let Some((mut tiles, _)) = fill(target, &mut rng) else { return Ok(()) };
        let singles: Vec<Tile> = target.kinds.iter().copied().filter(|&t| target.need.get(t) > 0).collect();
        if singles.is_empty() || tiles.iter().filter(|t| t.is_joker()).count() >= 8 {
            return Ok(());
        }
        let victim = singles[rng.below(singles.len())];
        // Replace one natural of the single/pair; with no spare naturals in sets, it must be that one.
        let pos = tiles.iter().position(|&t| t == victim).unwrap();
        let spare_in_sets = tiles.iter().filter(|&&t| t == victim).count() as u8 > target.need.get(victim);
        prop_assume!(!spare_in_sets);
        tiles[pos] = Tile::JOKER;
        shuffle(&mut tiles, &mut rng);
        let check = card.check(&Hand::new(&tiles, &[]).unwrap());
        prop_assert!(check.matches.iter().all(|m| m.target != index % card.targets.len()));
    }

    /// The order of tiles never changes the answer.
    #[test]
    fn order_never_matters(index in 0usize..10_000, seed in 1u64..u64::MAX) {
        let card = demo();
        let target = &card.targets[index % card.targets.len()];
        let mut rng = Rng(seed);
        let Some((mut tiles, _)) = fill(target, &mut rng) else { return Ok(()) };
        // Disturb the hand a little so losing hands are covered too.
        if rng.below(2) == 0 { tiles[rng.below(14)] = Tile::from_index(rng.below(35)); }
        let Ok(hand) = Hand::new(&tiles, &[]) else { return Ok(()) };
        let a = serde_json::to_value(card.check_report(&card.check(&hand))).unwrap();
        shuffle(&mut tiles, &mut rng);
        let b = serde_json::to_value(card.check_report(&card.check(&Hand::new(&tiles, &[]).unwrap()))).unwrap();
        prop_assert_eq!(a, b);
    }

    /// Money presets always sum to zero.
    #[test]
    fn money_is_zero_sum(index in 0usize..10_000, seed in 1u64..u64::MAX) {
        let card = demo();
        let target = &card.targets[index % card.targets.len()];
        let mut rng = Rng(seed);
        let Some((tiles, sets)) = fill(target, &mut rng) else { return Ok(()) };
        let seats: &[&str] = if rng.below(3) == 0 { &["E", "S", "W"] } else { &["E", "S", "W", "N"] };
        let winner = seats[rng.below(seats.len())];
        let won_by = ["self_pick", "discard", "joker_exchange"][rng.below(3)];
        let discarder = seats.iter().copied().find(|&s| s != winner).unwrap();
        let exposures: Vec<String> = if card.lines[target.line].concealed { vec![] } else {
            sets.iter().filter(|s| s.iter().any(|t| !t.is_joker()) && rng.below(2) == 0)
                .map(|s| mahjong_league::rules::format_tiles(s)).collect()
        };
        let other = seats.iter().copied().filter(|&s| s != winner).collect::<Vec<_>>();
        let caller = other[rng.below(other.len())];
        let challenged = other.iter().copied().find(|&s| s != caller).unwrap();
        let result = serde_json::json!({
            "seats": seats, "outcome": if rng.below(5) == 0 { "wall" } else { "mahjong" },
            "winner": winner, "hand": mahjong_league::rules::format_tiles(&tiles), "exposures": exposures,
            "won_by": won_by, "discarder": if won_by == "discard" { Some(discarder) } else { None },
            "misnamed_discard": won_by == "discard" && rng.below(4) == 0,
            "dead": [{"seat": challenged, "called_by": caller, "contested": true, "upheld": rng.below(2) == 0}],
        });
        let mut result: GameResult = serde_json::from_value(result).unwrap();
        if result.outcome == mahjong_league::rules::scoring::Outcome::Wall {
            result.winner = None;
            result.discarder = None;
        }
        let Ok(valid) = result.validate(card) else { return Ok(()) };
        for preset in ["nmjl-money", "bigcard-money"] {
            let report = valid.score(&Ruleset::preset(preset).unwrap());
            prop_assert_eq!(report.scores.0.iter().map(|(_, v)| v).sum::<i64>(), 0, "{}", preset);
        }
    }

    /// Arbitrary text never panics the card parser.
    #[test]
    fn card_parser_never_panics(text in ".{0,400}") {
        let _ = Card::parse(&text);
        let _ = Card::parse(&format!("name = \"x\"\nyear = 1\n[[hand]]\nsection = \"s\"\nvalue = 5\npattern = \"{}\"\n", text.replace(['"', '\\', '\n'], "")));
    }

    /// Arbitrary text never panics the tile parser or hand checking.
    #[test]
    fn hand_parser_never_panics(text in "[0-9A-Za-z ,]{0,80}", exposure in "[0-9A-Za-z ,]{0,20}") {
        if let (Ok(tiles), Ok(exp)) = (parse_tiles(&text), parse_tiles(&exposure))
            && let Ok(hand) = Hand::new(&tiles, &[exp])
        {
            let _ = demo().check(&hand);
        }
    }
}

#[test]
fn demo_card_is_a_full_card() {
    let card = demo();
    assert!(card.lines.len() >= 50, "{} lines", card.lines.len());
    for section in [
        "2026",
        "2468",
        "Like Numbers",
        "Addition",
        "Quints",
        "Consecutive Run",
        "13579",
        "Winds - Dragons",
        "369",
        "Singles and Pairs",
    ] {
        assert!(
            card.sections.iter().any(|s| s == section),
            "missing section {section}"
        );
    }
    // Every feature of the format is used.
    let src = builtin::source("demo-2026").unwrap();
    for feature in [
        "numbers = \"any\"",
        "numbers = [",
        "winds = \"any\"",
        "suits = \"any\"",
        "concealed = true",
        "pattern = [",
        " + ",
        " = ",
        " x ",
        " * ",
        "note = ",
        "id = ",
        "publisher = ",
    ] {
        assert!(src.contains(feature), "demo card does not use {feature}");
    }
}
