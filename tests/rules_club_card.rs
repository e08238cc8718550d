//! The second built-in card (`club-2027`, the size of a year's printed card, used by the
//! benchmarks): every one of its targets, made with naturals (a joker for a fifth copy), is a
//! winning hand on its own line, and the engine's answers on it keep their shape.

use mahjong_league::rules::tile::Tile;
use mahjong_league::rules::{Hand, builtin};

#[test]
fn every_target_of_the_club_card_wins_on_its_line() {
    let card = builtin::get("club-2027").expect("built-in club card");
    assert!(card.lines.len() >= 55, "{} lines", card.lines.len());
    assert!(
        (950..=1200).contains(&card.targets.len()),
        "{} targets",
        card.targets.len()
    );
    let mut checked = 0;
    for target in &card.targets {
        // A set of 5 (or two kongs of one tile) holds more copies than the set has: jokers.
        let mut tiles = target.tiles.clone();
        for i in 0..tiles.len() {
            let t = tiles[i];
            let limit = if t == Tile::FLOWER { 8 } else { 4 };
            if !t.is_joker() && tiles.iter().filter(|x| **x == t).count() > limit {
                tiles[i] = Tile::JOKER;
            }
        }
        let hand = Hand::new(&tiles, &[]).unwrap();
        let check = card.check(&hand);
        let line = &card.lines[target.line];
        assert!(
            check.matches.iter().any(|m| m.line == target.line),
            "{:?} does not match {}",
            target.tiles,
            line.id
        );
        let best = &check.matches[check.best.unwrap()];
        assert!(card.lines[best.line].value >= line.value);
        checked += 1;
    }
    assert_eq!(checked, card.targets.len());
}
