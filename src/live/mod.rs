//! The live read models: what one process holds in memory so that it reads the database less,
//! each kept right by the database's change notices or by the writes of this process (nothing
//! that matters lives only here: several processes can serve one database) — the standings
//! held per league, the freshness stamps, the event hub, the game logs for head-to-head, the
//! token grants and compiled cards — and game entry's lane.

pub mod budget;
pub mod cards;
pub mod entry;
pub mod freshness;
pub mod game_logs;
pub mod grants;
pub mod hub;
pub mod limits;
pub mod standings;

pub use budget::CacheBudget;
pub use cards::CardCache;
pub use entry::EntryLane;
pub use freshness::{Freshness, Unheard};
pub use game_logs::{GameLog, GameLogs};
pub use grants::Grants;
pub use hub::{AddressSlot, EVENTS_PAGE, Hub, MAX_STREAMS, Subscription};
pub use standings::{Cached, HeldLines, Pushed, Served, StandingsCache, Written, WrittenRow};
