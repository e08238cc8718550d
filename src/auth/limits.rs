//! Rate limits (governor, in memory per process: a limit is protection, not data, so several
//! processes each enforcing it is acceptable).

use std::net::IpAddr;
use std::num::NonZeroU32;

use governor::clock::{Clock, DefaultClock};
use governor::{DefaultKeyedRateLimiter, Quota, RateLimiter};

/// Login attempts for one account from one address: 5 at once, then one every 12 s. Counted
/// per (account, address), so wrong passwords sent from one address never lock the account's
/// owner out elsewhere.
const LOGIN_PER_ACCOUNT_AND_ADDRESS: (u32, u32) = (5, 5);
/// Login attempts from one address, whatever the accounts: 20 at once, then one every 3 s.
const LOGIN_PER_ADDRESS: (u32, u32) = (20, 20);
/// Sign-ups from one address: 10 at once (a club signing up on its first night), then one
/// every 6 minutes.
const SIGNUP_PER_ADDRESS: (u32, u32) = (10, 10);
/// Stateless engine calls per address: 120 at once, then 20 a second.
const ENGINE_PER_ADDRESS: (u32, u32) = (120, 1200);
/// Table codes tried from one address: 10 at once (a few typos at a busy table), then one a
/// minute.
const TABLE_CODE_PER_ADDRESS: (u32, u32) = (10, 1);

pub struct Limits {
    login_account: DefaultKeyedRateLimiter<(String, Option<IpAddr>)>,
    login_address: DefaultKeyedRateLimiter<IpAddr>,
    signup: DefaultKeyedRateLimiter<IpAddr>,
    engine: DefaultKeyedRateLimiter<IpAddr>,
    table_code: DefaultKeyedRateLimiter<IpAddr>,
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

fn refuse(what: &str, wait: std::time::Duration) -> Refused {
    let secs = wait.as_secs() + 1;
    Refused {
        detail: format!("too many {what}; try again in {secs} s"),
        retry_after_secs: secs,
    }
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            login_account: RateLimiter::keyed(quota(LOGIN_PER_ACCOUNT_AND_ADDRESS)),
            login_address: RateLimiter::keyed(quota(LOGIN_PER_ADDRESS)),
            signup: RateLimiter::keyed(hourly(SIGNUP_PER_ADDRESS)),
            engine: RateLimiter::keyed(quota(ENGINE_PER_ADDRESS)),
            table_code: RateLimiter::keyed(quota(TABLE_CODE_PER_ADDRESS)),
        }
    }
}

impl Limits {
    pub fn login(&self, email: &str, address: Option<IpAddr>) -> Result<(), Refused> {
        let now = DefaultClock::default().now();
        if let Some(ip) = address {
            self.login_address
                .check_key(&ip)
                .map_err(|n| refuse("login attempts from this address", n.wait_time_from(now)))?;
        }
        self.login_account
            .check_key(&(email.to_lowercase(), address))
            .map_err(|n| refuse("login attempts for this account", n.wait_time_from(now)))
    }

    pub fn signup(&self, address: Option<IpAddr>) -> Result<(), Refused> {
        let Some(ip) = address else { return Ok(()) };
        let now = DefaultClock::default().now();
        self.signup
            .check_key(&ip)
            .map_err(|n| refuse("sign-ups from this address", n.wait_time_from(now)))
    }

    pub fn table_code(&self, address: Option<IpAddr>) -> Result<(), Refused> {
        let Some(ip) = address else { return Ok(()) };
        let now = DefaultClock::default().now();
        self.table_code
            .check_key(&ip)
            .map_err(|n| refuse("table codes tried from this address", n.wait_time_from(now)))
    }

    pub fn engine(&self, address: Option<IpAddr>) -> Result<(), Refused> {
        let Some(ip) = address else { return Ok(()) };
        let now = DefaultClock::default().now();
        self.engine
            .check_key(&ip)
            .map_err(|n| refuse("requests from this address", n.wait_time_from(now)))
    }
}
