//! History: games and opening balances brought into a league in one transaction. Uses seasons
//! and people.

pub mod imports;
