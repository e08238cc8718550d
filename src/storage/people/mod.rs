//! People: users and their sessions, clubs and memberships, API tokens, invitations, players and
//! their names, and the budgets an account or a club spends.

pub mod budgets;
pub mod clubs;
pub mod invitations;
pub mod names;
pub mod players;
pub mod tokens;
pub mod users;
