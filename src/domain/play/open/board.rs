//! Open play's board of a match: its games with each one's state, what waits for whom, and the
//! club's players for the forms.

use super::*;

/// Games of the league waiting: (for their players, for an organizer).
pub async fn waiting(state: &AppState, league_id: i64) -> Result<(i64, i64)> {
    Ok(stored::waiting_counts(&state.db, league_id).await?)
}

/// A game of a match with the players' words on it.
pub struct MatchGame {
    pub game: crate::domain::play::game_view::Game,
    pub checks: Vec<CheckView>,
    /// The caller (at the table) has not said yet and may confirm or dispute it.
    pub yours_to_answer: bool,
    /// When it counts unconfirmed, on the club's clock in words.
    pub counts_at: Option<String>,
}

/// Everything a match's page shows.
pub struct MatchPage {
    pub view: MatchView,
    pub league: League,
    pub club: Club,
    pub games: Vec<MatchGame>,
    /// The caller is an organizer of the club (settles disputes).
    pub organizer: bool,
    /// The caller is a logged-in member who may join.
    pub member: bool,
}

/// A match with its games and the words on them, for its page.
pub async fn page(state: &AppState, caller: &Caller, id: i64) -> Result<MatchPage> {
    let (m, league, club) = match_for(state, caller, id).await?;
    let me = me_in(state, caller, &club).await?;
    let role = caller.role_in(state, &club).await?;
    page_for(state, &m, league, club, me, role).await
}

/// The page of match `m` as player `me` (if any) with `role` in the club sees it; access was
/// checked.
pub(super) async fn page_for(
    state: &AppState,
    m: &Match,
    league: League,
    club: Club,
    me: Option<i64>,
    role: Option<crate::domain::Role>,
) -> Result<MatchPage> {
    let view = MatchView::of(m, me);
    let mut games = Vec::new();
    if let Some(night) = m.night_id {
        let query = crate::domain::play::game_lists::GameQuery {
            limit: Some(100),
            cursor: None,
            since: None,
        };
        let listed =
            crate::domain::play::game_lists::list(state, league.id, Some(night), &query).await?;
        for game in listed.games {
            let said = if game.awaiting.is_some() {
                stored::checks(&state.db, game.id).await?
            } else {
                Vec::new()
            };
            let yours_to_answer = game.awaiting.as_deref() == Some("players")
                && game.status == "recorded"
                && me.is_some_and(|p| {
                    game.players.iter().any(|x| x.player.id == p)
                        && !said.iter().any(|c| c.player_id == p)
                });
            games.push(MatchGame {
                checks: said.into_iter().map(CheckView::from).collect(),
                counts_at: counts_at_words(&league, &club, &game),
                game,
                yours_to_answer,
            });
        }
    }
    Ok(MatchPage {
        view,
        league,
        club,
        games,
        organizer: role.is_some_and(|r| r >= crate::domain::Role::Organizer),
        member: role.is_some(),
    })
}

/// When a game waiting for its players counts by itself, on the club's clock in words.
pub(super) fn counts_at_words(league: &League, club: &Club, game: &Game) -> Option<String> {
    (game.awaiting.as_deref() == Some("players")).then(|| {
        crate::domain::clock::Clock::of(&club.time_zone)
            .at(game.updated_at + Duration::hours(league.confirm_hours as i64))
    })
}

/// The club's active players, for naming three in a match: (id, name).
pub async fn club_players(
    state: &AppState,
    caller: &Caller,
    club: &Club,
) -> Result<Vec<(i64, String)>> {
    let all: Vec<(i64, String)> = players::list(&state.db, club.id, false)
        .await?
        .into_iter()
        .map(|p| (p.id, p.name))
        .collect();
    // A member names only players who can accept (linked to a member); an organizer anyone.
    if caller
        .club_access(state, club.clone(), Need::Admin)
        .await
        .is_ok()
    {
        return Ok(all);
    }
    let ids: Vec<i64> = all.iter().map(|p| p.0).collect();
    let answerable = stored::answerable(&state.db, club.id, &ids).await?;
    Ok(all
        .into_iter()
        .filter(|p| answerable.contains(&p.0))
        .collect())
}
