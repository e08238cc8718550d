//! Play: nights and their tables, check-ins and seating, nights ahead and replies, table codes;
//! games, their scores, idempotency keys and audit log, games page by page for apps; open play's
//! matches and players' word; webhooks and their deliveries. Uses seasons and people.

pub mod ahead;
pub mod codes;
pub mod game_pages;
pub mod games;
pub mod nights;
pub mod open;
pub mod webhooks;
