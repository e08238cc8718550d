//! A club's members and their roles, and its API tokens.

use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

use crate::auth::{TOKEN_PREFIX, new_secret};
pub use crate::domain::access::{Organized, organized};
use crate::domain::people::accounts::validate_email;
pub use crate::domain::people::invitations::{Invitation, Invited};
use crate::domain::{Access, AppState, Caller, Error, Need, Result, Role, outbox::mail};
pub use crate::storage::people::clubs::Member;
use crate::storage::people::clubs::{self, Club, RoleChange};
use crate::storage::people::invitations;
use crate::storage::people::tokens;
pub use crate::storage::people::tokens::TokenInfo;
use crate::storage::people::users;

/// Members and their roles (organizers and owners).
pub async fn list(state: &AppState, caller: &Caller, slug: &str) -> Result<Vec<Member>> {
    let (club, _) = caller.club(state, slug, Need::Admin).await?;
    Ok(clubs::members(&state.db, club.id).await?)
}

/// The members of a club already checked with `organized`.
pub async fn of(state: &AppState, club: &Organized) -> Result<Vec<Member>> {
    Ok(clubs::members(&state.db, club.club().id).await?)
}

#[derive(Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct SetRole {
    /// Any email: a member's role changes; anyone else is invited by mail.
    #[schema(example = "sam@example.org", min_length = 3, max_length = 254)]
    pub email: String,
    /// owner, organizer, scorer or member.
    #[schema(schema_with = crate::domain::schemas::role)]
    pub role: String,
}

/// Gives `target` the role `new` (or, with `None`, takes them out) if the caller may: only
/// owners make or unmake owners, and the club keeps at least one owner.
async fn change_role(
    state: &AppState,
    club: &Club,
    access: Access,
    target: i64,
    new: Option<Role>,
    by: i64,
) -> Result<()> {
    let current = clubs::role(&state.db, club.id, target)
        .await?
        .and_then(|r| Role::parse(&r));
    let touches_owner = new == Some(Role::Owner) || current == Some(Role::Owner);
    if touches_owner && access.role() != Role::Owner {
        return Err(Error::Forbidden(
            "only an owner can make or unmake owners".into(),
        ));
    }
    match clubs::change_role(&state.db, club.id, target, new.map(Role::as_str), by).await? {
        RoleChange::Done => Ok(()),
        RoleChange::NotMember => Err(Error::NotFound(format!(
            "user {target} is not a member of this club"
        ))),
        RoleChange::LastOwner => Err(Error::Conflict(
            "this is the club's last owner; make someone else owner first".into(),
        )),
    }
}

/// Members and roles are changed by people: a logged-in organizer or owner, never a token.
async fn run_members(state: &AppState, caller: &Caller, slug: &str) -> Result<(Club, Access)> {
    caller.user().map_err(|e| match e {
        Error::Forbidden(_) => Error::Forbidden(
            "members and roles are changed by a logged-in organizer or owner, not an API token"
                .into(),
        ),
        other => other,
    })?;
    caller.club(state, slug, Need::Admin).await
}

/// What adding by email did: a member's role changed, or an invitation went out.
pub enum Added {
    /// The address is a member's: their role changed; the members after the change.
    Changed(Vec<Member>),
    /// Anyone else is invited, whether or not the address has an account.
    Invited(Invited),
}

/// Changes the role of the member with this email; any other address is invited (the answer
/// does not tell whether it has an account). Only owners make or invite owners.
pub async fn set_role(state: &AppState, caller: &Caller, slug: &str, s: SetRole) -> Result<Added> {
    let (club, access) = run_members(state, caller, slug).await?;
    let role = Role::parse(&s.role)
        .ok_or_else(|| Error::invalid("role", "use owner, organizer, scorer or member"))?;
    let email = s.email.trim();
    if email.is_empty() {
        return Err(Error::invalid("email", "give the new member's email"));
    }
    validate_email(email)?;
    if let Some(user) = invitations::member_by_email(&state.db, club.id, email).await? {
        let was = clubs::role(&state.db, club.id, user).await?;
        change_role(state, &club, access, user, Some(role), caller.user()?.id).await?;
        let members = clubs::members(&state.db, club.id).await?;
        if was.as_deref() != Some(role.as_str())
            && let Some(who) = members.iter().find(|m| m.user_id == user)
            && let Ok(by) = caller.user()
            && by.id != user
        {
            tell_role(state, &club, by, who).await?;
        }
        return Ok(Added::Changed(members));
    }
    if role == Role::Owner && access.role() != Role::Owner {
        return Err(Error::Forbidden(
            "only an owner can make or unmake owners".into(),
        ));
    }
    let inviter = caller.user()?;
    Ok(Added::Invited(
        crate::domain::people::invitations::invite(state, &club, inviter, email, role, None)
            .await?,
    ))
}

/// Inviting a player of the club by mail, from their row on the player list.
#[derive(Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct InvitePlayer {
    /// Where the invitation goes; the player joins as a member linked to this player.
    #[schema(example = "mia@example.org", min_length = 3, max_length = 254)]
    pub email: String,
}

/// What inviting a player did.
pub enum PlayerInvited {
    /// An invitation went out for the player.
    Invited(Invited),
    /// The address was a member's without a player: they are that player now.
    Linked(String),
}

/// Invites `email` to join as the club's player `player` (organizers). The address of a member
/// who has no player yet is linked to the player at once instead; a member who is another
/// player already, or a player someone is linked to, is a 409 naming them.
pub async fn invite_player(
    state: &AppState,
    caller: &Caller,
    slug: &str,
    player: i64,
    p: InvitePlayer,
) -> Result<PlayerInvited> {
    let (club, _) = run_members(state, caller, slug).await?;
    let listed = crate::storage::people::players::roster(&state.db, club.id, Some(player))
        .await?
        .pop()
        .ok_or_else(|| Error::NotFound(format!("{} has no player {player}", club.name)))?;
    if let Some(account) = &listed.account {
        return Err(Error::Conflict(format!(
            "{} is linked to {account}'s account already",
            listed.name
        )));
    }
    let email = p.email.trim();
    if email.is_empty() {
        return Err(Error::invalid(
            "email",
            format!("give the address to invite {} at", listed.name),
        ));
    }
    validate_email(email)?;
    if let Some(user) = invitations::member_by_email(&state.db, club.id, email).await? {
        let user = crate::storage::people::users::by_id(&state.db, user)
            .await?
            .ok_or_else(|| Error::NotFound(format!("no member with the address {email}")))?;
        let mut tx = state.db.begin().await?;
        let placed = crate::domain::people::roster::place(
            state,
            &mut tx,
            &club,
            &user,
            crate::domain::people::roster::Choice::Invited(player),
        )
        .await?;
        use crate::domain::people::roster::Placed;
        return match placed {
            Placed::Linked { name, .. } => {
                tx.commit().await?;
                Ok(PlayerInvited::Linked(format!(
                    "{} is a member already: they are {name} on the player list now.",
                    user.display_name
                )))
            }
            Placed::Theirs { name, .. } | Placed::Claimed { name, .. } => {
                Err(Error::Conflict(format!(
                    "{} is a member already, as the player {name}: to make them {} instead, an organizer renames or deactivates one of the two",
                    user.display_name, listed.name
                )))
            }
            _ => Err(Error::Conflict(format!(
                "{} could not be linked to {}",
                user.display_name, listed.name
            ))),
        };
    }
    let inviter = caller.user()?;
    Ok(PlayerInvited::Invited(
        crate::domain::people::invitations::invite(
            state,
            &club,
            inviter,
            email,
            Role::Member,
            Some((player, &listed.name)),
        )
        .await?,
    ))
}

/// The club's open invitations (for organizers).
pub async fn invitations_of(state: &AppState, club: &Organized) -> Result<Vec<Invitation>> {
    crate::domain::people::invitations::open_of(state, club.club().id).await
}

/// The club's open invitations, if the caller may run the club.
pub async fn invitations(state: &AppState, caller: &Caller, slug: &str) -> Result<Vec<Invitation>> {
    let club = organized(state, caller, slug).await?;
    invitations_of(state, &club).await
}

/// Withdraws an open invitation (a logged-in organizer or owner; owners' invitations only by owners).
pub async fn revoke_invitation(
    state: &AppState,
    caller: &Caller,
    slug: &str,
    id: i64,
) -> Result<Invitation> {
    let (club, access) = run_members(state, caller, slug).await?;
    let listed = invitations::get(&state.db, club.id, id).await?;
    if listed.as_ref().is_some_and(|i| i.role == "owner") && access.role() != Role::Owner {
        return Err(Error::Forbidden(
            "only an owner can withdraw an invitation to be owner".into(),
        ));
    }
    crate::domain::people::invitations::revoke(state, club.id, id).await
}

/// Sends an open invitation again with a new link (a logged-in organizer or owner; owners'
/// invitations only by owners): once a day, within the club's and the sender's mail budgets.
pub async fn send_invitation_again(
    state: &AppState,
    caller: &Caller,
    slug: &str,
    id: i64,
) -> Result<Invited> {
    let (club, access) = run_members(state, caller, slug).await?;
    let listed = invitations::get(&state.db, club.id, id).await?;
    if listed.as_ref().is_some_and(|i| i.role == "owner") && access.role() != Role::Owner {
        return Err(Error::Forbidden(
            "only an owner can send an invitation to be owner".into(),
        ));
    }
    let sender = caller.user()?;
    crate::domain::people::invitations::send_again(state, &club, sender, id).await
}

/// Takes a user out of the club (the last owner stays), or, given the caller's own id, the
/// caller leaves it, whatever her role. What she left waiting ends (claims, proposals,
/// invitations) and her player stays, with its games, unlinked. Someone removed by another is
/// mailed. What happened, naming her.
pub async fn remove(state: &AppState, caller: &Caller, slug: &str, user: i64) -> Result<String> {
    let me = caller.user().map_err(|e| match e {
        Error::Forbidden(_) => Error::Forbidden(
            "members leave, and are removed, as people logged in, not through an API token".into(),
        ),
        other => other,
    })?;
    if me.id == user {
        let (club, _) = caller.club(state, slug, Need::Read).await?;
        return match clubs::change_role(&state.db, club.id, user, None, me.id).await? {
            RoleChange::Done => {
                state.events.poke();
                Ok(format!(
                    "You left {}. Your games stay in its standings, under your player's name.",
                    club.name
                ))
            }
            RoleChange::NotMember => Err(Error::NotFound(format!(
                "you are not a member of {}",
                club.name
            ))),
            RoleChange::LastOwner => Err(Error::Conflict(format!(
                "you are {}'s last owner: make another member owner first, then leave",
                club.name
            ))),
        };
    }
    let (club, access) = run_members(state, caller, slug).await?;
    let who = clubs::members(&state.db, club.id)
        .await?
        .into_iter()
        .find(|m| m.user_id == user);
    change_role(state, &club, access, user, None, me.id).await?;
    state.events.poke();
    let Some(who) = who else {
        return Ok("Removed from the club.".into());
    };
    tell_removed(state, &club, me, &who).await?;
    Ok(format!(
        "{} is no longer a member of {}; they were told by mail. Their games stay, under their player's name.",
        who.display_name, club.name
    ))
}

/// Mails a member that `by` gave her a new role in the club.
async fn tell_role(state: &AppState, club: &Club, by: &users::User, who: &Member) -> Result<()> {
    let greeting = format!("Hello {},", who.display_name);
    let what = match Role::parse(&who.role).unwrap_or(Role::Member) {
        Role::Owner => "an owner: you run everything, including who else is an owner",
        Role::Organizer => "an organizer: you run nights, players, leagues and cards",
        Role::Scorer => "a scorer: you record games",
        Role::Member => "a member: you see the club's leagues and play",
    };
    let paragraphs = [format!(
        "{} made you {what} in {}.",
        by.display_name, club.name
    )];
    let after = ["If this is a mistake, ask an organizer of the club.".to_string()];
    let page = format!("{}/clubs/{}", state.public_url, club.slug);
    let mut tx = state.db.begin().await?;
    mail::write(
        state,
        &mut tx,
        mail::Envelope {
            kind: "member_role",
            to: (&who.email, &who.display_name),
            club_id: Some(club.id),
            caused_by: None,
            unsubscribe: None,
        },
        &format!("Your role in {} is now {}", club.name, who.role),
        mail::Letter {
            greeting: &greeting,
            paragraphs: &paragraphs,
            actions: &[(&format!("Open {}", club.name), &page)],
            after: &after,
        },
    )
    .await?;
    tx.commit().await?;
    mail::wake(state);
    Ok(())
}

/// Mails a member that `by` took her out of the club.
async fn tell_removed(state: &AppState, club: &Club, by: &users::User, who: &Member) -> Result<()> {
    let greeting = format!("Hello {},", who.display_name);
    let paragraphs = [format!(
        "{} took you out of {} on the mah jongg league service: you no longer see its members-only pages, and anything you had waiting there (a claim to be a player, a proposed match) has ended.",
        by.display_name, club.name
    )];
    let after = [
        "The games you played stay in the club's standings under your player's name. If this is a mistake, ask an organizer of the club to invite you again.".to_string(),
    ];
    let mut tx = state.db.begin().await?;
    mail::write(
        state,
        &mut tx,
        mail::Envelope {
            kind: "member_removed",
            to: (&who.email, &who.display_name),
            club_id: Some(club.id),
            caused_by: None,
            unsubscribe: None,
        },
        &format!("You are no longer a member of {}", club.name),
        mail::Letter {
            greeting: &greeting,
            paragraphs: &paragraphs,
            actions: &[],
            after: &after,
        },
    )
    .await?;
    tx.commit().await?;
    mail::wake(state);
    Ok(())
}

#[derive(Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct NewToken {
    /// Not blank.
    #[schema(
        example = "standings board",
        min_length = 1,
        max_length = 100,
        pattern = r"^[^\u0000]*[^\s\u0000][^\u0000]*$"
    )]
    pub name: String,
    #[schema(schema_with = crate::domain::schemas::token_scopes)]
    pub scopes: Vec<String>,
}

#[derive(Serialize, ToSchema)]
pub struct CreatedToken {
    #[serde(flatten)]
    pub info: TokenInfo,
    /// The secret: shown this once, never again. Send it as `Authorization: Bearer <token>`.
    pub token: String,
}

/// The club's API tokens (never their secrets).
pub async fn tokens(state: &AppState, caller: &Caller, slug: &str) -> Result<Vec<TokenInfo>> {
    let (club, _) = caller.club(state, slug, Need::Admin).await?;
    Ok(tokens::list(&state.db, club.id).await?)
}

/// The tokens of a club already checked with `organized`.
pub async fn tokens_of(state: &AppState, club: &Organized) -> Result<Vec<TokenInfo>> {
    Ok(tokens::list(&state.db, club.club().id).await?)
}

/// Creates an API token (a logged-in organizer or owner); the answer holds its secret, which is
/// never stored.
pub async fn issue_token(
    state: &AppState,
    caller: &Caller,
    slug: &str,
    n: NewToken,
) -> Result<CreatedToken> {
    let user = caller.user()?.clone();
    let (club, _) = caller.club(state, slug, Need::Admin).await?;
    let name = crate::domain::text::one_line("name", &n.name, 100)?;
    let name = name.as_str();
    if n.scopes.is_empty() {
        return Err(Error::invalid(
            "scopes",
            "give at least one of read, score, admin",
        ));
    }
    if let Some((i, bad)) = n
        .scopes
        .iter()
        .enumerate()
        .find(|(_, s)| !["read", "score", "admin"].contains(&s.as_str()))
    {
        return Err(Error::invalid(
            &format!("scopes[{i}]"),
            format!("`{bad}` is not a scope; use read, score or admin"),
        ));
    }
    if let Some(i) = (1..n.scopes.len()).find(|&i| n.scopes[..i].contains(&n.scopes[i])) {
        return Err(Error::invalid(
            &format!("scopes[{i}]"),
            format!("`{}` is listed twice; list each scope once", n.scopes[i]),
        ));
    }
    let mut scopes = n.scopes.clone();
    scopes.sort();
    let token = new_secret(TOKEN_PREFIX);
    let info = tokens::create(
        &state.db,
        club.id,
        name,
        &state.keys.hash(&token),
        &scopes,
        user.id,
    )
    .await?;
    Ok(CreatedToken { info, token })
}

/// Revokes one of the club's tokens (a logged-in organizer or owner): it stops working at once.
pub async fn revoke_token(state: &AppState, caller: &Caller, slug: &str, id: i64) -> Result<()> {
    caller.user()?;
    let (club, _) = caller.club(state, slug, Need::Admin).await?;
    // Tokens read before are checked again (other processes hear of it from the database).
    let _unheard = state.freshness.unheard();
    if !tokens::revoke(&state.db, club.id, id).await? {
        return Err(Error::NotFound(format!("this club has no token {id}")));
    }
    Ok(())
}
