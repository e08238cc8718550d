//! mahjong-league: leagues, tournaments and an exact rules engine for American Mah Jongg clubs.

pub mod cli;
pub mod config;
pub mod rules;
pub mod startup;
