//! Scoring rulesets (rules.md §5): results, rulesets as data, the four presets, and scores with
//! their breakdown in words.

use serde::{Deserialize, Serialize};

use super::InputError;
use super::card::Card;
use super::matching::{Hand, MatchReport};
use super::tile::{Tile, parse_tiles};

/// Tiles as a string (`"2B 2B J"`) or a list of strings.
#[derive(Debug, Clone, Deserialize, Serialize)]
#[serde(untagged)]
pub enum Tiles {
    Text(String),
    List(Vec<String>),
}

impl Tiles {
    pub fn parse(&self) -> Result<Vec<Tile>, InputError> {
        let r = match self {
            Tiles::Text(s) => parse_tiles(s),
            Tiles::List(items) => super::tile::parse_tile_list(items),
        };
        r.map_err(|e| InputError::new(e.to_string()))
    }
}

/// How a game ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Outcome {
    Mahjong,
    Wall,
    Redeal,
}

impl Outcome {
    /// The name used in results and storage.
    pub fn as_str(self) -> &'static str {
        match self {
            Outcome::Mahjong => "mahjong",
            Outcome::Wall => "wall",
            Outcome::Redeal => "redeal",
        }
    }
}

/// How the winning tile came.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum WonBy {
    SelfPick,
    Discard,
    JokerExchange,
    Heavenly,
    Earthly,
}

impl WonBy {
    /// The name used in results and storage.
    pub fn as_str(self) -> &'static str {
        match self {
            WonBy::SelfPick => "self_pick",
            WonBy::Discard => "discard",
            WonBy::JokerExchange => "joker_exchange",
            WonBy::Heavenly => "heavenly",
            WonBy::Earthly => "earthly",
        }
    }
}

/// A dead-hand entry of a result.
#[derive(Debug, Clone, Deserialize, Serialize)]
pub struct DeadEntry {
    pub seat: String,
    #[serde(default)]
    pub called_by: Option<String>,
    #[serde(default)]
    pub reason: Option<String>,
    #[serde(default)]
    pub contested: bool,
    #[serde(default)]
    pub upheld: Option<bool>,
}

/// A ruleset named by preset or given as data.
#[derive(Debug, Clone, Serialize)]
#[serde(untagged)]
pub enum RulesetSpec {
    Preset(String),
    Custom(Ruleset),
}

impl<'de> Deserialize<'de> for RulesetSpec {
    /// A string names a preset; an object is a ruleset whose `kind` is `money` or `points`
    /// (written out: serde's tags would also take a variant's number).
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        use serde::de::Error;
        let value = serde_json::Value::deserialize(d)?;
        match &value {
            serde_json::Value::String(name) => Ok(RulesetSpec::Preset(name.clone())),
            serde_json::Value::Object(map) => match map.get("kind").and_then(|k| k.as_str()) {
                Some("money" | "points") => serde_json::from_value(value)
                    .map(RulesetSpec::Custom)
                    .map_err(D::Error::custom),
                _ => Err(D::Error::custom(
                    "a ruleset object needs `kind`: \"money\" or \"points\"",
                )),
            },
            _ => Err(D::Error::custom(
                "give a preset's name or a ruleset object with `kind`",
            )),
        }
    }
}

impl RulesetSpec {
    pub fn resolve(&self) -> Result<Ruleset, InputError> {
        match self {
            RulesetSpec::Preset(name) => Ruleset::preset(name).ok_or_else(|| {
                InputError::new(format!(
                    "ruleset `{name}` is not a preset; presets are {}",
                    Ruleset::PRESETS.join(", ")
                ))
            }),
            RulesetSpec::Custom(r) => {
                r.check_knobs()?;
                Ok(r.clone())
            }
        }
    }
}

/// A game result (rules.md §5).
#[derive(Debug, Clone, Deserialize, Serialize)]
pub struct GameResult {
    #[serde(default)]
    pub ruleset: Option<RulesetSpec>,
    pub seats: Vec<String>,
    pub outcome: Outcome,
    #[serde(default)]
    pub winner: Option<String>,
    #[serde(default)]
    pub hand: Option<Tiles>,
    #[serde(default)]
    pub exposures: Vec<Tiles>,
    #[serde(default)]
    pub won_by: Option<WonBy>,
    #[serde(default)]
    pub discarder: Option<String>,
    #[serde(default)]
    pub misnamed_discard: bool,
    #[serde(default)]
    pub dead: Vec<DeadEntry>,
}

/// Payment rules: every player pays or is paid; the total is zero.
#[derive(Debug, Clone, PartialEq, Deserialize, Serialize)]
#[serde(deny_unknown_fields, default)]
pub struct MoneyRules {
    /// Multiple of the hand's value the discarder pays.
    pub discarder: i64,
    /// Multiple each other player pays on a discard win.
    pub others_on_discard: i64,
    /// Multiple every other player pays on a self-pick (and joker exchange, heavenly, earthly).
    pub self_pick: i64,
    /// Factor on every payment for a jokerless win on a line that is not singles-and-pairs.
    pub jokerless_multiplier: i64,
    /// Multiple the player who misnamed the winning discard pays, alone.
    pub misnamed_discard: i64,
    /// When the discarder pays for the whole table; `None` for never.
    pub pays_for_table: Option<PaysForTable>,
    /// Paid by the loser of a contested dead-hand call to the other player.
    pub dispute: i64,
}

/// Exposure counts of the winner at which the discarder pays every share.
#[derive(Debug, Clone, PartialEq, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct PaysForTable {
    pub exposures: usize,
    pub exposures_on_quints: usize,
}

impl Default for MoneyRules {
    fn default() -> Self {
        MoneyRules {
            discarder: 2,
            others_on_discard: 1,
            self_pick: 2,
            jokerless_multiplier: 2,
            misnamed_discard: 4,
            pays_for_table: None,
            dispute: 25,
        }
    }
}

/// Points rules: the winner scores the hand plus bonuses, the discarder a penalty.
#[derive(Debug, Clone, PartialEq, Deserialize, Serialize)]
#[serde(deny_unknown_fields, default)]
pub struct PointsRules {
    /// Bonus for a self-picked win (heavenly and earthly count as self-picked).
    pub self_pick: i64,
    /// Bonus for a win by joker exchange ("finesse").
    pub joker_exchange: i64,
    /// Whether a joker-exchange win also counts as self-picked.
    pub joker_exchange_is_self_pick: bool,
    /// Bonus for a jokerless win on a line that is not singles-and-pairs.
    pub jokerless: i64,
    /// Bonus for a win with no exposures on a line that is not concealed.
    pub no_exposures: i64,
    /// Discarder penalties (positive numbers, subtracted).
    pub discarder: DiscarderPenalty,
    /// Penalty for the player whose misnamed discard gave mahjong, in place of the
    /// discarder penalty; `None` treats it as an ordinary discard.
    pub misnamed_discard: Option<i64>,
    /// Points for each hand that is not dead in a wall game.
    pub wall_alive: i64,
    /// A caller whose contested call was not upheld scores nothing for the game but penalties.
    pub wrong_caller_scores_zero: bool,
}

/// The discarder's penalty by the winner's exposures.
#[derive(Debug, Clone, PartialEq, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct DiscarderPenalty {
    pub up_to_one_exposure: i64,
    pub two_exposures: i64,
    pub three_or_more: i64,
    pub two_or_more_on_quints: i64,
}

impl Default for PointsRules {
    fn default() -> Self {
        PointsRules {
            self_pick: 10,
            joker_exchange: 10,
            joker_exchange_is_self_pick: false,
            jokerless: 20,
            no_exposures: 10,
            discarder: DiscarderPenalty {
                up_to_one_exposure: 10,
                two_exposures: 20,
                three_or_more: 25,
                two_or_more_on_quints: 25,
            },
            misnamed_discard: None,
            wall_alive: 10,
            wrong_caller_scores_zero: true,
        }
    }
}

/// A scoring ruleset: a preset or a league's own, with the same knobs.
#[derive(Debug, Clone, PartialEq, Deserialize, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case", deny_unknown_fields)]
pub enum Ruleset {
    Money {
        #[serde(default)]
        name: Option<String>,
        #[serde(flatten)]
        rules: MoneyRules,
    },
    Points {
        #[serde(default)]
        name: Option<String>,
        #[serde(flatten)]
        rules: PointsRules,
    },
}

impl Ruleset {
    /// The largest value a knob may take: far above any club's rules, and low enough that no
    /// game's scores come near the limits of the numbers that hold them.
    pub const KNOB_MAX: i64 = 10_000;

    /// Every amount, multiple and penalty is 0 to `KNOB_MAX` (a jokerless multiplier 1 to it).
    pub fn check_knobs(&self) -> Result<(), InputError> {
        let mut knobs: Vec<(&str, i64, i64)> = Vec::new();
        let (Ruleset::Money { name, .. } | Ruleset::Points { name, .. }) = self;
        if name.as_ref().is_some_and(|n| n.chars().count() > 200) {
            return Err(InputError::new(
                "ruleset: `name` is longer than 200 characters",
            ));
        }
        match self {
            Ruleset::Money { rules: r, .. } => {
                knobs.extend([
                    ("discarder", r.discarder, 0),
                    ("others_on_discard", r.others_on_discard, 0),
                    ("self_pick", r.self_pick, 0),
                    ("jokerless_multiplier", r.jokerless_multiplier, 1),
                    ("misnamed_discard", r.misnamed_discard, 0),
                    ("dispute", r.dispute, 0),
                ]);
                if let Some(p) = &r.pays_for_table {
                    for (name, v) in [
                        ("pays_for_table.exposures", p.exposures),
                        ("pays_for_table.exposures_on_quints", p.exposures_on_quints),
                    ] {
                        if v > 4 {
                            return Err(InputError::new(format!(
                                "ruleset: `{name}` is {v}; a winner makes at most 4 exposures"
                            )));
                        }
                    }
                }
            }
            Ruleset::Points { rules: r, .. } => {
                knobs.extend([
                    ("self_pick", r.self_pick, 0),
                    ("joker_exchange", r.joker_exchange, 0),
                    ("jokerless", r.jokerless, 0),
                    ("no_exposures", r.no_exposures, 0),
                    (
                        "discarder.up_to_one_exposure",
                        r.discarder.up_to_one_exposure,
                        0,
                    ),
                    ("discarder.two_exposures", r.discarder.two_exposures, 0),
                    ("discarder.three_or_more", r.discarder.three_or_more, 0),
                    (
                        "discarder.two_or_more_on_quints",
                        r.discarder.two_or_more_on_quints,
                        0,
                    ),
                    ("wall_alive", r.wall_alive, 0),
                ]);
                if let Some(p) = r.misnamed_discard {
                    knobs.push(("misnamed_discard", p, 0));
                }
            }
        }
        match knobs
            .into_iter()
            .find(|(_, v, low)| !(*low..=Self::KNOB_MAX).contains(v))
        {
            Some((name, v, low)) => Err(InputError::new(format!(
                "ruleset: `{name}` is {v}; use {low} to {}",
                Self::KNOB_MAX
            ))),
            None => Ok(()),
        }
    }

    pub const PRESETS: [&'static str; 4] = [
        "nmjl-money",
        "bigcard-money",
        "bigcard-points",
        "tournament",
    ];

    pub fn preset(name: &str) -> Option<Ruleset> {
        let named = Some(name.to_string());
        Some(match name {
            "nmjl-money" => Ruleset::Money {
                name: named,
                rules: MoneyRules::default(),
            },
            "bigcard-money" => Ruleset::Money {
                name: named,
                rules: MoneyRules {
                    pays_for_table: Some(PaysForTable {
                        exposures: 3,
                        exposures_on_quints: 2,
                    }),
                    ..MoneyRules::default()
                },
            },
            "bigcard-points" => Ruleset::Points {
                name: named,
                rules: PointsRules::default(),
            },
            "tournament" => Ruleset::Points {
                name: named,
                rules: PointsRules {
                    joker_exchange: 0,
                    joker_exchange_is_self_pick: true,
                    no_exposures: 0,
                    misnamed_discard: Some(25),
                    ..PointsRules::default()
                },
            },
            _ => return None,
        })
    }

    pub fn is_money(&self) -> bool {
        matches!(self, Ruleset::Money { .. })
    }
}

/// One seat's score and how it came about.
#[derive(Debug, Clone, Serialize)]
pub struct SeatBreakdown {
    pub seat: String,
    pub score: i64,
    /// The score in words ("hand 2468#3: 25; self-picked +10; jokerless +20").
    pub text: String,
}

/// Scores in seat order, serialized as an object.
#[derive(Debug, Clone)]
pub struct SeatScores(pub Vec<(String, i64)>);

impl Serialize for SeatScores {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeMap;
        let mut m = s.serialize_map(Some(self.0.len()))?;
        for (k, v) in &self.0 {
            m.serialize_entry(k, v)?;
        }
        m.end()
    }
}

/// The scored result.
#[derive(Debug, Clone, Serialize)]
pub struct ScoreReport {
    pub scores: SeatScores,
    pub breakdown: Vec<SeatBreakdown>,
    /// The winning line, for a mahjong.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub line: Option<MatchReport>,
    /// Whether the game counts as a game played (a redeal does not).
    pub counts: bool,
}

/// Seat labels: the winds, by letter or name.
fn seat_label(text: &str) -> Option<&'static str> {
    match text.trim().to_ascii_lowercase().as_str() {
        "e" | "east" => Some("E"),
        "s" | "south" => Some("S"),
        "w" | "west" => Some("W"),
        "n" | "north" => Some("N"),
        _ => None,
    }
}

/// A contested dead-hand call: (caller, challenged, upheld).
type Dispute = (usize, usize, bool);

/// A result checked against the card, ready to score.
#[derive(Debug, Clone)]
pub struct ValidResult {
    pub seats: Vec<&'static str>,
    pub outcome: Outcome,
    pub winner: Option<usize>,
    pub won_by: Option<WonBy>,
    pub discarder: Option<usize>,
    pub misnamed: bool,
    /// Per seat: is the hand dead for scoring.
    pub dead: Vec<bool>,
    /// (caller, challenged, upheld) for each contested call.
    pub disputes: Vec<(usize, usize, bool)>,
    /// The winning line.
    pub line: Option<MatchReport>,
}

impl GameResult {
    /// Validates the result against the card: seats, roles and the winning hand.
    pub fn validate(&self, card: &Card) -> Result<ValidResult, InputError> {
        let seats = self.seat_labels()?;
        let (dead, disputes) = self.dead_hands(&seats)?;
        let mut v = ValidResult {
            seats: seats.clone(),
            outcome: self.outcome,
            winner: None,
            won_by: None,
            discarder: None,
            misnamed: false,
            dead,
            disputes,
            line: None,
        };
        if self.outcome != Outcome::Mahjong {
            self.check_no_win()?;
            return Ok(v);
        }
        let Some(winner) = &self.winner else {
            return Err(InputError::new("winner: a mahjong needs the winner's seat"));
        };
        let winner = find_seat(&seats, "winner", winner)?;
        if v.dead[winner] {
            return Err(InputError::new(format!(
                "dead: the winner {} has a dead hand; a dead hand cannot win",
                seats[winner]
            )));
        }
        let (won_by, discarder) = self.how_won(&seats, winner)?;
        v.discarder = discarder;
        v.line = Some(self.winning_line(card)?);
        v.winner = Some(winner);
        v.won_by = Some(won_by);
        v.misnamed = self.misnamed_discard;
        Ok(v)
    }

    /// The seats as winds, each once, 2 to 4 of them.
    fn seat_labels(&self) -> Result<Vec<&'static str>, InputError> {
        if !(2..=4).contains(&self.seats.len()) {
            return Err(InputError::new(format!(
                "seats lists {} players; a table has 2 to 4",
                self.seats.len()
            )));
        }
        let mut seats: Vec<&'static str> = Vec::new();
        for s in &self.seats {
            let Some(label) = seat_label(s) else {
                return Err(InputError::new(format!(
                    "seat `{s}` is not a wind (E, S, W or N)"
                )));
            };
            if seats.contains(&label) {
                return Err(InputError::new(format!("seat {label} is listed twice")));
            }
            seats.push(label);
        }
        Ok(seats)
    }

    /// Per seat whether its hand is dead for scoring, and each contested call as (caller,
    /// challenged, upheld).
    fn dead_hands(&self, seats: &[&'static str]) -> Result<(Vec<bool>, Vec<Dispute>), InputError> {
        let err = |m: String| Err(InputError::new(m));
        let mut dead = vec![false; seats.len()];
        let mut disputes = Vec::new();
        for (i, d) in self.dead.iter().enumerate() {
            let at = |f: &str| format!("dead[{i}].{f}");
            let seat = find_seat(seats, &at("seat"), &d.seat)?;
            let caller = match &d.called_by {
                Some(c) => Some(find_seat(seats, &at("called_by"), c)?),
                None => None,
            };
            if caller == Some(seat) {
                return err(format!(
                    "{}: a player cannot call their own hand dead; only an opponent may",
                    at("called_by")
                ));
            }
            if d.contested {
                let Some(caller) = caller else {
                    return err(format!(
                        "{}: a contested call needs the caller",
                        at("called_by")
                    ));
                };
                let Some(upheld) = d.upheld else {
                    return err(format!(
                        "{}: say whether the contested call was upheld",
                        at("upheld")
                    ));
                };
                disputes.push((caller, seat, upheld));
                if upheld {
                    dead[seat] = true;
                }
            } else {
                dead[seat] = true;
            }
        }
        Ok((dead, disputes))
    }

    /// A wall game or redeal names no winner or discarder (and a redeal no dead hands).
    fn check_no_win(&self) -> Result<(), InputError> {
        let what = if self.outcome == Outcome::Wall {
            "a wall game"
        } else {
            "a redeal"
        };
        if self.winner.is_some() {
            return Err(InputError::new(format!("winner: {what} has no winner")));
        }
        if self.discarder.is_some() {
            return Err(InputError::new(format!(
                "discarder: {what} has no winning discard"
            )));
        }
        if self.outcome == Outcome::Redeal && !self.dead.is_empty() {
            return Err(InputError::new(
                "dead: hands cannot be called dead before play starts (a redeal)",
            ));
        }
        Ok(())
    }

    /// How the winner went out, and the discarder's seat for a win from a discard.
    fn how_won(
        &self,
        seats: &[&'static str],
        winner: usize,
    ) -> Result<(WonBy, Option<usize>), InputError> {
        let err = |m: String| Err(InputError::new(m));
        let Some(won_by) = self.won_by else {
            return err("won_by: say how the game was won (self_pick, discard, joker_exchange, heavenly, earthly)".into());
        };
        let uncontested_dead = |seat: usize| {
            self.dead
                .iter()
                .any(|d| !d.contested && seat_label(&d.seat) == Some(seats[seat]))
        };
        let mut discarder = None;
        match (won_by, &self.discarder) {
            (WonBy::Discard, None) => {
                return err("discarder: a win from a discard needs the discarder".into());
            }
            (WonBy::Discard, Some(d)) => {
                let d = find_seat(seats, "discarder", d)?;
                if d == winner {
                    return err(format!(
                        "discarder: {} is the winner; the winning discard comes from another player",
                        seats[d]
                    ));
                }
                if uncontested_dead(d) {
                    return err(format!(
                        "discarder: {}'s hand is dead and a dead hand stops playing, so it did not discard",
                        seats[d]
                    ));
                }
                discarder = Some(d);
            }
            (_, Some(_)) => {
                return err("discarder: only a win from a discard has a discarder".into());
            }
            (_, None) => {}
        }
        if self.misnamed_discard && won_by != WonBy::Discard {
            return err(
                "misnamed_discard: only a win from a discard can come from a misnamed discard"
                    .into(),
            );
        }
        if matches!(won_by, WonBy::Heavenly | WonBy::Earthly) && seats[winner] != "E" {
            return err(format!(
                "won_by: a heavenly or earthly win is East's, but the winner is {}",
                seats[winner]
            ));
        }
        Ok((won_by, discarder))
    }

    /// The card's line the winning hand matches (the nearest lines named when none does).
    fn winning_line(&self, card: &Card) -> Result<MatchReport, InputError> {
        let Some(hand) = &self.hand else {
            return Err(InputError::new("hand: a mahjong needs the winning hand"));
        };
        let tiles = hand.parse().map_err(|e| e.context("hand"))?;
        let exposures = self
            .exposures
            .iter()
            .enumerate()
            .map(|(i, t)| t.parse().map_err(|e| e.context(&format!("exposures[{i}]"))))
            .collect::<Result<Vec<_>, _>>()?;
        let hand = Hand::new(&tiles, &exposures)?;
        let check = card.check(&hand);
        let Some(best) = check.best else {
            let near = card.check_report(&check);
            let hint = near
                .nearest
                .iter()
                .map(|n| {
                    if n.missing == 0 {
                        format!("{} ({})", n.id, n.reason.clone().unwrap_or_default())
                    } else {
                        format!("{} (needs {})", n.id, n.needs.join(" "))
                    }
                })
                .collect::<Vec<_>>()
                .join("; ");
            return Err(InputError::new(format!(
                "hand: matches no line of card \"{}\"; nearest: {hint}",
                card.name
            )));
        };
        Ok(card.match_report(&check.matches[best], &check))
    }
}

/// The place of seat `s` at the table (`field` names it in the refusal).
fn find_seat(seats: &[&'static str], field: &str, s: &str) -> Result<usize, InputError> {
    seat_label(s)
        .and_then(|l| seats.iter().position(|x| *x == l))
        .ok_or_else(|| {
            InputError::new(format!(
                "{field} `{s}` is not a seat at this table ({})",
                seats.join(", ")
            ))
        })
}

/// Builds each seat's score from items in words.
struct Sheet {
    items: Vec<Vec<(String, i64)>>,
}

impl Sheet {
    fn new(n: usize) -> Sheet {
        Sheet {
            items: vec![Vec::new(); n],
        }
    }

    fn add(&mut self, seat: usize, what: String, amount: i64) {
        self.items[seat].push((what, amount));
    }

    fn finish(self, v: &ValidResult, counts: bool, zeroed: &[bool]) -> ScoreReport {
        let mut scores = Vec::new();
        let mut breakdown = Vec::new();
        for (i, items) in self.items.into_iter().enumerate() {
            let mut score = 0;
            let mut parts = Vec::new();
            for (what, amount) in items {
                if zeroed[i] && amount > 0 {
                    parts.push(format!(
                        "{what} (void: called a hand dead and was not upheld)"
                    ));
                    continue;
                }
                score = i64::saturating_add(score, amount);
                parts.push(what);
            }
            if parts.is_empty() {
                parts.push("nothing".into());
            }
            let seat = v.seats[i].to_string();
            scores.push((seat.clone(), score));
            breakdown.push(SeatBreakdown {
                seat,
                score,
                text: parts.join("; "),
            });
        }
        ScoreReport {
            scores: SeatScores(scores),
            breakdown,
            line: v.line.clone(),
            counts,
        }
    }
}

fn signed(n: i64) -> String {
    if n >= 0 {
        format!("+{n}")
    } else {
        n.to_string()
    }
}

impl ValidResult {
    /// Scores the result under a ruleset.
    pub fn score(&self, ruleset: &Ruleset) -> ScoreReport {
        let n = self.seats.len();
        let mut sheet = Sheet::new(n);
        let no_zero = vec![false; n];
        if self.outcome == Outcome::Redeal {
            for i in 0..n {
                sheet.add(
                    i,
                    "redeal: nothing scored, the game does not count".into(),
                    0,
                );
            }
            return sheet.finish(self, false, &no_zero);
        }
        match ruleset {
            Ruleset::Money { rules, .. } => {
                self.score_money(rules, &mut sheet);
                sheet.finish(self, true, &no_zero)
            }
            Ruleset::Points { rules, .. } => {
                let zeroed = self.score_points(rules, &mut sheet);
                sheet.finish(self, true, &zeroed)
            }
        }
    }

    fn pay(&self, sheet: &mut Sheet, payer: usize, payee: usize, amount: i64, why: &str) {
        if amount == 0 {
            return;
        }
        let (from, to) = (self.seats[payer], self.seats[payee]);
        sheet.add(payee, format!("{from} pays {amount} ({why})"), amount);
        sheet.add(
            payer,
            format!("pays {to} {amount} ({why})"),
            amount.saturating_neg(),
        );
    }

    fn score_money(&self, r: &MoneyRules, sheet: &mut Sheet) {
        if let (Some(w), Some(line)) = (self.winner, &self.line) {
            let value = line.value as i64;
            let doubled = line.jokerless && !line.singles_and_pairs;
            let m = if doubled { r.jokerless_multiplier } else { 1 };
            let jl = if doubled {
                format!(", jokerless ×{}", r.jokerless_multiplier)
            } else {
                String::new()
            };
            let hand = format!("hand {} at {value}", line.id);
            match (self.won_by, self.discarder) {
                (Some(WonBy::Discard), Some(d)) if self.misnamed => {
                    let why = format!("{hand}, misnamed discard ×{}", r.misnamed_discard);
                    self.pay(sheet, d, w, r.misnamed_discard.saturating_mul(value), &why);
                }
                (Some(WonBy::Discard), Some(d)) => {
                    let table = r.pays_for_table.as_ref().is_some_and(|p| {
                        line.exposures >= p.exposures
                            || (line.quints && line.exposures >= p.exposures_on_quints)
                    });
                    let own = r.discarder.saturating_mul(value).saturating_mul(m);
                    let other = r.others_on_discard.saturating_mul(value).saturating_mul(m);
                    if table {
                        let others = self.seats.len() as i64 - 2;
                        let total = own.saturating_add(other.saturating_mul(others));
                        let why = format!(
                            "{hand}, discarder ×{}{jl}, pays for the table: {} exposures",
                            r.discarder, line.exposures
                        );
                        self.pay(sheet, d, w, total, &why);
                    } else {
                        let why = format!("{hand}, discarder ×{}{jl}", r.discarder);
                        self.pay(sheet, d, w, own, &why);
                        let why = format!("{hand}, ×{}{jl}", r.others_on_discard);
                        for p in (0..self.seats.len()).filter(|&p| p != w && p != d) {
                            self.pay(sheet, p, w, other, &why);
                        }
                    }
                }
                (won_by, _) => {
                    let how = match won_by {
                        Some(WonBy::JokerExchange) => "joker exchange",
                        Some(WonBy::Heavenly) => "heavenly",
                        Some(WonBy::Earthly) => "earthly",
                        _ => "self-picked",
                    };
                    let why = format!("{hand}, {how} ×{}{jl}", r.self_pick);
                    for p in (0..self.seats.len()).filter(|&p| p != w) {
                        let each = r.self_pick.saturating_mul(value).saturating_mul(m);
                        self.pay(sheet, p, w, each, &why);
                    }
                }
            }
        }
        for &(caller, challenged, upheld) in &self.disputes {
            if upheld {
                self.pay(
                    sheet,
                    challenged,
                    caller,
                    r.dispute,
                    "dead-hand call upheld",
                );
            } else {
                self.pay(
                    sheet,
                    caller,
                    challenged,
                    r.dispute,
                    "dead-hand call not upheld",
                );
            }
        }
    }

    /// Returns, per seat, whether its gains are void (a wrong dead-hand caller).
    fn score_points(&self, r: &PointsRules, sheet: &mut Sheet) -> Vec<bool> {
        let n = self.seats.len();
        let mut zeroed = vec![false; n];
        if r.wrong_caller_scores_zero {
            for &(caller, _, upheld) in &self.disputes {
                if !upheld {
                    zeroed[caller] = true;
                }
            }
        }
        match (self.winner, &self.line) {
            (Some(w), Some(line)) => {
                sheet.add(
                    w,
                    format!("hand {}: {}", line.id, line.value),
                    line.value as i64,
                );
                let won_by = self.won_by.unwrap_or(WonBy::SelfPick);
                let self_picked = match won_by {
                    WonBy::SelfPick | WonBy::Heavenly | WonBy::Earthly => true,
                    WonBy::JokerExchange => r.joker_exchange_is_self_pick,
                    WonBy::Discard => false,
                };
                if self_picked && r.self_pick != 0 {
                    sheet.add(
                        w,
                        format!("self-picked {}", signed(r.self_pick)),
                        r.self_pick,
                    );
                }
                if won_by == WonBy::JokerExchange && r.joker_exchange != 0 {
                    sheet.add(
                        w,
                        format!("joker exchange {}", signed(r.joker_exchange)),
                        r.joker_exchange,
                    );
                }
                if line.jokerless && !line.singles_and_pairs && r.jokerless != 0 {
                    sheet.add(w, format!("jokerless {}", signed(r.jokerless)), r.jokerless);
                }
                if line.exposures == 0 && !line.concealed && r.no_exposures != 0 {
                    sheet.add(
                        w,
                        format!("no exposures {}", signed(r.no_exposures)),
                        r.no_exposures,
                    );
                }
                if let Some(d) = self.discarder {
                    match r.misnamed_discard {
                        Some(p) if self.misnamed => {
                            sheet.add(
                                d,
                                format!(
                                    "misnamed the winning discard {}",
                                    signed(p.saturating_neg())
                                ),
                                p.saturating_neg(),
                            );
                        }
                        _ => {
                            let p = &r.discarder;
                            let penalty = if line.quints && line.exposures >= 2 {
                                p.two_or_more_on_quints
                            } else if line.exposures >= 3 {
                                p.three_or_more
                            } else if line.exposures == 2 {
                                p.two_exposures
                            } else {
                                p.up_to_one_exposure
                            };
                            sheet.add(
                                d,
                                format!(
                                    "discarded the winning tile (winner made {} exposure{}) {}",
                                    line.exposures,
                                    if line.exposures == 1 { "" } else { "s" },
                                    signed(penalty.saturating_neg())
                                ),
                                penalty.saturating_neg(),
                            );
                        }
                    }
                }
            }
            _ => {
                for i in 0..n {
                    if self.dead[i] {
                        sheet.add(i, "wall game, dead hand: 0".into(), 0);
                    } else {
                        sheet.add(
                            i,
                            format!("wall game, hand alive {}", signed(r.wall_alive)),
                            r.wall_alive,
                        );
                    }
                }
            }
        }
        zeroed
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_agree_with_the_json_names() {
        for o in [Outcome::Mahjong, Outcome::Wall, Outcome::Redeal] {
            assert_eq!(serde_json::to_value(o).unwrap(), o.as_str());
        }
        for w in [
            WonBy::SelfPick,
            WonBy::Discard,
            WonBy::JokerExchange,
            WonBy::Heavenly,
            WonBy::Earthly,
        ] {
            assert_eq!(serde_json::to_value(w).unwrap(), w.as_str());
        }
    }

    fn discard_win() -> GameResult {
        serde_json::from_value(serde_json::json!({
            "seats": ["E", "S", "W", "N"], "outcome": "mahjong", "winner": "E",
            "hand": "F F 2B 2B J 2B 4C 4C 6C 6C 8B 8B J 8B", "won_by": "discard", "discarder": "S"
        }))
        .unwrap()
    }

    #[test]
    fn knobs_beyond_the_bounds_are_refused_naming_the_knob() {
        let spec: RulesetSpec =
            serde_json::from_value(serde_json::json!({"kind": "money", "discarder": 10_001}))
                .unwrap();
        let e = spec.resolve().unwrap_err().to_string();
        assert!(e.contains("discarder") && e.contains("10000"), "{e}");
        let spec: RulesetSpec =
            serde_json::from_value(serde_json::json!({"kind": "points", "jokerless": -5})).unwrap();
        assert!(
            spec.resolve()
                .unwrap_err()
                .to_string()
                .contains("jokerless")
        );
        let spec: RulesetSpec =
            serde_json::from_value(serde_json::json!({"kind": "money", "discarder": 10_000}))
                .unwrap();
        assert!(spec.resolve().is_ok());
    }

    #[test]
    fn scores_saturate_instead_of_wrapping() {
        let card = crate::rules::builtin::get("demo-2026").unwrap();
        let valid = discard_win().validate(card).unwrap();
        let huge = Ruleset::Money {
            name: None,
            rules: MoneyRules {
                discarder: i64::MAX,
                others_on_discard: i64::MAX,
                ..MoneyRules::default()
            },
        };
        let report = valid.score(&huge);
        let east = report.scores.0.iter().find(|(s, _)| s == "E").unwrap().1;
        let south = report.scores.0.iter().find(|(s, _)| s == "S").unwrap().1;
        assert_eq!(east, i64::MAX);
        assert!(south < 0, "the discarder pays, however much: {south}");
    }
}
