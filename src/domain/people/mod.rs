//! People: accounts and sessions, your own account, clubs, their members, roles and tokens,
//! invitations, the club's players, and the budgets that keep an account from making the service
//! work for it without end. Uses the outbox.

pub mod accounts;
pub mod budgets;
pub mod clubs;
pub mod invitations;
pub mod members;
pub mod names;
pub mod players;
pub mod roster;
pub mod your_account;
