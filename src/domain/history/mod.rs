//! History: what comes from before, written through the other areas. A league's games and
//! opening balances imported from a CSV, and the demo club's made-up past. Top of the areas.

pub mod demo;
pub mod imports;
