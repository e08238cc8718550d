//! After the night: when a night closes, each player who played it and has an account gets their
//! night (games, points, place that night) and the league's standings by mail, unless they
//! stopped the league's mail with the one-tap link every such message carries (RFC 8058).

use std::collections::HashMap;

use crate::domain::{AppState, Error, Result, outbox::mail, seasons::standings};
use crate::storage::outbox::mail::{self as stored, NewMail};
use crate::storage::{play::games, play::nights, seasons::leagues};

/// The players a message lists from the top of the standings.
const STANDINGS_SHOWN: usize = 5;

/// The one-tap link that stops `league`'s mail for `user`: signed, so it needs no login.
pub fn unsubscribe_link(state: &AppState, user: i64, league: i64) -> String {
    format!(
        "{}/unsubscribe/{user}-{league}-{}",
        state.public_url,
        state.keys.sign(&signed_what(user, league))
    )
}

fn signed_what(user: i64, league: i64) -> String {
    format!("unsubscribe {user} {league}")
}

/// The user and league an unsubscribe token names, if its signature holds.
fn read_token(state: &AppState, token: &str) -> Option<(i64, i64)> {
    let mut parts = token.splitn(3, '-');
    let user: i64 = parts.next()?.parse().ok()?;
    let league: i64 = parts.next()?.parse().ok()?;
    let given = parts.next()?;
    state
        .keys
        .signed(&signed_what(user, league), given)
        .then_some((user, league))
}

fn bad_link() -> Error {
    Error::NotFound("this link to stop a league's mail is not one the service wrote".into())
}

/// The league's name, for the page that asks before stopping its mail.
pub async fn unsubscribe_page(state: &AppState, token: &str) -> Result<String> {
    let (_, league) = read_token(state, token).ok_or_else(bad_link)?;
    leagues::name_of(&state.db, league)
        .await?
        .ok_or_else(bad_link)
}

/// Stops the league's mail for the token's user, at once: the league's name.
pub async fn unsubscribe(state: &AppState, token: &str) -> Result<String> {
    let (user, league) = read_token(state, token).ok_or_else(bad_link)?;
    let name = leagues::name_of(&state.db, league)
        .await?
        .ok_or_else(bad_link)?;
    stored::unsubscribe(&state.db, user, league).await?;
    Ok(name)
}

use crate::domain::ordinal;

fn points(n: i64) -> String {
    format!("{n} {}", if n.abs() == 1 { "point" } else { "points" })
}

/// Each player's games and points on the night (voided games aside): player → (points,
/// games). A player has one score row per game.
async fn points_that_night(state: &AppState, night_id: i64) -> Result<HashMap<i64, (i64, usize)>> {
    let mut night_points: HashMap<i64, (i64, usize)> = HashMap::new();
    for s in games::night_scores(&state.db, night_id).await? {
        if s.status != "voided" {
            let entry = night_points.entry(s.player_id).or_insert((0, 0));
            entry.0 += s.score;
            entry.1 += 1;
        }
    }
    Ok(night_points)
}

/// Writes the mail of the next closed night waiting for it: whether there was one.
pub async fn write_next(state: &AppState) -> Result<bool> {
    let mut tx = state.db.begin().await?;
    let Some((night_id, league_id)) = stored::take_night_mail(&mut tx).await? else {
        return Ok(false);
    };
    let readers = stored::night_readers(&mut tx, night_id, league_id).await?;
    if readers.is_empty() {
        tx.commit().await?;
        return Ok(true);
    }
    let (Some(night), Some((league, club))) = (
        nights::get(&state.db, night_id).await?,
        leagues::with_club(&state.db, league_id).await?,
    ) else {
        tx.commit().await?;
        return Ok(true);
    };
    let night_points = points_that_night(state, night_id).await?;
    let place_of = |player: i64| -> (usize, bool) {
        let mine = night_points.get(&player).map_or(0, |p| p.0);
        let above = night_points.values().filter(|p| p.0 > mine).count();
        let level = night_points.values().filter(|p| p.0 == mine).count();
        (above + 1, level > 1)
    };
    let table = standings::rows(state, &league).await?;
    let top: Vec<String> = table
        .iter()
        .take(STANDINGS_SHOWN)
        .map(|s| {
            let rank = s.rank.map_or("–".to_string(), |r| r.to_string());
            format!(
                "{rank}. {}: {}",
                s.player,
                points(s.counted_points.unwrap_or(s.points))
            )
        })
        .collect();
    let league_link = format!("{}/leagues/{}", state.public_url, league.id);
    let lines = crate::domain::seasons::season::night_lines(state, &league, night_id).await?;
    for r in &readers {
        let (pts, games) = night_points.get(&r.player_id).copied().unwrap_or((0, 0));
        let (place, shared) = place_of(r.player_id);
        let standing = table.iter().find(|s| s.player_id == r.player_id);
        let mut paragraphs = vec![format!(
            "Night {} ({}) of {} is closed. You played {} {} and scored {}: {}{} of {} that night.",
            night.number,
            crate::domain::clock::Clock::of(&club.time_zone).day(night.night_date),
            league.name,
            games,
            if games == 1 { "game" } else { "games" },
            points(pts),
            ordinal(place),
            if shared { " (shared)" } else { "" },
            night_points.len(),
        )];
        if let Some(line) = lines.get(&r.player_id) {
            paragraphs.push(format!("Your night: {line}."));
        }
        if let Some(s) = standing {
            paragraphs.push(match s.rank {
                Some(rank) => format!(
                    "In the standings you are {}{} with {}.",
                    ordinal(rank as usize),
                    if s.shared { " (shared)" } else { "" },
                    points(s.counted_points.unwrap_or(s.points))
                ),
                None => format!(
                    "You are not ranked yet: the board counts players from {}.",
                    crate::domain::count(league.min_games, "game")
                ),
            });
        }
        paragraphs.push(format!("The top of the standings:\n{}", top.join("\n")));
        let unsubscribe = unsubscribe_link(state, r.user_id, league.id);
        let after = [format!(
            "You get this because you played at {} and have an account. To stop these messages for {}: {}",
            club.name, league.name, unsubscribe
        )];
        let greeting = format!("Hello {},", r.display_name);
        let season_link = format!(
            "{}/leagues/{}/players/{}",
            state.public_url, league.id, r.player_id
        );
        let (text_body, html_body) = mail::Letter {
            greeting: &greeting,
            paragraphs: &paragraphs,
            actions: &[
                ("See your season", &season_link),
                ("See the standings", &league_link),
            ],
            after: &after,
        }
        .render(&state.public_url);
        mail::enqueue(
            &mut tx,
            &NewMail {
                kind: "night_results",
                club_id: Some(club.id),
                to_address: r.email.clone(),
                to_name: Some(r.display_name.clone()),
                subject: format!("{}: night {} results", league.name, night.number),
                text_body,
                html_body,
                unsubscribe: Some(unsubscribe),
                caused_by: None,
            },
        )
        .await?;
    }
    tx.commit().await?;
    Ok(true)
}

#[cfg(test)]
mod tests {
    use super::ordinal;

    #[test]
    fn places_read_as_ordinals() {
        let got: Vec<String> = [1, 2, 3, 4, 11, 12, 13, 21, 22, 23, 101, 111]
            .into_iter()
            .map(ordinal)
            .collect();
        assert_eq!(
            got,
            [
                "1st", "2nd", "3rd", "4th", "11th", "12th", "13th", "21st", "22nd", "23rd",
                "101st", "111th"
            ]
        );
    }
}
