//! The embedded rules engine for American Mah Jongg (`shared/spec/rules.md`).
//!
//! Pure Rust: no I/O, no web or database types. The service, the CLI and the tests call it;
//! it depends on nothing else in the crate.

pub mod adjudicate;
pub mod answers;
pub mod builtin;
pub mod card;
pub mod card_text;
pub mod matching;
pub mod pattern;
pub mod scoring;
pub mod tile;
pub mod words;

pub use adjudicate::{DeadReason, Table, Verdict, VerdictReport};
pub use card::{Card, CardError, CardRef, Line};
pub use matching::{Check, CheckReport, Exposure, Hand, MatchReport};
pub use scoring::{GameResult, Ruleset, RulesetSpec, ScoreReport, Tiles};
pub use tile::{Suit, Tile, format_tiles, parse_tiles};

use std::fmt;

/// Input the engine cannot accept, with a message that says what is wrong and where.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct InputError(pub String);

impl InputError {
    pub fn new(message: impl Into<String>) -> InputError {
        InputError(message.into())
    }

    /// Prefixes the message with where the problem is (`hand`, `exposures[1]`).
    pub fn context(self, at: &str) -> InputError {
        InputError(format!("{at}: {}", self.0))
    }
}

impl fmt::Display for InputError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for InputError {}
