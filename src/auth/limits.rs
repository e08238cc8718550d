//! The limits a stranger meets, as rules (each `pub const` here), and their keeping in this
//! process's memory (governor). The service keeps them in the database, where every instance
//! sees them (`live::limits`); this process's own count stands in while the database does not
//! answer.

use std::net::{IpAddr, Ipv6Addr};
use std::num::NonZeroU32;

use governor::clock::{Clock, DefaultClock};
use governor::{DefaultKeyedRateLimiter, Quota, RateLimiter};

/// Login attempts for one account from one address: 5 at once, then one every 12 s. Counted
/// per (account, address), so wrong passwords sent from one address never lock the account's
/// owner out elsewhere.
pub const LOGIN_PER_ACCOUNT_AND_ADDRESS: (u32, u32) = (5, 5);
/// Login attempts from one address, whatever the accounts: 20 at once, then one every 3 s.
pub const LOGIN_PER_ADDRESS: (u32, u32) = (20, 20);
/// Sign-ups from one address: 10 at once (a club signing up on its first night), then one
/// every 6 minutes.
pub const SIGNUP_PER_ADDRESS: (u32, u32) = (10, 10);
/// Password reset requests from one address: 10 at once, then 20 an hour.
pub const RESET_PER_ADDRESS: (u32, u32) = (10, 20);
/// Password reset requests for one email, from anywhere: 3 at once, then 6 an hour (a mailbox
/// is never flooded, whoever asks).
pub const RESET_PER_EMAIL: (u32, u32) = (3, 6);
/// Sign-up mails to one address (known or not): 3 at once, then 6 an hour.
pub const SIGNUP_PER_EMAIL: (u32, u32) = (3, 6);
/// Stateless engine calls per address: 120 at once, then 20 a second.
pub const ENGINE_PER_ADDRESS: (u32, u32) = (120, 1200);
/// Wrong table codes from one address: 20 in 10 minutes, then none until the window ends. Only
/// wrong codes count, so a club's tablets behind one address all enter theirs on a busy night.
pub const TABLE_CODE_FAILURES: (u32, std::time::Duration) =
    (20, std::time::Duration::from_secs(600));
/// Wrong passwords for one account from one address, by every request that checks one (log in,
/// change password or email, delete the account): 5 a minute.
pub const PASSWORD_FAILURES_PER_ACCOUNT: (u32, std::time::Duration) =
    (5, std::time::Duration::from_secs(60));
/// Wrong passwords from one address, whatever the accounts: 20 a minute.
pub const PASSWORD_FAILURES_PER_ADDRESS: (u32, std::time::Duration) =
    (20, std::time::Duration::from_secs(60));

/// The key an address is counted under: an IPv6 client by its /64 (one household or phone
/// gets a whole /64, so counting single addresses would let it rotate freely), an IPv4 client
/// (also one written as `::ffff:a.b.c.d`) by its address.
pub fn limit_key(ip: IpAddr) -> IpAddr {
    match ip {
        IpAddr::V4(_) => ip,
        IpAddr::V6(v6) => match v6.to_ipv4_mapped() {
            Some(v4) => IpAddr::V4(v4),
            None => {
                let s = v6.segments();
                IpAddr::V6(Ipv6Addr::new(s[0], s[1], s[2], s[3], 0, 0, 0, 0))
            }
        },
    }
}

pub struct Limits {
    /// Apps' requests to the API.
    pub api: ApiLimits,
    login_account: DefaultKeyedRateLimiter<(String, Option<IpAddr>)>,
    login_address: DefaultKeyedRateLimiter<IpAddr>,
    signup: DefaultKeyedRateLimiter<IpAddr>,
    signup_email: DefaultKeyedRateLimiter<String>,
    reset_address: DefaultKeyedRateLimiter<IpAddr>,
    reset_email: DefaultKeyedRateLimiter<String>,
    /// The engine's endpoints, per address: (at once, seconds a request takes to come back).
    engine: (u32, f64, Informing<IpAddr>),
    table_code: Failures<IpAddr>,
    password_account: Failures<(String, Option<IpAddr>)>,
    password_address: Failures<IpAddr>,
}

/// Failures per key in a fixed window (in memory; entries expire with their window).
struct Failures<K> {
    seen: std::sync::Mutex<std::collections::HashMap<K, (u32, std::time::Instant)>>,
}

impl<K> Default for Failures<K> {
    fn default() -> Self {
        Failures {
            seen: std::sync::Mutex::default(),
        }
    }
}

impl<K: std::hash::Hash + Eq> Failures<K> {
    /// Refused (saying `what` was counted) when the key has used up its failures in the
    /// current window.
    fn check(
        &self,
        key: &K,
        (most, window): (u32, std::time::Duration),
        what: &str,
    ) -> Result<(), Refused> {
        let seen = self.seen.lock().unwrap_or_else(|e| e.into_inner());
        match seen.get(key) {
            Some((n, since)) if *n >= most && since.elapsed() < window => {
                Err(refuse(what, window.saturating_sub(since.elapsed())))
            }
            _ => Ok(()),
        }
    }

    fn record(&self, key: K, (_, window): (u32, std::time::Duration)) {
        let mut seen = self.seen.lock().unwrap_or_else(|e| e.into_inner());
        if seen.len() > 10_000 {
            seen.retain(|_, (_, since)| since.elapsed() < window);
        }
        let entry = seen.entry(key).or_insert((0, std::time::Instant::now()));
        if entry.1.elapsed() >= window {
            *entry = (0, std::time::Instant::now());
        }
        entry.0 += 1;
    }
}

fn quota((burst, per_minute): (u32, u32)) -> Quota {
    let nz = |n: u32| NonZeroU32::new(n).unwrap_or(NonZeroU32::MIN);
    Quota::per_minute(nz(per_minute)).allow_burst(nz(burst))
}

/// A quota of `burst` at once, then `per_hour` spread over an hour.
fn hourly((burst, per_hour): (u32, u32)) -> Quota {
    let nz = |n: u32| NonZeroU32::new(n).unwrap_or(NonZeroU32::MIN);
    Quota::per_hour(nz(per_hour)).allow_burst(nz(burst))
}

/// A request over a limit: what was counted, and when to try again.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Refused {
    pub detail: String,
    pub retry_after_secs: u64,
}

pub fn refuse(what: &str, wait: std::time::Duration) -> Refused {
    let secs = wait.as_secs() + 1;
    Refused {
        detail: format!("too many {what}; try again in {secs} s"),
        retry_after_secs: secs,
    }
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            api: ApiLimits::default(),
            login_account: RateLimiter::keyed(quota(LOGIN_PER_ACCOUNT_AND_ADDRESS)),
            login_address: RateLimiter::keyed(quota(LOGIN_PER_ADDRESS)),
            signup: RateLimiter::keyed(hourly(SIGNUP_PER_ADDRESS)),
            signup_email: RateLimiter::keyed(hourly(SIGNUP_PER_EMAIL)),
            reset_address: RateLimiter::keyed(hourly(RESET_PER_ADDRESS)),
            reset_email: RateLimiter::keyed(hourly(RESET_PER_EMAIL)),
            engine: (
                ENGINE_PER_ADDRESS.0,
                60.0 / f64::from(ENGINE_PER_ADDRESS.1),
                RateLimiter::dashmap_with_clock(quota(ENGINE_PER_ADDRESS), DefaultClock::default())
                    .with_middleware::<governor::middleware::StateInformationMiddleware>(),
            ),
            table_code: Failures::default(),
            password_account: Failures::default(),
            password_address: Failures::default(),
        }
    }
}

impl Limits {
    /// A log in for the account `email` from `address`: attempts counted per address and per
    /// (account, address), right or wrong (wrong passwords also count in `password_failed`).
    pub fn login(&self, email: &str, address: Option<IpAddr>) -> Result<(), Refused> {
        let now = DefaultClock::default().now();
        let address = address.map(limit_key);
        if let Some(ip) = address {
            self.login_address.check_key(&ip).map_err(|n| {
                refuse("password attempts from this address", n.wait_time_from(now))
            })?;
        }
        self.login_account
            .check_key(&(email.to_lowercase(), address))
            .map_err(|n| refuse("password attempts for this account", n.wait_time_from(now)))
    }

    /// A sign-up from `address`, and, when it mails `email` a link, counted per email too (known
    /// or not, so the answer tells nothing of which addresses have accounts).
    pub fn signup(&self, email: Option<&str>, address: Option<IpAddr>) -> Result<(), Refused> {
        let now = DefaultClock::default().now();
        if let Some(ip) = address.map(limit_key) {
            self.signup
                .check_key(&ip)
                .map_err(|n| refuse("sign-ups from this address", n.wait_time_from(now)))?;
        }
        match email {
            Some(e) => self
                .signup_email
                .check_key(&e.trim().to_lowercase())
                .map_err(|n| refuse("sign-ups for this email", n.wait_time_from(now))),
            None => Ok(()),
        }
    }

    /// A password reset asked for `email` from `address`: counted per address and per email
    /// (known or not, so the answer tells nothing of which addresses have accounts).
    pub fn password_reset(&self, email: &str, address: Option<IpAddr>) -> Result<(), Refused> {
        let now = DefaultClock::default().now();
        if let Some(ip) = address.map(limit_key) {
            self.reset_address
                .check_key(&ip)
                .map_err(|n| refuse("password resets from this address", n.wait_time_from(now)))?;
        }
        self.reset_email
            .check_key(&email.trim().to_lowercase())
            .map_err(|n| refuse("password resets for this email", n.wait_time_from(now)))
    }

    /// Whether an address may still try table codes.
    pub fn table_code(&self, address: Option<IpAddr>) -> Result<(), Refused> {
        let Some(ip) = address.map(limit_key) else {
            return Ok(());
        };
        self.table_code.check(
            &ip,
            TABLE_CODE_FAILURES,
            "wrong table codes from this address",
        )
    }

    /// Whether a password may be checked for the account `email` from `address`: refused once
    /// wrong passwords used up the account's (from this address) or the address's failures.
    /// Every request that checks or sets a password asks this first (log in, change password
    /// or email, delete the account, join by invitation, finish a sign-up), so wrong passwords
    /// count together whichever request sent them.
    pub fn password_check(&self, email: &str, address: Option<IpAddr>) -> Result<(), Refused> {
        let address = address.map(limit_key);
        if let Some(ip) = address {
            self.password_address.check(
                &ip,
                PASSWORD_FAILURES_PER_ADDRESS,
                "wrong passwords from this address",
            )?;
        }
        self.password_account.check(
            &(email.trim().to_lowercase(), address),
            PASSWORD_FAILURES_PER_ACCOUNT,
            "wrong passwords for this account",
        )
    }

    /// A wrong password for the account `email` from `address`.
    pub fn password_failed(&self, email: &str, address: Option<IpAddr>) {
        let address = address.map(limit_key);
        if let Some(ip) = address {
            self.password_address
                .record(ip, PASSWORD_FAILURES_PER_ADDRESS);
        }
        self.password_account.record(
            (email.trim().to_lowercase(), address),
            PASSWORD_FAILURES_PER_ACCOUNT,
        );
    }

    /// A wrong table code from an address.
    pub fn table_code_failed(&self, address: Option<IpAddr>) {
        if let Some(ip) = address.map(limit_key) {
            self.table_code.record(ip, TABLE_CODE_FAILURES);
        }
    }

    /// Counts a request to the engine's endpoints from `address` (120 at once, then 20 a
    /// second), for the same `RateLimit-*` headers as the API's.
    pub fn engine(&self, address: IpAddr) -> Allowance {
        let (limit, per_request, limiter) = &self.engine;
        ApiLimits::count(*limit, *per_request, limiter, limit_key(address))
    }
}

#[cfg(test)]
mod table_code_tests {
    use super::*;

    #[test]
    fn ipv6_clients_count_by_their_64() {
        let a = limit_key("2001:db8:1:2:aaaa::1".parse().unwrap());
        let b = limit_key("2001:db8:1:2:ffff:1:2:3".parse().unwrap());
        let c = limit_key("2001:db8:1:3::1".parse().unwrap());
        assert_eq!(a, b);
        assert_ne!(a, c);
        assert_eq!(
            limit_key("::ffff:192.0.2.4".parse().unwrap()),
            "192.0.2.4".parse::<IpAddr>().unwrap()
        );
    }

    #[test]
    fn only_wrong_codes_count_and_the_window_ends() {
        let f = Failures::default();
        let ip: IpAddr = "192.0.2.7".parse().unwrap();
        let rule = (3, std::time::Duration::from_millis(200));
        let what = "wrong table codes";
        for _ in 0..3 {
            assert!(f.check(&ip, rule, what).is_ok());
            f.record(ip, rule);
        }
        let refused = f.check(&ip, rule, what).unwrap_err();
        assert!(refused.detail.contains("wrong table codes"), "{refused:?}");
        assert!(
            f.check(&"192.0.2.8".parse().unwrap(), rule, what).is_ok(),
            "per address"
        );
        std::thread::sleep(std::time::Duration::from_millis(250));
        assert!(f.check(&ip, rule, what).is_ok(), "the window ended");
    }
}

/// A keyed limiter that reports what is left.
type Informing<K> = RateLimiter<
    K,
    governor::state::keyed::DefaultKeyedStateStore<K>,
    DefaultClock,
    governor::middleware::StateInformationMiddleware,
>;

/// Where a caller stands against an API limit, for the `RateLimit-*` headers.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Allowance {
    /// Requests a minute (the most at once, too).
    pub limit: u32,
    /// Requests that may still be sent at once.
    pub remaining: u32,
    /// Seconds until the whole limit is available again while some remains; when none remains,
    /// seconds until the next request is let through (on a refusal, `retry_after_secs`): a
    /// client reading either header waits the same.
    pub reset_secs: u64,
    /// When refused: seconds until the next request is let through.
    pub retry_after_secs: Option<u64>,
}

/// The API's limits for apps: per API token, and per address for requests without credentials.
/// Each is so many requests a minute, all of which may come at once; 0 switches it off.
pub struct ApiLimits {
    per_address: Option<(u32, Informing<IpAddr>)>,
    per_token: Option<(u32, Informing<u64>)>,
}

impl ApiLimits {
    pub fn new(per_address_per_minute: u32, per_token_per_minute: u32) -> ApiLimits {
        fn limiter<K: std::hash::Hash + Eq + Clone>(n: u32) -> Option<(u32, Informing<K>)> {
            let nz = NonZeroU32::new(n)?;
            let quota = Quota::per_minute(nz).allow_burst(nz);
            Some((
                n,
                RateLimiter::dashmap_with_clock(quota, DefaultClock::default())
                    .with_middleware::<governor::middleware::StateInformationMiddleware>(),
            ))
        }
        ApiLimits {
            per_address: limiter(per_address_per_minute),
            per_token: limiter(per_token_per_minute),
        }
    }

    /// Counts a request from `address` without credentials; `None` when there is no limit.
    pub fn address(&self, address: IpAddr) -> Option<Allowance> {
        let (limit, limiter) = self.per_address.as_ref()?;
        Some(Self::count(
            *limit,
            60.0 / f64::from(*limit),
            limiter,
            limit_key(address),
        ))
    }

    /// Counts a request with the API token `token`; `None` when there is no limit.
    pub fn token(&self, token: &str) -> Option<Allowance> {
        use std::hash::{BuildHasher, BuildHasherDefault};
        let (limit, limiter) = self.per_token.as_ref()?;
        let key = BuildHasherDefault::<std::collections::hash_map::DefaultHasher>::default()
            .hash_one(token);
        Some(Self::count(*limit, 60.0 / f64::from(*limit), limiter, key))
    }

    /// Counts a request under `limiter`: `limit` at once, each coming back after `per_request`
    /// seconds.
    fn count<K: std::hash::Hash + Eq + Clone>(
        limit: u32,
        per_request: f64,
        limiter: &Informing<K>,
        key: K,
    ) -> Allowance {
        // Keys of callers idle for a minute hold nothing: drop them now and then.
        if limiter.len() > 50_000 {
            limiter.retain_recent();
        }
        match limiter.check_key(&key) {
            Ok(snapshot) => {
                let remaining = snapshot.remaining_burst_capacity();
                let reset = if remaining == 0 {
                    per_request
                } else {
                    f64::from(limit.saturating_sub(remaining)) * per_request
                };
                Allowance {
                    limit,
                    remaining,
                    reset_secs: reset.ceil() as u64,
                    retry_after_secs: None,
                }
            }
            Err(not_until) => {
                let wait = not_until
                    .wait_time_from(DefaultClock::default().now())
                    .as_secs()
                    + 1;
                Allowance {
                    limit,
                    remaining: 0,
                    reset_secs: wait,
                    retry_after_secs: Some(wait),
                }
            }
        }
    }
}

impl Default for ApiLimits {
    fn default() -> Self {
        ApiLimits::new(0, 0)
    }
}

#[cfg(test)]
mod api_tests {
    use super::*;

    #[test]
    fn a_limit_counts_down_refuses_and_says_when() {
        let limits = ApiLimits::new(3, 0);
        let ip: IpAddr = "192.0.2.9".parse().unwrap();
        let seen: Vec<Allowance> = (0..4).map(|_| limits.address(ip).unwrap()).collect();
        assert_eq!(
            seen.iter().map(|a| a.remaining).collect::<Vec<_>>(),
            vec![2, 1, 0, 0]
        );
        assert!(seen[..3].iter().all(|a| a.retry_after_secs.is_none()));
        assert_eq!(
            seen[3].retry_after_secs,
            Some(20),
            "one request back every 20 s"
        );
        assert_eq!(seen[0].reset_secs, 20);
        assert_eq!(
            seen[2].reset_secs, 20,
            "none remains: the next one comes back in 20 s"
        );
        assert_eq!(
            Some(seen[3].reset_secs),
            seen[3].retry_after_secs,
            "refused: RateLimit-Reset and Retry-After say the same"
        );
        assert!(limits.token("mlt_x").is_none(), "tokens have no limit here");
        assert!(
            limits
                .address("192.0.2.10".parse().unwrap())
                .unwrap()
                .remaining
                == 2,
            "per address"
        );
    }
}
