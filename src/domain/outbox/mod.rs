//! The outbox: every letter the service writes (with what it is about), and the worker that
//! sends them over SMTP with retries, a club's daily limit and its log for organizers. Lowest of
//! the areas: anything may write a letter; the letters the worker writes itself on a schedule
//! (password resets, a closed night's mail, reminders) are handed to it by `startup`.

pub mod mail;
