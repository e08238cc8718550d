//! Seasons: leagues, their event log (what screens, apps and webhooks follow), and the standings
//! totals kept in step with every game written (`totals::record_game`, with what a game to store
//! looks like in `new_game`). Uses people.

pub mod events;
pub mod leagues;
pub mod new_game;
pub mod season;
pub mod totals;
