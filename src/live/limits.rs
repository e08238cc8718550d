//! The limits a stranger meets, kept in the database so that every instance serving it counts
//! the same requests (`storage::limits`): two instances at 60 a minute answer 60 a minute
//! between them, not 120. The rules are `auth::limits`'s.
//!
//! A busy caller of a large limit (1,024 at once or more) has its requests taken from the
//! database a few at a time (a lease good for half a second, at most a sixteenth of its
//! allowance), so a read costs a round trip only now and then; a lease's requests left unused when it runs out are lost, never given twice, so a
//! caller is never let through more than its limit. While the database does not answer (or
//! takes over half a second), this process's own count decides, as it did before limits were
//! shared, and the database is asked again after five seconds.

use std::collections::HashMap;
use std::net::IpAddr;
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use sha2::{Digest, Sha256};
use sqlx::PgPool;

use crate::auth::limits::{self as rules, Allowance, Refused, limit_key, refuse};
use crate::storage::limits as store;

/// The most requests one process takes ahead for a busy caller.
const MOST_AHEAD: u32 = 256;
/// How long requests taken ahead stay good.
const LEASE_FOR: Duration = Duration::from_millis(500);
/// How long a limit waits for the database before this process's own count decides.
const ASK_FOR: Duration = Duration::from_millis(500);
/// How long the database is left alone after it did not answer a limit.
const DOWN_FOR: Duration = Duration::from_secs(5);

/// A rate: `burst` at once, then one more every `step_us` microseconds.
#[derive(Debug, Clone, Copy)]
struct Rate {
    burst: u32,
    step_us: i64,
}

impl Rate {
    fn per_minute((burst, n): (u32, u32)) -> Rate {
        Rate {
            burst: burst.max(1),
            step_us: 60_000_000 / i64::from(n.max(1)),
        }
    }

    fn per_hour((burst, n): (u32, u32)) -> Rate {
        Rate {
            burst: burst.max(1),
            step_us: 3_600_000_000 / i64::from(n.max(1)),
        }
    }

    /// The most taken ahead at once: a sixteenth of the burst, for limits of 1,024 at once or
    /// more; a smaller limit is taken a request at a time (requests taken ahead and left unused
    /// are lost, which a small limit would feel: the engine's 120 at once must be 120).
    fn most_ahead(self) -> u32 {
        if self.burst < 1024 {
            1
        } else {
            (self.burst / 16).min(MOST_AHEAD)
        }
    }
}

/// Requests of one caller taken ahead by this process.
struct Lease {
    left: u32,
    until: Instant,
    /// How many the last take asked for.
    ask: u32,
    /// What the database had left after the last take.
    remaining: u32,
    /// A take of more is on its way (started when half the lease was used).
    refilling: bool,
}

/// What a take answered: let through or not, what remains, and when the next comes back.
#[derive(Debug, Clone, Copy)]
struct Answer {
    through: bool,
    remaining: u32,
    wait: Duration,
}

pub struct Limits {
    /// This process's own count: the stand-in while the database does not answer.
    pub local: rules::Limits,
    shared: Option<Arc<Shared>>,
    /// The apps' limits: requests a minute per address without credentials and per API token
    /// (0: none).
    api: (u32, u32),
}

/// What the limits keep in the database, and the leases taken from it.
struct Shared {
    db: PgPool,
    down_until: Mutex<Option<Instant>>,
    leases: Mutex<HashMap<String, Lease>>,
    /// What this process last knew of each caller's allowance, and how many processes share
    /// the database: while the database does not answer, a caller goes on from there, with
    /// this process's share of it, not from a whole allowance.
    known: Mutex<HashMap<String, Known>>,
    instances: AtomicU32,
}

/// A caller's allowance as this process last knew it: its share of what remained, and when.
#[derive(Debug, Clone, Copy)]
struct Known {
    left: f64,
    at: Instant,
}

/// The key a caller is counted under in the database: its kind and a digest of what names it
/// (no email or token is stored).
fn key(kind: &str, parts: &[&str]) -> String {
    let mut h = Sha256::new();
    for p in parts {
        h.update(p.as_bytes());
        h.update([0x1f]);
    }
    let digest = h.finalize();
    let hex: String = digest[..12].iter().map(|b| format!("{b:02x}")).collect();
    format!("{kind}:{hex}")
}

fn ip_text(address: Option<IpAddr>) -> String {
    address
        .map(limit_key)
        .map_or_else(String::new, |ip| ip.to_string())
}

impl Limits {
    /// Limits kept in `db` (`None`: in this process only).
    pub fn new(db: Option<PgPool>) -> Limits {
        Limits {
            local: rules::Limits::default(),
            shared: db.map(|db| {
                Arc::new(Shared {
                    db,
                    down_until: Mutex::new(None),
                    leases: Mutex::new(HashMap::new()),
                    known: Mutex::new(HashMap::new()),
                    instances: AtomicU32::new(1),
                })
            }),
            api: (0, 0),
        }
    }

    /// The apps' API rate limits: requests a minute per address without credentials and per API
    /// token (0: none).
    pub fn set_api(&mut self, per_address: u32, per_token: u32) {
        self.api = (per_address, per_token);
        self.local.api = rules::ApiLimits::new(per_address, per_token);
    }

    /// How many processes serve the database now (the streams' heartbeat counts them): while
    /// the database does not answer, each grants a caller at most its share.
    pub fn set_instances(&self, n: u32) {
        if let Some(shared) = &self.shared {
            shared.instances.store(n.max(1), Ordering::Relaxed);
        }
    }

    /// Takes one request of `key` under `rate` from the database (a few ahead when `ahead`);
    /// while the database cannot say, from what this process last knew of the caller (its
    /// share). `None` only with no database at all.
    async fn take(&self, rate: Rate, key: String, ahead: bool) -> Option<Answer> {
        let shared = self.shared.as_ref()?;
        let mut ask = 1;
        if ahead {
            match shared.from_lease(rate, &key) {
                Ok(answer) => return Some(answer),
                Err(next_ask) => ask = next_ask,
            }
        }
        let Some(took) = shared.take_from_db(rate, &key, ask).await else {
            return Some(shared.take_known(rate, &key));
        };
        if ahead {
            shared.lease(&key, ask, took, Instant::now());
        }
        let answer = Answer {
            through: took.granted > 0,
            remaining: took.remaining + took.granted.saturating_sub(1),
            wait: Duration::from_micros(took.wait_us.max(0) as u64),
        };
        shared.knew(&key, answer.remaining);
        Some(answer)
    }

    /// Takes one request under `rate` for each key in turn: refused (saying what was counted)
    /// at the first with none left. `None` when the database cannot say.
    async fn take_all(&self, checks: Vec<(Rate, String, &str)>) -> Option<Result<(), Refused>> {
        for (rate, key, what) in checks {
            let a = self.take(rate, key, false).await?;
            if !a.through {
                return Some(Err(refuse(what, a.wait)));
            }
        }
        Some(Ok(()))
    }

    /// A log in for the account `email` from `address`: attempts counted per address and per
    /// (account, address), right or wrong.
    pub async fn login(&self, email: &str, address: Option<IpAddr>) -> Result<(), Refused> {
        let ip = ip_text(address);
        let mut checks = Vec::new();
        if address.is_some() {
            checks.push((
                Rate::per_minute(rules::LOGIN_PER_ADDRESS),
                key("login-address", &[&ip]),
                "password attempts from this address",
            ));
        }
        checks.push((
            Rate::per_minute(rules::LOGIN_PER_ACCOUNT_AND_ADDRESS),
            key("login-account", &[&email.to_lowercase(), &ip]),
            "password attempts for this account",
        ));
        match self.take_all(checks).await {
            Some(r) => r,
            None => self.local.login(email, address),
        }
    }

    /// A sign-up from `address`, counted per email too when it mails `email` a link.
    pub async fn signup(
        &self,
        email: Option<&str>,
        address: Option<IpAddr>,
    ) -> Result<(), Refused> {
        let mut checks = Vec::new();
        if address.is_some() {
            checks.push((
                Rate::per_hour(rules::SIGNUP_PER_ADDRESS),
                key("signup-address", &[&ip_text(address)]),
                "sign-ups from this address",
            ));
        }
        if let Some(e) = email {
            checks.push((
                Rate::per_hour(rules::SIGNUP_PER_EMAIL),
                key("signup-email", &[&e.trim().to_lowercase()]),
                "sign-ups for this email",
            ));
        }
        match self.take_all(checks).await {
            Some(r) => r,
            None => self.local.signup(email, address),
        }
    }

    /// A password reset asked for `email` from `address`: counted per address and per email.
    pub async fn password_reset(
        &self,
        email: &str,
        address: Option<IpAddr>,
    ) -> Result<(), Refused> {
        let mut checks = Vec::new();
        if address.is_some() {
            checks.push((
                Rate::per_hour(rules::RESET_PER_ADDRESS),
                key("reset-address", &[&ip_text(address)]),
                "password resets from this address",
            ));
        }
        checks.push((
            Rate::per_hour(rules::RESET_PER_EMAIL),
            key("reset-email", &[&email.trim().to_lowercase()]),
            "password resets for this email",
        ));
        match self.take_all(checks).await {
            Some(r) => r,
            None => self.local.password_reset(email, address),
        }
    }

    /// Whether `key` has used up `rule`'s failures in its window; `None` when the database
    /// cannot say.
    async fn within(
        &self,
        key: &str,
        (most, window): (u32, Duration),
        what: &str,
    ) -> Option<Result<(), Refused>> {
        let shared = self.shared.as_ref()?;
        let db = shared.db()?;
        let (n, left) = shared
            .asked(store::failures(db, key, window.as_secs() as i64))
            .await?;
        Some(if n >= most {
            Err(refuse(
                what,
                Duration::from_secs(left.max(0) as u64).saturating_sub(Duration::from_secs(1)),
            ))
        } else {
            Ok(())
        })
    }

    /// Counts a failure of `key` in `rule`'s window: whether the database took it.
    async fn fail(&self, key: &str, (_, window): (u32, Duration)) -> bool {
        let Some(shared) = self.shared.as_ref() else {
            return false;
        };
        let Some(db) = shared.db() else { return false };
        shared
            .asked(store::fail(db, key, window.as_secs() as i64))
            .await
            .is_some()
    }

    /// Whether an address may still try table codes.
    pub async fn table_code(&self, address: Option<IpAddr>) -> Result<(), Refused> {
        if address.is_none() {
            return Ok(());
        }
        let k = key("code-failures", &[&ip_text(address)]);
        match self
            .within(
                &k,
                rules::TABLE_CODE_FAILURES,
                "wrong table codes from this address",
            )
            .await
        {
            Some(r) => r,
            None => self.local.table_code(address),
        }
    }

    /// A wrong table code from an address.
    pub async fn table_code_failed(&self, address: Option<IpAddr>) {
        if address.is_none() {
            return;
        }
        let k = key("code-failures", &[&ip_text(address)]);
        if !self.fail(&k, rules::TABLE_CODE_FAILURES).await {
            self.local.table_code_failed(address);
        }
    }

    /// Whether a password may be checked for the account `email` from `address`: refused once
    /// wrong passwords used up the account's (from this address) or the address's failures.
    pub async fn password_check(
        &self,
        email: &str,
        address: Option<IpAddr>,
    ) -> Result<(), Refused> {
        let ip = ip_text(address);
        if address.is_some() {
            let k = key("password-address", &[&ip]);
            match self
                .within(
                    &k,
                    rules::PASSWORD_FAILURES_PER_ADDRESS,
                    "wrong passwords from this address",
                )
                .await
            {
                Some(Ok(())) => {}
                Some(refused) => return refused,
                None => return self.local.password_check(email, address),
            }
        }
        let k = key("password-account", &[&email.trim().to_lowercase(), &ip]);
        match self
            .within(
                &k,
                rules::PASSWORD_FAILURES_PER_ACCOUNT,
                "wrong passwords for this account",
            )
            .await
        {
            Some(r) => r,
            None => self.local.password_check(email, address),
        }
    }

    /// A wrong password for the account `email` from `address`.
    pub async fn password_failed(&self, email: &str, address: Option<IpAddr>) {
        let ip = ip_text(address);
        let mut kept = true;
        if address.is_some() {
            kept &= self
                .fail(
                    &key("password-address", &[&ip]),
                    rules::PASSWORD_FAILURES_PER_ADDRESS,
                )
                .await;
        }
        kept &= self
            .fail(
                &key("password-account", &[&email.trim().to_lowercase(), &ip]),
                rules::PASSWORD_FAILURES_PER_ACCOUNT,
            )
            .await;
        if !kept {
            self.local.password_failed(email, address);
        }
    }

    /// Counts a request to the engine's endpoints from `address` (120 at once, then 20 a
    /// second).
    pub async fn engine(&self, address: IpAddr) -> Allowance {
        let rate = Rate::per_minute(rules::ENGINE_PER_ADDRESS);
        let k = key("engine", &[&ip_text(Some(address))]);
        match self.take(rate, k, true).await {
            Some(a) => allowance(rate, a),
            None => self.local.engine(address),
        }
    }

    /// Counts a request from `address` without credentials; `None` when there is no limit.
    pub async fn api_address(&self, address: IpAddr) -> Option<Allowance> {
        if self.api.0 == 0 {
            return None;
        }
        let rate = Rate::per_minute((self.api.0, self.api.0));
        let k = key("api-address", &[&ip_text(Some(address))]);
        match self.take(rate, k, true).await {
            Some(a) => Some(allowance(rate, a)),
            None => self.local.api.address(address),
        }
    }

    /// Counts a request with the API token `token`; `None` when there is no limit.
    pub async fn api_token(&self, token: &str) -> Option<Allowance> {
        if self.api.1 == 0 {
            return None;
        }
        let rate = Rate::per_minute((self.api.1, self.api.1));
        match self.take(rate, key("api-token", &[token]), true).await {
            Some(a) => Some(allowance(rate, a)),
            None => self.local.api.token(token),
        }
    }
}

impl Shared {
    /// The database, unless it failed lately.
    fn db(&self) -> Option<&PgPool> {
        let mut down = self.down_until.lock().unwrap_or_else(|e| e.into_inner());
        match *down {
            Some(until) if Instant::now() < until => None,
            Some(_) => {
                *down = None;
                Some(&self.db)
            }
            None => Some(&self.db),
        }
    }

    fn failed(&self, e: &dyn std::fmt::Display) {
        let mut down = self.down_until.lock().unwrap_or_else(|e| e.into_inner());
        if down.is_none() {
            tracing::warn!(error = %e, "limits: the database did not answer; this process counts alone for a while");
        }
        *down = Some(Instant::now() + DOWN_FOR);
    }

    /// This process's share of what the database said remains of `key`'s allowance, kept for
    /// while it does not answer.
    fn knew(&self, key: &str, remaining: u32) {
        let share = f64::from(self.instances.load(Ordering::Relaxed).max(1));
        let now = Instant::now();
        let mut known = self.known.lock().unwrap_or_else(|e| e.into_inner());
        if known.len() > 100_000 {
            known.retain(|_, k| now.duration_since(k.at) < Duration::from_secs(3600));
        }
        known.insert(
            key.to_string(),
            Known {
                left: f64::from(remaining) / share,
                at: now,
            },
        );
    }

    /// A request of `key` while the database does not answer: from this process's share of
    /// what it last knew remained (refilled at its share of the rate since), or its share of a
    /// whole allowance for a caller it never saw; never more than its share.
    fn take_known(&self, rate: Rate, key: &str) -> Answer {
        let share = f64::from(self.instances.load(Ordering::Relaxed).max(1));
        let whole = f64::from(rate.burst) / share;
        let now = Instant::now();
        let mut known = self.known.lock().unwrap_or_else(|e| e.into_inner());
        let k = known.entry(key.to_string()).or_insert(Known {
            left: whole,
            at: now,
        });
        let refilled = now.duration_since(k.at).as_micros() as f64 / rate.step_us as f64 / share;
        k.left = (k.left + refilled).min(whole);
        k.at = now;
        if k.left >= 1.0 {
            k.left -= 1.0;
            Answer {
                through: true,
                remaining: k.left.floor() as u32,
                wait: Duration::ZERO,
            }
        } else {
            let wait_us = (1.0 - k.left) * rate.step_us as f64 * share;
            Answer {
                through: false,
                remaining: 0,
                wait: Duration::from_micros(wait_us.ceil() as u64),
            }
        }
    }

    /// Takes up to `ask` requests of `key` from the database; `None` when it cannot say.
    async fn take_from_db(&self, rate: Rate, key: &str, ask: u32) -> Option<store::Took> {
        let db = self.db()?;
        self.asked(store::take(db, key, rate.step_us, rate.burst, ask))
            .await
    }

    /// What the database answers to `query` within `ASK_FOR`; `None` (and the database left
    /// alone for a while) when it fails or takes longer.
    async fn asked<T>(
        &self,
        query: impl std::future::Future<Output = sqlx::Result<T>>,
    ) -> Option<T> {
        match tokio::time::timeout(ASK_FOR, query).await {
            Ok(Ok(t)) => Some(t),
            Ok(Err(e)) => {
                self.failed(&e);
                None
            }
            Err(_) => {
                self.failed(&"no answer within half a second");
                None
            }
        }
    }

    /// One request from `key`'s lease, if it holds one still good; once half of it is used, more
    /// is taken in the background so that a busy caller seldom waits for the database. Else how
    /// many to take now: twice the last when it was used up in time, half when it ran out.
    fn from_lease(self: &Arc<Self>, rate: Rate, key: &str) -> Result<Answer, u32> {
        let now = Instant::now();
        let mut leases = self.leases.lock().unwrap_or_else(|e| e.into_inner());
        let Some(l) = leases.get_mut(key) else {
            if leases.len() > 50_000 {
                leases.retain(|_, l| now < l.until);
            }
            return Err(1);
        };
        if l.left > 0 && now < l.until {
            l.left -= 1;
            let answer = Answer {
                through: true,
                remaining: l.left + l.remaining,
                wait: Duration::ZERO,
            };
            if l.left <= l.ask / 2 && !l.refilling && rate.most_ahead() > 1 {
                l.refilling = true;
                let ask = l.ask.saturating_mul(2).clamp(1, rate.most_ahead());
                let (me, key) = (self.clone(), key.to_string());
                tokio::spawn(async move {
                    let took = me.take_from_db(rate, &key, ask).await;
                    let mut leases = me.leases.lock().unwrap_or_else(|e| e.into_inner());
                    if let Some(l) = leases.get_mut(&key) {
                        l.refilling = false;
                        if let Some(t) = took {
                            l.left += t.granted;
                            l.ask = ask;
                            l.remaining = t.remaining;
                            l.until = Instant::now() + LEASE_FOR;
                        }
                    }
                });
            }
            return Ok(answer);
        }
        Err(if l.left == 0 && now < l.until {
            l.ask.saturating_mul(2)
        } else {
            l.ask / 2
        }
        .clamp(1, rate.most_ahead()))
    }

    /// Keeps what a take of `ask` gave beyond the request it was for.
    fn lease(&self, key: &str, ask: u32, took: store::Took, now: Instant) {
        let mut leases = self.leases.lock().unwrap_or_else(|e| e.into_inner());
        let l = leases.entry(key.to_string()).or_insert(Lease {
            left: 0,
            until: now,
            ask,
            remaining: 0,
            refilling: false,
        });
        l.left = took.granted.saturating_sub(1);
        l.until = now + LEASE_FOR;
        l.ask = ask;
        l.remaining = took.remaining;
    }
}

/// An answer as the `RateLimit-*` headers say it: while some remains, the seconds until the
/// whole limit is back; with none, until the next request is.
fn allowance(rate: Rate, a: Answer) -> Allowance {
    let step = rate.step_us as f64 / 1e6;
    let wait = a.wait.as_secs_f64().ceil().max(1.0) as u64;
    if !a.through {
        return Allowance {
            limit: rate.burst,
            remaining: 0,
            reset_secs: wait,
            retry_after_secs: Some(wait),
        };
    }
    let reset = if a.remaining == 0 {
        step
    } else {
        f64::from(rate.burst.saturating_sub(a.remaining)) * step
    };
    Allowance {
        limit: rate.burst,
        remaining: a.remaining,
        reset_secs: reset.ceil() as u64,
        retry_after_secs: None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_name_no_email_and_differ_by_kind_and_caller() {
        let a = key("password-account", &["mia@example.org", "192.0.2.1"]);
        assert!(
            !a.contains("mia") && a.starts_with("password-account:"),
            "{a}"
        );
        assert_ne!(
            a,
            key("password-account", &["mia@example.org", "192.0.2.2"])
        );
        assert_ne!(a, key("login-account", &["mia@example.org", "192.0.2.1"]));
        // The parts are kept apart: ("ab", "c") is not ("a", "bc").
        assert_ne!(key("k", &["ab", "c"]), key("k", &["a", "bc"]));
    }

    #[test]
    fn a_small_limit_is_taken_one_at_a_time_a_large_one_ahead() {
        assert_eq!(Rate::per_minute((60, 60)).most_ahead(), 1);
        assert_eq!(Rate::per_minute((120, 1200)).most_ahead(), 1);
        assert_eq!(Rate::per_minute((2048, 2048)).most_ahead(), 128);
        assert_eq!(
            Rate::per_minute((1_000_000, 1_000_000)).most_ahead(),
            MOST_AHEAD
        );
        assert_eq!(Rate::per_minute((60, 60)).step_us, 1_000_000);
        assert_eq!(Rate::per_hour((3, 6)).step_us, 600_000_000);
    }
}
