//! Dead-hand adjudication (rules.md §4).

use serde::Serialize;

use super::InputError;
use super::card::Card;
use super::matching::ExposureSummary;
use super::pattern::Target;
use super::tile::{Counts, Tile};

/// Why a challenged hand is dead.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum DeadReason {
    /// No line of the card fits the exposures.
    NoLine,
    /// The exposures fit only concealed lines.
    Concealed,
    /// Lines fit, but none can still be completed with the tiles left.
    Impossible,
}

/// The engine's verdict on a dead-hand call.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Verdict {
    /// The hand can still be completed; the indexes of the lines that can.
    Alive(Vec<usize>),
    Dead(DeadReason),
}

/// The verdict as the CLI and the API print it.
#[derive(Debug, Clone, Serialize)]
pub struct VerdictReport {
    pub verdict: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reason: Option<DeadReason>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub lines: Option<Vec<String>>,
}

/// What is on the table: the challenged seat's exposures and every tile known to be out of play.
pub struct Table {
    exposures: ExposureSummary,
    /// Tiles that can still come to the challenged hand, per kind (jokers included).
    supply: Counts,
}

impl Table {
    pub fn new(exposures: &[Vec<Tile>], out_of_play: &[Tile]) -> Result<Table, InputError> {
        let exposures = ExposureSummary::parse(exposures)?;
        let mut seen = Counts::of(out_of_play);
        for t in Tile::all() {
            seen.add(t, exposures.naturals.get(t));
        }
        seen.add(Tile::JOKER, exposures.jokers);
        let mut supply = Counts::default();
        for t in Tile::all() {
            let (used, max) = (seen.get(t), t.copies_in_set());
            if used > max {
                return Err(InputError::new(format!(
                    "{used} {t} are exposed or out of play, but a set holds only {max}"
                )));
            }
            supply.add(t, max - used);
        }
        Ok(Table { exposures, supply })
    }

    /// Whether the target can still be completed from the tiles that can come.
    fn completable(&self, target: &Target) -> bool {
        let mut jokers_needed = 0u32;
        for &t in &target.kinds {
            let need = target.need.get(t);
            let supply = self.supply.get(t);
            if need > supply {
                return false;
            }
            let open_slots = target.slots.get(t) - self.exposures.sizes.get(t);
            jokers_needed += open_slots.saturating_sub(supply - need) as u32;
        }
        jokers_needed <= self.supply.get(Tile::JOKER) as u32
    }
}

impl Card {
    /// Decides a dead-hand call from what is on the table.
    pub fn adjudicate(&self, table: &Table) -> Verdict {
        let exposed = !table.exposures.is_empty();
        let (mut fits_open, mut fits_concealed) = (false, false);
        let mut alive = Vec::new();
        for (li, line) in self.lines.iter().enumerate() {
            let mut completable = false;
            for target in &self.targets[line.targets.clone()] {
                if !table.exposures.fit(target) {
                    continue;
                }
                if line.concealed && exposed {
                    fits_concealed = true;
                    continue;
                }
                fits_open = true;
                if table.completable(target) {
                    completable = true;
                    break;
                }
            }
            if completable {
                alive.push(li);
            }
        }
        if !alive.is_empty() {
            Verdict::Alive(alive)
        } else if fits_open {
            Verdict::Dead(DeadReason::Impossible)
        } else if fits_concealed {
            Verdict::Dead(DeadReason::Concealed)
        } else {
            Verdict::Dead(DeadReason::NoLine)
        }
    }

    pub fn verdict_report(&self, verdict: &Verdict) -> VerdictReport {
        match verdict {
            Verdict::Alive(lines) => VerdictReport {
                verdict: "alive",
                reason: None,
                lines: Some(lines.iter().map(|&l| self.lines[l].id.clone()).collect()),
            },
            Verdict::Dead(reason) => VerdictReport {
                verdict: "dead",
                reason: Some(*reason),
                lines: None,
            },
        }
    }
}
