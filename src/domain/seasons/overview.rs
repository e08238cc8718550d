//! A league as its page shows it: the standings, the points per night (per week in open play)
//! of the leaders for the chart, the nights.

use super::standings::*;
use crate::domain::{AppState, Caller, Need, Result, Role};
use crate::storage::people::clubs::Club;
use crate::storage::play::nights::{self, Night};
use crate::storage::seasons::leagues::League;
use crate::storage::seasons::totals;

/// A league as its page shows it to this caller.
pub struct Overview {
    pub league: League,
    pub club: Club,
    pub organizer: bool,
    /// In rank order.
    pub rows: Vec<Standing>,
    /// The ratings are being replayed after a correction.
    pub ratings_updating: bool,
    /// The nights that have counted games, in order (in open play: the weeks, numbered from 1).
    pub night_numbers: Vec<i32>,
    /// What each of `night_numbers` is called on the chart: the night's number, or in open
    /// play the week ("Nov 23–29").
    pub periods: Vec<String>,
    /// Open play's chart goes week by week (its "nights" are matches).
    pub by_week: bool,
    /// The first `charted` players of the standings: id, name and points on each of those nights.
    pub series: Vec<(i64, String, Vec<i64>)>,
    pub nights: Vec<Night>,
    /// Open play: games waiting for their players, and for an organizer.
    pub waiting: (i64, i64),
    /// Open play: the season average beside the board.
    pub season_average: Option<Vec<AverageRow>>,
}

/// Points per night regrouped by the week of each night's date (Monday to Sunday): the weeks
/// numbered from 1, each player's points per week, and each week in words.
#[allow(clippy::type_complexity)]
fn by_weeks(
    night_numbers: &[i32],
    series: Vec<(i64, String, Vec<i64>)>,
    nights: &[Night],
) -> (Vec<i32>, Vec<(i64, String, Vec<i64>)>, Vec<String>) {
    let monday_of = |n: i32| {
        nights
            .iter()
            .find(|x| x.number == n)
            .map(|x| week_of(x.night_date))
    };
    let mut weeks: Vec<chrono::NaiveDate> =
        night_numbers.iter().filter_map(|n| monday_of(*n)).collect();
    weeks.sort_unstable();
    weeks.dedup();
    let series = series
        .into_iter()
        .map(|(id, name, per_night)| {
            let mut per_week = vec![0i64; weeks.len()];
            for (n, p) in night_numbers.iter().zip(per_night) {
                if let Some(w) = monday_of(*n).and_then(|m| weeks.iter().position(|x| *x == m)) {
                    per_week[w] = per_week[w].saturating_add(p);
                }
            }
            (id, name, per_week)
        })
        .collect();
    let numbers = (1..=weeks.len() as i32).collect();
    let labels = weeks
        .iter()
        .map(|m| crate::standings::week_words(*m))
        .collect();
    (numbers, series, labels)
}

/// The league's page: standings, the points per night of the top `charted` players, nights.
pub async fn overview(
    state: &AppState,
    caller: &Caller,
    id: i64,
    charted: usize,
) -> Result<Overview> {
    let (league, club) = caller.league(state, id, Need::Read).await?;
    let organizer = caller
        .role_in(state, &club)
        .await?
        .is_some_and(|r| r >= Role::Organizer);
    let Computed {
        standings: rows,
        ratings_updating,
        waiting,
        season_average,
        ..
    } = compute(state, &league).await?;
    let leaders: Vec<(i64, String)> = rows
        .iter()
        .take(charted)
        .map(|s| (s.player_id, s.player.clone()))
        .collect();
    let ids: Vec<i64> = leaders.iter().map(|(id, _)| *id).collect();
    let per_night = totals::points_by_night(&state.db, league.id, &ids).await?;
    let mut night_numbers: Vec<i32> = per_night.iter().map(|r| r.0).collect();
    night_numbers.sort_unstable();
    night_numbers.dedup();
    let series = leaders
        .iter()
        .map(|(id, name)| {
            let points = night_numbers
                .iter()
                .map(|n| {
                    per_night
                        .iter()
                        .find(|r| r.0 == *n && r.1 == *id)
                        .map(|r| r.2)
                        .unwrap_or(0)
                })
                .collect();
            (*id, name.clone(), points)
        })
        .collect();
    let nights = nights::list(&state.db, league.id).await?;
    let by_week = league.is_open_play();
    let (night_numbers, series, periods) = if by_week {
        by_weeks(&night_numbers, series, &nights)
    } else {
        let periods = night_numbers.iter().map(i32::to_string).collect();
        (night_numbers, series, periods)
    };
    Ok(Overview {
        league,
        club,
        organizer,
        rows,
        ratings_updating,
        night_numbers,
        periods,
        by_week,
        series,
        nights,
        waiting,
        season_average,
    })
}
