//! Seasons: leagues (their card, ruleset, board and dates), standings with their cache and
//! exports, and a season's final results. Uses cards and people.

pub mod exports;
pub mod leagues;
pub mod overview;
pub mod results;
pub mod season;
pub mod standings;
