//! One roster: everyone who joins a club is on its player list, linked to their account. A
//! member joins as the player an organizer invited from that player's row, or says which of the
//! club's unlinked players they are (the organizers are mailed a link that confirms it in one
//! tap), or gets a player made under their name. Staff who do not play may join without one.
//! The same step gives a player to anyone a night's check-in or open play finds without one.

use serde::Serialize;
use sqlx::PgConnection;
use utoipa::ToSchema;

use crate::domain::{AppState, Error, Result, outbox::mail, people::budgets};
use crate::storage::people::clubs::{self, Club};
use crate::storage::people::players;
use crate::storage::people::users::User;

/// Which player a member joining the club is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Choice {
    /// The player an organizer invited them as.
    Invited(i64),
    /// A player of the club they say they are (an organizer confirms).
    Says(i64),
    /// A new player under their name.
    New,
    /// No player: staff who do not play.
    NoPlayer,
}

/// Where a member stands on the roster after `place`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Placed {
    /// The member was that player already.
    Theirs { id: i64, name: String },
    /// Linked now: the player they were invited as.
    Linked { id: i64, name: String },
    /// A player made now under their name, linked to them.
    Made { id: i64, name: String },
    /// They say they are this player; the club's organizers confirm (`mailed`: a mail asks
    /// them now).
    Claimed { id: i64, name: String, mailed: bool },
    /// The player they chose is linked to someone else, or claimed by someone else.
    Refused { name: String },
    /// No player (staff who do not play).
    None,
}

impl Placed {
    /// The player to check in for the member, if they have one (a claimed player too: the
    /// organizer started check-in, and the claim is confirmed on the members page).
    pub fn player(&self) -> Option<(i64, &str)> {
        match self {
            Placed::Theirs { id, name }
            | Placed::Linked { id, name }
            | Placed::Made { id, name }
            | Placed::Claimed { id, name, .. } => Some((*id, name)),
            Placed::Refused { .. } | Placed::None => None,
        }
    }

    /// What happened, in words for the member.
    pub fn words(&self, club: &str) -> String {
        match self {
            Placed::Theirs { name, .. } => format!("You are {name} on {club}'s player list."),
            Placed::Linked { name, .. } => format!(
                "You are {name} on {club}'s player list: {name}'s games and standings are yours."
            ),
            Placed::Made { name, .. } => format!(
                "You are on {club}'s player list as {name}; an organizer can change how your name shows."
            ),
            Placed::Claimed { name, .. } => format!(
                "An organizer of {club} confirms that you are {name}; until then {name}'s games are not linked to you."
            ),
            Placed::Refused { name } => format!(
                "You were not linked to {name}: someone else is {name}, or says they are. An organizer can sort it out."
            ),
            Placed::None => {
                format!("You are not on {club}'s player list (you said you do not play).")
            }
        }
    }
}

/// Puts `user`, a member of `club`, on its player list as `choice` says, in `tx`. A member who
/// has a player (or says they are one) keeps it.
pub async fn place(
    state: &AppState,
    tx: &mut PgConnection,
    club: &Club,
    user: &User,
    choice: Choice,
) -> Result<Placed> {
    // One member at a time: two requests of the same member make one player.
    players::lock_member(tx, club.id, user.id).await?;
    if let Some((id, name, linked)) = players::of_member(tx, club.id, user.id).await? {
        return Ok(if linked {
            Placed::Theirs { id, name }
        } else {
            Placed::Claimed {
                id,
                name,
                mailed: false,
            }
        });
    }
    match choice {
        Choice::NoPlayer => Ok(Placed::None),
        Choice::New => new_player(state, tx, club, user).await,
        Choice::Invited(id) => {
            if players::link_in(tx, id, user.id).await? {
                let name = players::name_in(tx, club.id, id).await?.unwrap_or_default();
                Ok(Placed::Linked { id, name })
            } else {
                new_player(state, tx, club, user).await
            }
        }
        Choice::Says(id) => {
            let Some(name) = players::name_in(tx, club.id, id).await? else {
                return Err(Error::invalid(
                    "player",
                    format!("{} has no player {id}", club.name),
                ));
            };
            if players::claim_in(tx, club.id, id, user.id).await? {
                let mailed = mail_claims(state, tx, club).await?;
                Ok(Placed::Claimed { id, name, mailed })
            } else {
                Ok(Placed::Refused { name })
            }
        }
    }
}

/// A player made under the member's name and linked to them. When an unlinked player of the
/// club has that name already, the member is taken to say they are that player (an organizer
/// confirms); when a linked one has it, the new player's name gets a number ("Mia Chen 2").
async fn new_player(
    state: &AppState,
    tx: &mut PgConnection,
    club: &Club,
    user: &User,
) -> Result<Placed> {
    let typed: String = user.display_name.trim().chars().take(100).collect();
    let base = crate::domain::people::names::clean_name(&typed)
        .unwrap_or_else(|_| format!("Member {}", user.id));
    for n in 1..=50 {
        let name = if n == 1 {
            base.clone()
        } else {
            let short: String = base.chars().take(95).collect();
            format!("{} {n}", short.trim_end())
        };
        match players::create_in(tx, club.id, &name).await? {
            Ok(p) => {
                if !players::link_in(tx, p.id, user.id).await? {
                    return Err(Error::Conflict(format!(
                        "{} is on {}'s player list already",
                        user.display_name, club.name
                    )));
                }
                return Ok(Placed::Made {
                    id: p.id,
                    name: p.name,
                });
            }
            Err(existing) if n == 1 => {
                if players::claim_in(tx, club.id, existing.id, user.id).await? {
                    let mailed = mail_claims(state, tx, club).await?;
                    return Ok(Placed::Claimed {
                        id: existing.id,
                        name: existing.name,
                        mailed,
                    });
                }
            }
            Err(_) => {}
        }
    }
    Err(Error::Conflict(format!(
        "{} has too many players named {base}: an organizer adds this member's player by hand",
        club.name
    )))
}

/// What signs a claim's link: the player and the member.
fn claim_words(player: i64, user: i64) -> String {
    format!("claim:{player}:{user}")
}

/// The link that opens a claim for its organizers (no login: the link is the right).
pub fn claim_link(state: &AppState, player: i64, user: i64) -> String {
    format!(
        "{}/claims/{player}/{user}/{}",
        state.public_url,
        state.keys.sign(&claim_words(player, user))
    )
}

/// Tells the club's owners and organizers of the claims waiting for them, in one mail each at
/// most once a day (so a member cannot flood them with claims): whether a mail went now. Claims
/// made since the last mail wait on the members page, and the mail worker sends them a day after
/// it (`write_claims_due`); past the club's mail budget they wait too.
pub async fn mail_claims(state: &AppState, tx: &mut PgConnection, club: &Club) -> Result<bool> {
    let to = clubs::organizers(tx, club.id).await?;
    if to.is_empty() {
        return Ok(false);
    }
    match budgets::spend_club_mail(state, tx, club.id, &club.name, to.len() as i64).await {
        Ok(()) => {}
        Err(Error::TooManyRequests { .. }) => return Ok(false),
        Err(e) => return Err(e),
    }
    let claims = players::take_unmailed_claims(tx, club.id).await?;
    if claims.is_empty() {
        return Ok(false);
    }
    let mut paragraphs = Vec::new();
    let mut links = Vec::new();
    for (player, name, user, who, email) in &claims {
        paragraphs.push(format!(
            "{who} ({email}), a member of {}, says they are {name} on the club's player list.",
            club.name
        ));
        links.push((
            format!("Answer: is {who} {name}?"),
            claim_link(state, *player, *user),
        ));
    }
    paragraphs.push(
        "Once you confirm, the player's games and standings are the member's, their replies to nights ahead check the player in, and they get the player's mail after each night. Each link shows what you need to decide: games played, any invitation sent for the player, and when the member's account was made.".to_string(),
    );
    let after = [
        "Any organizer can answer; the first answer settles it. Claims made after this mail wait on the club's members page and come in one mail a day.".to_string(),
    ];
    let actions: Vec<(&str, &str)> = links
        .iter()
        .map(|(l, u)| (l.as_str(), u.as_str()))
        .collect();
    let subject = match claims.as_slice() {
        [(_, name, _, who, _)] => format!("{who} says they are {name} in {}", club.name),
        _ => format!(
            "{} members say which player they are in {}",
            claims.len(),
            club.name
        ),
    };
    for (_, email, organizer) in &to {
        let greeting = format!("Hello {organizer},");
        let envelope = mail::Envelope {
            kind: "claim",
            to: (email, organizer),
            club_id: Some(club.id),
            caused_by: None,
            unsubscribe: None,
        };
        let letter = mail::Letter {
            greeting: &greeting,
            paragraphs: &paragraphs,
            actions: &actions,
            after: &after,
        };
        mail::write(state, tx, envelope, &subject, letter).await?;
    }
    Ok(true)
}

/// Mails one club's claims whose daily mail is due: whether there was one (a writer of the mail
/// worker).
pub async fn write_claims_due(state: &AppState) -> Result<bool> {
    let mut tx = state.db.begin().await?;
    let Some(club_id) = players::club_with_claims_due(&mut tx).await? else {
        return Ok(false);
    };
    let Some(club) = clubs::by_id(&state.db, club_id).await? else {
        return Ok(false);
    };
    mail_claims(state, &mut tx, &club).await?;
    tx.commit().await?;
    Ok(true)
}

/// A claim as its signed link shows it.
#[derive(Serialize, ToSchema)]
pub struct ClaimView {
    pub club: String,
    pub club_name: String,
    pub player_id: i64,
    pub player: String,
    pub member: String,
    pub member_email: String,
    /// When the member's account was made, on the club's clock.
    pub member_since: String,
    /// Games the player has played.
    pub games: i64,
    /// The address of an open invitation sent for the player, if any.
    pub invited: Option<String>,
    /// `open` while nobody has answered; `confirmed` or `settled` after.
    pub state: String,
}

fn claim_gone() -> Error {
    Error::NotFound(
        "the member this claim was about is no longer a member of the club (or this link is not one the service sent): nothing was linked".into(),
    )
}

/// The claim a signed link is about, as it stands.
pub async fn claim_view(
    state: &AppState,
    player: i64,
    user: i64,
    signature: &str,
) -> Result<ClaimView> {
    if signature.len() > 200 || !state.keys.signed(&claim_words(player, user), signature) {
        return Err(claim_gone());
    }
    let players::ClaimRow {
        club_id: _,
        club,
        club_name,
        name,
        linked,
        claimed,
        member,
        member_email,
        member_since,
        club_time_zone,
        games,
        invited,
    } = players::claim_row(&state.db, player, user)
        .await?
        .ok_or_else(claim_gone)?;
    let state_word = if linked == Some(user) {
        "confirmed"
    } else if claimed == Some(user) {
        "open"
    } else {
        "settled"
    };
    let invited = invited.filter(|a| !a.eq_ignore_ascii_case(&member_email));
    Ok(ClaimView {
        club,
        club_name,
        player_id: player,
        player: name,
        member,
        member_email,
        member_since: crate::domain::clock::Clock::of(&club_time_zone).at(member_since),
        games,
        invited,
        state: state_word.into(),
    })
}

/// Confirms or refuses a claim through its signed link; the outcome in words. A claim answered
/// already (by another organizer, or on the members page) is said so, with its answer.
pub async fn settle_signed(
    state: &AppState,
    player: i64,
    user: i64,
    signature: &str,
    confirm: bool,
) -> Result<String> {
    let v = claim_view(state, player, user, signature).await?;
    match v.state.as_str() {
        "confirmed" => {
            return Ok(format!(
                "{} is {} already: confirmed earlier.",
                v.member, v.player
            ));
        }
        "settled" => {
            return Err(Error::Conflict(format!(
                "{}'s word that they are {} was answered already (refused, or someone else is {} now)",
                v.member, v.player, v.player
            )));
        }
        _ => {}
    }
    let club_id = players::club_of(&state.db, player)
        .await?
        .ok_or_else(claim_gone)?;
    if !players::settle_claim(&state.db, club_id, player, confirm).await? {
        return Err(Error::Conflict(format!(
            "{} could not be linked to {}: they are linked to another player of the club now",
            v.member, v.player
        )));
    }
    Ok(if confirm {
        format!(
            "Confirmed: {} is {}, and sees {}'s games as theirs.",
            v.member, v.player, v.player
        )
    } else {
        format!("Refused: {} is not linked to {}.", v.member, v.player)
    })
}
