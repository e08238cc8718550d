//! Cards: uploaded cards as stored (never changed once a game used them) and the editor's drafts.

pub mod drafts;
pub mod library;
