//! Invitations: an organizer adds a member by any email, and every such add is an invitation,
//! answered alike whether or not the address has an account. The mailed link (14 days) lets an
//! account join with one tap, or an address without one sign up and join; on joining, the new
//! member may say which of the club's players they are (an organizer confirms, as for any claim).

use std::net::IpAddr;

use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

use crate::auth::{new_secret, password};
use crate::domain::people::accounts::{self, Session, SignUp};
use crate::domain::people::roster::{self, Choice};
use crate::domain::{AppState, Caller, Error, Result, Role, outbox::mail, people::budgets};
use crate::storage::people::clubs::Club;
use crate::storage::people::invitations as stored;
pub use crate::storage::people::invitations::Invitation;
use crate::storage::{people::players, people::users};

/// How long an invitation's link works.
pub const INVITATION_DAYS: i64 = 14;

/// The answer to an invitation: what was sent, in words and as the listed invitation.
#[derive(Serialize, ToSchema)]
pub struct Invited {
    #[schema(
        example = "An invitation to join as member is on its way to rose@example.org. Its link works for 14 days."
    )]
    pub message: String,
    /// Whether a mail went out now: `false` when the address already had an invitation whose
    /// link works (nothing is sent again unless an organizer asks: *Send again*).
    pub sent: bool,
    pub invitation: Invitation,
}

/// How long *Send again* waits between two sends of one invitation.
pub const SEND_AGAIN_HOURS: i64 = 24;

/// Writes the invitation of `email` to `club` as `role` and its mail, in one transaction. An
/// address with an invitation whose link works gets nothing new (its role is updated): an
/// organizer sends it again on purpose. The club's mail budget and the inviter's outside
/// addresses are counted first; past either, nothing is written. The caller checked who may
/// invite with which role.
pub async fn invite(
    state: &AppState,
    club: &Club,
    inviter: &users::User,
    email: &str,
    role: Role,
    player: Option<(i64, &str)>,
) -> Result<Invited> {
    let mut tx = state.db.begin().await?;
    crate::storage::people::budgets::lock_club(&mut tx, club.id).await?;
    if let Some((id, was)) = stored::pending(&mut tx, club.id, email).await? {
        if was != role.as_str() {
            stored::set_role(&mut tx, id, role.as_str()).await?;
        }
        if let Some((player, _)) = player {
            stored::set_player(&mut tx, id, player).await?;
        }
        tx.commit().await?;
        let invitation = listed(state, club.id, id).await?;
        return Ok(Invited {
            message: format!(
                "{} has an invitation waiting already, sent {}: nothing was sent again. If it was lost, tap Send again beside it (once a day).",
                invitation.email,
                crate::domain::clock::Clock::of(&club.time_zone).at(invitation.sent_at)
            ),
            sent: false,
            invitation,
        });
    }
    budgets::spend_club_mail(state, &mut tx, club.id, &club.name, 1).await?;
    budgets::spend_outside(state, &mut tx, inviter, email, "invitation").await?;
    spend_address(state, &mut tx, club, inviter, email).await?;
    let token = new_secret("");
    let expires = chrono::Utc::now() + chrono::Duration::days(INVITATION_DAYS);
    let id = stored::invite(
        &mut tx,
        &stored::NewInvitation {
            club_id: club.id,
            email,
            role: role.as_str(),
            player_id: player.map(|p| p.0),
            token_hash: &state.keys.hash(&token),
            invited_by: inviter.id,
            expires_at: expires,
        },
    )
    .await?;
    let sent = Sent {
        club,
        inviter,
        email,
        role,
        player: player.map(|p| p.1),
    };
    mail_invitation(state, &mut tx, &sent, &token, expires).await?;
    tx.commit().await?;
    mail::wake(state);
    let invitation = listed(state, club.id, id).await?;
    let whom = match player {
        Some((_, name)) => format!("An invitation for {name} to join as {}", role.as_str()),
        None => format!("An invitation to join as {}", role.as_str()),
    };
    Ok(Invited {
        message: format!(
            "{whom} is on its way to {email}. Its link works for {INVITATION_DAYS} days."
        ),
        sent: true,
        invitation,
    })
}

/// Sends an open invitation again, with a new link (the old one stops working): at most once in
/// `SEND_AGAIN_HOURS`, within the club's and the sender's mail budgets.
pub async fn send_again(
    state: &AppState,
    club: &Club,
    sender: &users::User,
    id: i64,
) -> Result<Invited> {
    let mut tx = state.db.begin().await?;
    crate::storage::people::budgets::lock_club(&mut tx, club.id).await?;
    let (email, role, sent_at, player) = stored::to_send_again(&mut tx, club.id, id)
        .await?
        .ok_or_else(|| {
            Error::NotFound(format!(
                "invitation {id} is not open in this club (accepted, withdrawn, or never sent)"
            ))
        })?;
    let next = sent_at + chrono::Duration::hours(SEND_AGAIN_HOURS);
    let now = chrono::Utc::now();
    if next > now {
        return Err(Error::TooManyRequests {
            detail: format!(
                "the invitation to {email} was sent {}; it can be sent again once a day, from {}",
                crate::domain::clock::Clock::of(&club.time_zone).at(sent_at),
                crate::domain::clock::Clock::of(&club.time_zone).at(next)
            ),
            retry_after_secs: (next - now).num_seconds().max(0) as u64 + 1,
        });
    }
    let role = Role::parse(&role).unwrap_or(Role::Member);
    budgets::spend_club_mail(state, &mut tx, club.id, &club.name, 1).await?;
    budgets::spend_outside(state, &mut tx, sender, &email, "invitation").await?;
    spend_address(state, &mut tx, club, sender, &email).await?;
    let token = new_secret("");
    let expires = now + chrono::Duration::days(INVITATION_DAYS);
    stored::sent_again(&mut tx, id, &state.keys.hash(&token), sender.id, expires).await?;
    let sent = Sent {
        club,
        inviter: sender,
        email: &email,
        role,
        player: player.as_deref(),
    };
    mail_invitation(state, &mut tx, &sent, &token, expires).await?;
    tx.commit().await?;
    mail::wake(state);
    Ok(Invited {
        message: format!(
            "The invitation is on its way to {email} again, with a new link (the earlier one no longer works). It works for {INVITATION_DAYS} days."
        ),
        sent: true,
        invitation: listed(state, club.id, id).await?,
    })
}

/// Counts the invitation where it lands: one a day from a club to an address (withdrawn ones
/// too), and, for an address without an account, the day's cap of others' asking; an address
/// that asked never to be mailed so is refused in words.
async fn spend_address(
    state: &AppState,
    tx: &mut sqlx::PgConnection,
    club: &Club,
    inviter: &users::User,
    email: &str,
) -> Result<()> {
    let capped = users::by_email_in(&mut *tx, email).await?.is_none();
    let asked = budgets::Asked {
        kind: "invitation",
        address: email,
        club: Some((club.id, &club.name)),
        asked_by: inviter.id,
        capped,
    };
    match budgets::spend_address(state, tx, &asked).await? {
        budgets::Landing::Send => Ok(()),
        budgets::Landing::OptedOut => Err(Error::invalid(
            "email",
            format!(
                "{} asked the service never to mail it at anyone's asking, so nothing was sent; whoever uses it can sign up at {}/signup and be invited then",
                email.trim(),
                state.public_url
            ),
        )),
    }
}

async fn listed(state: &AppState, club_id: i64, id: i64) -> Result<Invitation> {
    stored::get(&state.db, club_id, id)
        .await?
        .ok_or_else(|| Error::Internal(anyhow::anyhow!("invitation {id} vanished")))
}

/// What an invitation's mail says: who invites whom to which club, as what (and as which
/// player, when sent from a player's row).
struct Sent<'a> {
    club: &'a Club,
    inviter: &'a users::User,
    email: &'a str,
    role: Role,
    player: Option<&'a str>,
}

/// The invitation's mail, in `tx`.
async fn mail_invitation(
    state: &AppState,
    tx: &mut sqlx::PgConnection,
    sent: &Sent<'_>,
    token: &str,
    expires: chrono::DateTime<chrono::Utc>,
) -> Result<()> {
    let (club, inviter) = (sent.club, sent.inviter);
    let link = format!("{}/invitations/{token}", state.public_url);
    let never = budgets::never_link(state, sent.email);
    let greeting = "Hello,".to_string();
    let mut paragraphs = vec![format!(
        "{} invites you to join {} on the mah jongg league service, as {}.",
        inviter.display_name,
        club.name,
        role_words(sent.role)
    )];
    if let Some(player) = sent.player {
        paragraphs.push(format!(
            "You join as {player} on the club's player list: {player}'s games and standings become yours."
        ));
    }
    paragraphs.push("If you have an account, log in and join with one tap. If not, the page lets you choose your name and a password, and you join at once.".to_string());
    let after = [
        format!(
            "The link works for {INVITATION_DAYS} days, until {}.",
            expires.format("%B %-d, %Y")
        ),
        format!(
            "If you do not know {} or {}, ignore this message: nothing happens unless the link is followed.",
            inviter.display_name, club.name
        ),
        format!("To be mailed never again at anyone's asking (by any club), open: {never}"),
    ];
    let letter = mail::Letter {
        greeting: &greeting,
        paragraphs: &paragraphs,
        actions: &[(&format!("Join {}", club.name), &link)],
        after: &after,
    };
    let (text_body, html_body) = letter.render(&state.public_url);
    mail::enqueue(
        tx,
        &crate::storage::outbox::mail::NewMail {
            kind: "invitation",
            club_id: Some(club.id),
            to_address: sent.email.to_string(),
            to_name: None,
            subject: format!("{} invites you to {}", inviter.display_name, club.name),
            text_body,
            html_body,
            unsubscribe: Some(never),
            caused_by: None,
        },
    )
    .await?;
    Ok(())
}

/// A role as the invitation says it.
fn role_words(role: Role) -> &'static str {
    match role {
        Role::Owner => "an owner (who runs everything, including who else is an owner)",
        Role::Organizer => "an organizer (who runs nights, players, leagues and cards)",
        Role::Scorer => "a scorer (who records games)",
        Role::Member => "a member (who sees the club's leagues)",
    }
}

/// A club's player a new member may say they are.
#[derive(Serialize, ToSchema)]
pub struct PlayerChoice {
    pub id: i64,
    #[schema(example = "Rose")]
    pub name: String,
}

/// What a working invitation link shows.
#[derive(Serialize, ToSchema)]
pub struct InvitationView {
    #[schema(example = "friday")]
    pub club: String,
    #[schema(example = "Friday Mah Jongg")]
    pub club_name: String,
    /// The address it was sent to.
    pub email: String,
    #[schema(schema_with = crate::domain::schemas::role)]
    pub role: String,
    #[schema(required = true)]
    pub invited_by: Option<String>,
    pub expires_at: chrono::DateTime<chrono::Utc>,
    /// The player the invitation was sent for (from the player's row): the new member joins as
    /// this player. Absent when sent to an address alone.
    #[schema(required = true)]
    pub player: Option<PlayerChoice>,
    /// The club's players nobody is linked to or claims yet: whom the new member may say they are
    /// (empty when the invitation names its player).
    pub players: Vec<PlayerChoice>,
}

fn gone() -> Error {
    Error::NotFound(format!(
        "this invitation was used already, was withdrawn, or is more than {INVITATION_DAYS} days old: ask the club's organizer for a new one"
    ))
}

/// The invitation a link opens, while it works.
pub async fn show(state: &AppState, token: &str) -> Result<InvitationView> {
    if token.len() > 200 {
        return Err(gone());
    }
    let o = stored::opened(&state.db, &state.keys.hash(token))
        .await?
        .ok_or_else(gone)?;
    let player = o
        .player_id
        .zip(o.player_name.clone())
        .map(|(id, name)| PlayerChoice { id, name });
    let players = if player.is_some() {
        Vec::new()
    } else {
        players::unclaimed(&state.db, o.club_id)
            .await?
            .into_iter()
            .map(|(id, name)| PlayerChoice { id, name })
            .collect()
    };
    Ok(InvitationView {
        club: o.club_slug,
        club_name: o.club_name,
        email: o.email,
        role: o.role,
        invited_by: o.invited_by,
        expires_at: o.expires_at,
        player,
        players,
    })
}

/// Joining with an invitation's link, as the logged-in account.
#[derive(Deserialize, ToSchema, Default)]
#[serde(deny_unknown_fields)]
pub struct Joining {
    /// The club's player the new member says they are (one of the invitation's `players`);
    /// an organizer confirms it. Without it, the member joins as the invitation's `player`, or
    /// as a new player under their name.
    #[schema(minimum = 1)]
    pub player: Option<i64>,
    /// `false` for staff who do not play (an invitation as scorer, organizer or owner): no
    /// player is made. Members are always on the player list.
    #[serde(default)]
    pub plays: Option<bool>,
}

/// Signing up and joining with an invitation's link: the account gets the invited address.
#[derive(Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct JoiningNew {
    #[schema(example = "Rose Adler", min_length = 1, max_length = 200)]
    pub display_name: String,
    /// 10 to 1000 characters.
    #[schema(example = "correct horse battery", min_length = 10, max_length = 1000)]
    pub password: String,
    #[schema(minimum = 1)]
    pub player: Option<i64>,
    /// As for joining with an account.
    #[serde(default)]
    pub plays: Option<bool>,
}

/// Who joined where, in words.
#[derive(Serialize, ToSchema)]
pub struct Joined {
    #[schema(example = "friday")]
    pub club: String,
    #[schema(schema_with = crate::domain::schemas::role)]
    pub role: String,
    /// The member's player in the club (linked, or waiting for an organizer to confirm); absent
    /// for staff who do not play.
    #[schema(required = true)]
    pub player: Option<PlayerChoice>,
    #[schema(
        example = "Welcome to Friday Mah Jongg: you are a member. You are on Friday Mah Jongg's player list as Rose Adler; an organizer can change how your name shows."
    )]
    pub message: String,
}

/// Joins the club of the invitation as the logged-in caller (any account: the link is what was
/// mailed to the invited address).
pub async fn join(
    state: &AppState,
    caller: &Caller,
    token: &str,
    joining: Joining,
) -> Result<Joined> {
    let user = caller.user()?.clone();
    let view = show(state, token).await?;
    let choice = choice_of(&view, joining.player, joining.plays)?;
    let mut tx = state.db.begin().await?;
    let (club_id, role) = stored::accept(&mut tx, &state.keys.hash(token), user.id)
        .await?
        .ok_or_else(gone)?;
    let joined = welcome(state, &mut tx, view, club_id, role, &user, choice).await?;
    tx.commit().await?;
    mail::wake(state);
    Ok(joined)
}

/// Which player the new member is, from what they sent and what the invitation says: the
/// player they say they are, else the invitation's, else a new one (none for staff who say
/// they do not play).
fn choice_of(view: &InvitationView, said: Option<i64>, plays: Option<bool>) -> Result<Choice> {
    if plays == Some(false) {
        if view.role == Role::Member.as_str() {
            return Err(Error::invalid(
                "plays",
                "a member is on the club's player list; only staff (scorers, organizers, owners) may join without playing",
            ));
        }
        if said.is_some() {
            return Err(Error::invalid(
                "player",
                "say which player you are, or that you do not play, not both",
            ));
        }
        return Ok(Choice::NoPlayer);
    }
    Ok(match (said, &view.player) {
        (Some(p), Some(invited)) if p == invited.id => Choice::Invited(p),
        (Some(p), _) => Choice::Says(p),
        (None, Some(invited)) => Choice::Invited(invited.id),
        (None, None) => Choice::New,
    })
}

/// Creates the account of the invited address and joins the club with it, in one transaction;
/// the new account is logged in. An address that has an account meanwhile logs in instead.
pub async fn join_new(
    state: &AppState,
    token: &str,
    joining: JoiningNew,
    address: Option<IpAddr>,
    agent: Option<&str>,
) -> Result<(Session, Joined)> {
    // A dead link is told before anything else is counted or computed.
    let view = show(state, token).await?;
    let choice = choice_of(&view, joining.player, joining.plays)?;
    state.limits.signup(None, address).await?;
    let signing = SignUp {
        email: view.email.clone(),
        display_name: joining.display_name,
        password: None,
    };
    accounts::validate_signup(&signing)?;
    accounts::validate_password(&joining.password)?;
    state.limits.password_check(&view.email, address).await?;
    let hash = password::hash_password(joining.password).await?;
    let mut tx = state.db.begin().await?;
    let user = users::create_in(
        &mut tx,
        signing.email.trim(),
        signing.display_name.trim(),
        &hash,
    )
    .await?
    .ok_or_else(|| {
        Error::Conflict(format!(
            "an account with the email {} exists: log in, then open the invitation again to join",
            view.email
        ))
    })?;
    budgets::address_has_account(state, &mut tx, &user.email).await?;
    let (club_id, role) = stored::accept(&mut tx, &state.keys.hash(token), user.id)
        .await?
        .ok_or_else(gone)?;
    let joined = welcome(state, &mut tx, view, club_id, role, &user, choice).await?;
    tx.commit().await?;
    mail::wake(state);
    let session = accounts::start_session(state, user, agent).await?;
    Ok((session, joined))
}

/// The welcome in words, after putting the new member on the club's player list (in `tx`).
async fn welcome(
    state: &AppState,
    tx: &mut sqlx::PgConnection,
    view: InvitationView,
    club_id: i64,
    role: String,
    user: &users::User,
    choice: Choice,
) -> Result<Joined> {
    let club = crate::storage::people::clubs::by_id(&state.db, club_id)
        .await?
        .ok_or_else(gone)?;
    if let Choice::Says(p) = choice
        && !view.players.iter().any(|c| c.id == p)
    {
        return Err(Error::invalid(
            "player",
            format!(
                "player {p} is not one of {}'s players nobody is linked to; choose one of the invitation's players, or send none to join under your name",
                view.club_name
            ),
        ));
    }
    let placed = roster::place(state, tx, &club, user, choice).await?;
    let message = format!(
        "Welcome to {}: you are a {role}. {}",
        view.club_name,
        placed.words(&view.club_name)
    );
    Ok(Joined {
        club: view.club,
        role,
        player: placed.player().map(|(id, name)| PlayerChoice {
            id,
            name: name.to_string(),
        }),
        message,
    })
}

/// The club's invitations not yet accepted or withdrawn.
pub async fn open_of(state: &AppState, club_id: i64) -> Result<Vec<Invitation>> {
    Ok(stored::open_of(&state.db, club_id).await?)
}

/// Withdraws an open invitation: its link stops working at once.
pub async fn revoke(state: &AppState, club_id: i64, id: i64) -> Result<Invitation> {
    let listed = stored::get(&state.db, club_id, id).await?;
    match listed {
        Some(i) if stored::revoke(&state.db, club_id, id).await? => Ok(i),
        _ => Err(Error::NotFound(format!(
            "invitation {id} is not open in this club (accepted, withdrawn already, or never sent)"
        ))),
    }
}
