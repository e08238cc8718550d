//! Rate limits (governor, in memory per process: a limit is protection, not data, so several
//! processes each enforcing it is acceptable).

use std::net::IpAddr;
use std::num::NonZeroU32;

use governor::clock::{Clock, DefaultClock};
use governor::{DefaultKeyedRateLimiter, Quota, RateLimiter};

/// Login attempts per account: 5 at once, then one every 12 s.
const LOGIN_PER_ACCOUNT: (u32, u32) = (5, 5);
/// Login attempts per address: 20 at once, then one every 3 s.
const LOGIN_PER_ADDRESS: (u32, u32) = (20, 20);
/// Stateless engine calls per address: 120 at once, then 20 a second.
const ENGINE_PER_ADDRESS: (u32, u32) = (120, 1200);

pub struct Limits {
    login_account: DefaultKeyedRateLimiter<String>,
    login_address: DefaultKeyedRateLimiter<IpAddr>,
    engine: DefaultKeyedRateLimiter<IpAddr>,
}

fn quota((burst, per_minute): (u32, u32)) -> Quota {
    let nz = |n: u32| NonZeroU32::new(n).unwrap_or(NonZeroU32::MIN);
    Quota::per_minute(nz(per_minute)).allow_burst(nz(burst))
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
            login_account: RateLimiter::keyed(quota(LOGIN_PER_ACCOUNT)),
            login_address: RateLimiter::keyed(quota(LOGIN_PER_ADDRESS)),
            engine: RateLimiter::keyed(quota(ENGINE_PER_ADDRESS)),
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
            .check_key(&email.to_lowercase())
            .map_err(|n| refuse("login attempts for this account", n.wait_time_from(now)))
    }

    pub fn engine(&self, address: Option<IpAddr>) -> Result<(), Refused> {
        let Some(ip) = address else { return Ok(()) };
        let now = DefaultClock::default().now();
        self.engine
            .check_key(&ip)
            .map_err(|n| refuse("requests from this address", n.wait_time_from(now)))
    }
}
