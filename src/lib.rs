//! mahjong-league: leagues, tournaments and an exact rules engine for American Mah Jongg clubs.
//!
//! Dependencies point inwards: `rules` (pure engine) ← `storage` (SQL) ← `api`/`pages` (HTTP)
//! ← `startup` (wiring) ← `cli` (entry point). See README "Architecture".

pub mod api;
pub mod auth;
pub mod cli;
pub mod config;
pub mod error;
pub mod pages;
pub mod rules;
pub mod seating;
pub mod standings;
pub mod startup;
pub mod storage;
pub mod telemetry;
