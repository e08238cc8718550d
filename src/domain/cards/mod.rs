//! Cards: a club's library of cards (built-in and uploaded), the editor's drafts, and the engine's
//! stateless checks against a card. Uses people (who may change a club's cards).

pub mod drafts;
pub mod engine;
pub mod library;
