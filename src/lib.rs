//! mahjong-league: leagues, tournaments and an exact rules engine for American Mah Jongg clubs.
//!
//! Dependencies point one way: `rules` (the pure engine, with `seating` and `standings`) ←
//! `storage` (SQL) ← `live` (what a process holds in memory) ← `state` ← `domain` (the operations) ← `api` / `pages` (HTTP adapters,
//! sharing `http` and `error`) ← `startup` (wiring) ← `cli` (entry point). See README
//! "Architecture".

pub mod api;
pub mod auth;
pub mod cli;
pub mod config;
pub mod domain;
pub mod error;
pub mod http;
pub mod live;
pub mod mail;
pub mod metrics;
pub mod pages;
pub mod rules;
pub mod seating;
pub mod standings;
pub mod startup;
pub mod state;
pub mod storage;
pub mod telemetry;
