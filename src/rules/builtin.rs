//! Cards built into the binary: the project's own demo cards.

use std::sync::OnceLock;

use super::card::Card;

/// (name, card file) of every built-in card.
pub const SOURCES: [(&str, &str); 2] = [
    ("demo-2026", include_str!("cards/demo-2026.toml")),
    ("club-2027", include_str!("cards/club-2027.toml")),
];

/// A built-in card by name, compiled once.
pub fn get(name: &str) -> Option<&'static Card> {
    static CARDS: OnceLock<Vec<Card>> = OnceLock::new();
    let cards = CARDS.get_or_init(|| {
        SOURCES
            .iter()
            // The built-in cards are checked by the tests; a broken one is a build mistake.
            .map(|(n, text)| {
                Card::parse(text).unwrap_or_else(|e| panic!("built-in card {n}: {e:?}"))
            })
            .collect()
    });
    SOURCES
        .iter()
        .position(|(n, _)| *n == name)
        .map(|i| &cards[i])
}

/// Names of the built-in cards.
pub fn names() -> impl Iterator<Item = &'static str> {
    SOURCES.iter().map(|(n, _)| *n)
}

/// The card file of a built-in card.
pub fn source(name: &str) -> Option<&'static str> {
    SOURCES.iter().find(|(n, _)| *n == name).map(|(_, s)| *s)
}
