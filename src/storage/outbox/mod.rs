//! The outbox: mail waiting, leased, sent or held, unsubscribes, and the password-reset and
//! sign-up requests the mail worker turns into letters.

pub mod mail;
