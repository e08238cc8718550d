//! Games as JSON for apps that keep a copy: a league's or a night's games page by page, and
//! with `since` (a league event id) only the games recorded, amended or voided after it. Same
//! access as the standings: anyone for a public league.
//!
//! A listing is read as of one league event (`last_event`, taken when its first page is read
//! and carried in its cursor): an app that has read every page and later asks `since` that
//! event gets every change made meanwhile. One league's events commit in the order of their
//! ids (under the league's row lock), so no change can slip in behind one already seen.

use std::collections::HashMap;

use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

use crate::domain::play::game_view::Game;
use crate::domain::{AppState, Caller, Error, Need, Result, paging};
use crate::storage::play::game_pages::{self, ListedScore};
use crate::storage::seasons::events;

/// A page of games.
#[derive(Serialize, ToSchema)]
pub struct GamePage {
    pub games: Vec<Game>,
    /// The cursor of the next page (as `cursor=`), or null on the last page.
    #[schema(required = true)]
    pub next: Option<String>,
    /// The league event this listing is read as of: ask `since=` this id later to get only
    /// the games changed after it.
    pub last_event: i64,
}

/// What a list asks for.
#[derive(Debug, Default, Deserialize)]
pub struct GameQuery {
    pub limit: Option<i64>,
    pub cursor: Option<String>,
    pub since: Option<i64>,
}

/// The league's games (`night`: one night's), as `query` asks; the caller was let in.
pub(crate) async fn list(
    state: &AppState,
    league: i64,
    night: Option<i64>,
    query: &GameQuery,
) -> Result<GamePage> {
    let limit = paging::limit(query.limit, 100)?;
    if let Some(since) = query.since
        && since < 0
    {
        return Err(Error::invalid(
            "since",
            format!("{since} is not an event id; give the `last_event` of an earlier listing"),
        ));
    }
    // The cursor says where the last page stopped and which event the listing is read as of.
    let kind = if query.since.is_some() {
        "game-changes"
    } else {
        "games"
    };
    // A cursor is bound to its list: this league's, or this night's.
    let scope = match night {
        Some(n) => format!("night {n}"),
        None => format!("league {league}"),
    };
    let (after, upto) = match &query.cursor {
        Some(c) => {
            let at = paging::decode(&state.keys, kind, &scope, c, 2)?;
            (at[0], at[1])
        }
        None => {
            let latest = events::latest(&state.db, league).await?;
            if let Some(since) = query.since
                && since > latest
            {
                return Err(Error::invalid(
                    "since",
                    format!(
                        "{since} is past this league's last event, {latest}; give the `last_event` of an earlier listing"
                    ),
                ));
            }
            (query.since.unwrap_or(0), latest)
        }
    };
    let mut rows = match query.since {
        Some(_) => {
            game_pages::changed_after(&state.db, league, night, after, upto, limit + 1).await?
        }
        None => game_pages::games_after(&state.db, league, night, after, limit + 1).await?,
    };
    let next = if rows.len() as i64 > limit {
        rows.truncate(limit as usize);
        rows.last().map(|g| {
            let at = if query.since.is_some() {
                g.event_id.unwrap_or(after)
            } else {
                g.id
            };
            paging::encode(&state.keys, kind, &scope, &[at, upto])
        })
    } else {
        None
    };
    let ids: Vec<i64> = rows.iter().map(|g| g.id).collect();
    let mut scores: HashMap<i64, Vec<ListedScore>> = HashMap::new();
    for s in game_pages::scores_of(&state.db, &ids).await? {
        scores.entry(s.game_id).or_default().push(s);
    }
    Ok(GamePage {
        games: rows
            .into_iter()
            .map(|g| {
                let players = scores.remove(&g.id).unwrap_or_default();
                Game::stored(g, players)
            })
            .collect(),
        next,
        last_event: upto,
    })
}

/// The league's games, for a caller who may read its standings.
pub async fn of_league(
    state: &AppState,
    caller: &Caller,
    league: i64,
    query: &GameQuery,
) -> Result<GamePage> {
    let (league, _) = caller.league(state, league, Need::Read).await?;
    list(state, league.id, None, query).await
}

/// A night's games, for a caller who may read its league's standings.
pub async fn of_night(
    state: &AppState,
    caller: &Caller,
    night: i64,
    query: &GameQuery,
) -> Result<GamePage> {
    let (night, league) =
        crate::domain::play::nights::night_for(state, caller, night, Need::Read).await?;
    list(state, league.id, Some(night.id), query).await
}
