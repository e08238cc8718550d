//! Play: what happens at the tables. League nights (check-in, seating, tables), nights ahead and
//! their replies, a closed night's mail, table codes, tournament rounds; games with their entry,
//! corrections and views, lists for apps, the live feed and webhooks; open play's matches. Uses
//! seasons (standings order seats and are kept after each game), cards, people and the outbox.

pub mod ahead;
pub mod codes;
pub mod events;
pub mod game_lists;
pub mod game_view;
pub mod games;
pub mod night_mail;
pub mod nights;
pub mod open;
pub mod rounds;
pub mod webhooks;
