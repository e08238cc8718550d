//! Matching a hand against a card (rules.md §3).

use serde::Serialize;

use super::InputError;
use super::card::Card;
use super::pattern::Target;
use super::tile::{Counts, Tile, TileError, format_tiles};

/// A set exposed during play: one natural tile repeated, some copies possibly jokers.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub struct Exposure {
    pub tile: Tile,
    pub size: u8,
    pub jokers: u8,
}

impl Exposure {
    /// Reads an exposure from its tiles; `n` (1-based) names it in messages.
    pub fn from_tiles(tiles: &[Tile], n: usize) -> Result<Exposure, InputError> {
        let shown = format_tiles(tiles);
        if !(3..=6).contains(&tiles.len()) {
            return Err(InputError::new(format!(
                "exposure {n} (`{shown}`) has {} tiles; an exposure is a pung, kong, quint or sextet of 3 to 6 tiles",
                tiles.len()
            )));
        }
        let mut naturals = tiles.iter().filter(|t| !t.is_joker());
        let Some(&tile) = naturals.next() else {
            return Err(InputError::new(format!(
                "exposure {n} (`{shown}`) is all jokers; an exposure shows at least one natural tile"
            )));
        };
        if let Some(other) = naturals.find(|&&t| t != tile) {
            return Err(InputError::new(format!(
                "exposure {n} (`{shown}`) mixes {tile} and {other}; an exposure is one tile repeated, jokers allowed"
            )));
        }
        let jokers = tiles.iter().filter(|t| t.is_joker()).count() as u8;
        Ok(Exposure {
            tile,
            size: tiles.len() as u8,
            jokers,
        })
    }

    pub fn naturals(&self) -> u8 {
        self.size - self.jokers
    }

    pub fn tiles(&self) -> Vec<Tile> {
        let mut v = vec![self.tile; self.naturals() as usize];
        v.extend(std::iter::repeat_n(Tile::JOKER, self.jokers as usize));
        v
    }
}

/// Exposures summed up the way matching needs them.
#[derive(Debug, Clone, Default)]
pub struct ExposureSummary {
    pub list: Vec<Exposure>,
    /// Exposed sets as (tile, size), sorted.
    pub sets: Vec<(Tile, u8)>,
    /// Natural exposed tiles per kind.
    pub naturals: Counts,
    /// Exposed set sizes per kind.
    pub sizes: Counts,
    pub jokers: u8,
}

impl ExposureSummary {
    pub fn new(list: Vec<Exposure>) -> ExposureSummary {
        let mut s = ExposureSummary::default();
        for e in &list {
            s.sets.push((e.tile, e.size));
            s.naturals.add(e.tile, e.naturals());
            s.sizes.add(e.tile, e.size);
            s.jokers += e.jokers;
        }
        s.sets.sort();
        s.list = list;
        s
    }

    /// Parses exposures given as tile lists.
    pub fn parse(exposures: &[Vec<Tile>]) -> Result<ExposureSummary, InputError> {
        let list = exposures
            .iter()
            .enumerate()
            .map(|(i, tiles)| Exposure::from_tiles(tiles, i + 1))
            .collect::<Result<Vec<_>, _>>()?;
        Ok(ExposureSummary::new(list))
    }

    /// Whether each exposure can lie on its own set of the target of the same tile and size.
    pub fn fit(&self, target: &Target) -> bool {
        let mut ts = target.sets.iter();
        'outer: for e in &self.sets {
            for t in ts.by_ref() {
                if t == e {
                    continue 'outer;
                }
                if t > e {
                    return false;
                }
            }
            return false;
        }
        true
    }

    pub fn is_empty(&self) -> bool {
        self.list.is_empty()
    }
}

/// A validated hand: 14 tiles and its exposures.
#[derive(Debug, Clone)]
pub struct Hand {
    pub counts: Counts,
    pub exposures: ExposureSummary,
}

impl Hand {
    pub fn new(tiles: &[Tile], exposures: &[Vec<Tile>]) -> Result<Hand, InputError> {
        if tiles.len() != 14 {
            return Err(InputError::new(format!(
                "the hand has {} tiles; a hand has 14",
                tiles.len()
            )));
        }
        let counts = Counts::of(tiles);
        counts
            .check_against_set()
            .map_err(|e: TileError| InputError::new(format!("hand: {e}")))?;
        let exposures = ExposureSummary::parse(exposures)?;
        let mut exposed = exposures.naturals;
        exposed.add(Tile::JOKER, exposures.jokers);
        for t in Tile::all() {
            if exposed.get(t) > counts.get(t) {
                return Err(InputError::new(format!(
                    "the exposures show {} {t} but the hand holds {}; exposed tiles are part of the 14",
                    exposed.get(t),
                    counts.get(t)
                )));
            }
        }
        Ok(Hand { counts, exposures })
    }

    pub fn jokers(&self) -> u8 {
        self.counts.get(Tile::JOKER)
    }
}

/// A line the hand matches, through one of its targets.
#[derive(Debug, Clone)]
pub struct LineMatch {
    pub line: usize,
    pub target: usize,
    /// What each joker stands for, in canonical order.
    pub jokers: Vec<Tile>,
}

/// A line the hand comes close to.
#[derive(Debug, Clone)]
pub struct Near {
    pub line: usize,
    pub target: usize,
    /// Tiles the hand lacks for this target (a missing set tile may also be a joker).
    pub needs: Vec<Tile>,
    /// Why the line fails even when no tile is missing.
    pub reason: Option<String>,
}

/// The answer to "does this hand win?".
#[derive(Debug, Clone)]
pub struct Check {
    pub matches: Vec<LineMatch>,
    /// Index into `matches` of the best line.
    pub best: Option<usize>,
    pub nearest: Vec<Near>,
    pub jokerless: bool,
    pub exposures: usize,
}

/// How many nearest lines a losing hand is told about.
const NEAREST: usize = 3;

/// Places the hand on a target; returns what the jokers stand for, or `None` when it doesn't fit.
fn place(target: &Target, hand: &Hand) -> Option<Vec<Tile>> {
    let e = &hand.exposures;
    if !e.fit(target) {
        return None;
    }
    let mut jokers = Vec::new();
    for &t in &target.kinds {
        let rem_hand = hand.counts.get(t) - e.naturals.get(t);
        let rem_slots = target.slots.get(t) - e.sizes.get(t);
        let need = target.need.get(t);
        if rem_hand < need || rem_hand - need > rem_slots {
            return None;
        }
        let concealed_jokers = rem_slots - (rem_hand - need);
        let exposed_jokers: u8 = e
            .list
            .iter()
            .filter(|x| x.tile == t)
            .map(|x| x.jokers)
            .sum();
        jokers.extend(std::iter::repeat_n(
            t,
            (concealed_jokers + exposed_jokers) as usize,
        ));
    }
    Some(jokers)
}

/// How many tiles the hand lacks to make the target, ignoring exposures: the definition that
/// `Card::missing_counts` computes on columns for every target at once (the tests hold them equal).
#[cfg(test)]
fn missing_count(target: &Target, hand: &Hand) -> usize {
    let (mut needs, mut empty_slots) = (0usize, 0usize);
    for &t in &target.kinds {
        let have = hand.counts.get(t);
        let need = target.need.get(t);
        let for_need = have.min(need);
        needs += (need - for_need) as usize;
        empty_slots += (target.slots.get(t) - (have - for_need).min(target.slots.get(t))) as usize;
    }
    needs + empty_slots.saturating_sub(hand.jokers() as usize)
}

/// `missing` as first written: the tests hold the two equal.
#[cfg(test)]
fn missing_plain(target: &Target, hand: &Hand) -> Vec<Tile> {
    let mut needs = Vec::new();
    let mut empty_slots = Vec::new();
    for &t in &target.kinds {
        let have = hand.counts.get(t);
        let need = target.need.get(t);
        let for_need = have.min(need);
        needs.extend(std::iter::repeat_n(t, (need - for_need) as usize));
        let for_sets = (have - for_need).min(target.slots.get(t));
        empty_slots.extend(std::iter::repeat_n(
            t,
            (target.slots.get(t) - for_sets) as usize,
        ));
    }
    let jokers = (hand.jokers() as usize).min(empty_slots.len());
    needs.extend_from_slice(&empty_slots[jokers..]);
    needs.sort();
    needs
}

/// Tiles the hand lacks to make the target, ignoring exposures, in tile order: the naturals it
/// lacks for singles, pairs and runs, and the empty places in sets its jokers do not fill (the
/// jokers fill them in tile order).
fn missing(target: &Target, hand: &Hand) -> Vec<Tile> {
    let mut jokers = hand.jokers();
    let mut needs = Vec::with_capacity(14);
    for &t in &target.kinds {
        let have = hand.counts.get(t);
        let need = target.need.get(t);
        let for_need = have.min(need);
        let for_sets = (have - for_need).min(target.slots.get(t));
        let empty = target.slots.get(t) - for_sets;
        let filled = jokers.min(empty);
        jokers -= filled;
        let lacking = (need - for_need) + (empty - filled);
        needs.extend(std::iter::repeat_n(t, lacking as usize));
    }
    needs
}

impl Card {
    /// Checks a hand against every line of the card.
    pub fn check(&self, hand: &Hand) -> Check {
        let hand_mask = hand.counts.natural_mask();
        let exposed = !hand.exposures.is_empty();
        let mut matches: Vec<LineMatch> = Vec::new();
        let candidates = self.index.candidates(hand_mask, self.targets.len());
        for (w, &word) in candidates.iter().enumerate() {
            let mut bits = word;
            while bits != 0 {
                let ti = w * 64 + bits.trailing_zeros() as usize;
                bits &= bits - 1;
                let li = self.targets[ti].line;
                // One match per line: its first target that fits.
                if matches.last().is_some_and(|m| m.line == li) {
                    continue;
                }
                if self.lines[li].concealed && exposed {
                    continue;
                }
                if let Some(jokers) = place(&self.targets[ti], hand) {
                    matches.push(LineMatch {
                        line: li,
                        target: ti,
                        jokers,
                    });
                }
            }
        }
        let mut best: Option<usize> = None;
        for (i, m) in matches.iter().enumerate() {
            if best.is_none_or(|b| self.lines[m.line].value > self.lines[matches[b].line].value) {
                best = Some(i);
            }
        }
        let nearest = if matches.is_empty() {
            self.nearest(hand)
        } else {
            Vec::new()
        };
        Check {
            best,
            matches,
            nearest,
            jokerless: hand.jokers() == 0,
            exposures: hand.exposures.list.len(),
        }
    }

    /// How many tiles the hand lacks for each target, ignoring exposures (`missing_count` for
    /// every target at once): per target, the natural tiles it lacks for singles, pairs and runs,
    /// or all the tiles it lacks less its jokers, whichever is more. Computed a column at a time
    /// over the kinds the hand holds, sixteen targets to an instruction.
    fn missing_counts(&self, hand: &Hand) -> Vec<u8> {
        const BLOCK: usize = crate::rules::card::Columns::BLOCK;
        let cols = &self.columns;
        let n = cols.stride;
        // The kinds the hand holds (14 tiles: at most 14 kinds), as (column start, count).
        let mut kinds = [(0usize, 0u8); 14];
        let mut held = 0;
        for (k, &have) in hand.counts.0.iter().enumerate() {
            if have > 0 && k != Tile::JOKER.index() && held < kinds.len() {
                kinds[held] = (k * n, have);
                held += 1;
            }
        }
        let kinds = &kinds[..held];
        let free = 14u8.saturating_sub(hand.jokers());
        let mut counts = vec![0u8; n];
        for (block, (out, sums)) in counts
            .chunks_exact_mut(BLOCK)
            .zip(cols.need_sum.chunks_exact(BLOCK))
            .enumerate()
        {
            let start = block * BLOCK;
            let mut need = [0u8; BLOCK];
            let mut all = [0u8; BLOCK];
            for &(at, have) in kinds {
                let col_need: &[u8; BLOCK] = cols.need[at + start..at + start + BLOCK]
                    .try_into()
                    .expect("a whole block");
                let col_all: &[u8; BLOCK] = cols.total[at + start..at + start + BLOCK]
                    .try_into()
                    .expect("a whole block");
                for i in 0..BLOCK {
                    need[i] += col_need[i].min(have);
                    all[i] += col_all[i].min(have);
                }
            }
            for i in 0..BLOCK {
                out[i] = (sums[i] - need[i]).max(free.saturating_sub(all[i]));
            }
        }
        counts
    }

    /// The `NEAREST` lines the hand comes closest to: per line its first target missing the
    /// fewest tiles, lines ranked by that count (one more when the line fails for another
    /// reason), then by card order.
    fn nearest(&self, hand: &Hand) -> Vec<Near> {
        let exposed = !hand.exposures.is_empty();
        let counts = self.missing_counts(hand);
        // (key, line, target), best first; at most NEAREST.
        let mut top: Vec<(usize, usize, usize)> = Vec::with_capacity(NEAREST + 1);
        for (li, line) in self.lines.iter().enumerate() {
            let bar = if top.len() == NEAREST {
                top[NEAREST - 1].0
            } else {
                usize::MAX
            };
            let line_counts = &counts[line.targets.clone()];
            let Some(fewest) = line_counts.iter().copied().min() else {
                continue;
            };
            let count = fewest as usize;
            if count >= bar {
                continue;
            }
            let first = line_counts.iter().position(|&c| c == fewest).unwrap_or(0);
            let ti = line.targets.start + first;
            let failing =
                (line.concealed && exposed) || !hand.exposures.fit(&self.targets[ti]) || count == 0;
            let key = count + usize::from(failing);
            if key >= bar {
                continue;
            }
            let at = top.partition_point(|(k, _, _)| *k <= key);
            top.insert(at, (key, li, ti));
            top.truncate(NEAREST);
        }
        top.into_iter()
            .map(|(_, li, ti)| {
                let line = &self.lines[li];
                let needs = missing(&self.targets[ti], hand);
                let reason = if line.concealed && exposed {
                    Some("the line is concealed: it takes no exposures".to_string())
                } else if !hand.exposures.fit(&self.targets[ti]) {
                    Some(
                        "the exposures do not lie on sets of the line of the same tile and size"
                            .into(),
                    )
                } else if needs.is_empty() {
                    Some(
                        "the jokers would have to sit in a single, a pair or a run of singles"
                            .into(),
                    )
                } else {
                    None
                };
                Near {
                    line: li,
                    target: ti,
                    needs,
                    reason,
                }
            })
            .collect()
    }
}

/// One matching line as the CLI and the API report it.
#[derive(Debug, Clone, Serialize)]
pub struct MatchReport {
    pub id: String,
    pub section: String,
    pub value: u32,
    pub jokerless: bool,
    pub singles_and_pairs: bool,
    pub exposures: usize,
    pub quints: bool,
    pub concealed: bool,
    /// The pattern alternative that matched, as written on the card.
    pub pattern: String,
    pub note: Option<String>,
    /// The 14 tiles of the target the hand was laid on.
    pub target: Vec<&'static str>,
    /// Colour letter → suit (B, C, D); `_` is the implicit colour.
    pub suits: std::collections::BTreeMap<String, String>,
    /// How far the numbers moved from the card as written.
    pub shift: i8,
    /// Wind letter → wind, for lines whose winds are variables.
    pub winds: std::collections::BTreeMap<String, String>,
    /// What each joker stands for.
    pub jokers: Vec<&'static str>,
}

/// A near miss as reported.
#[derive(Debug, Clone, Serialize)]
pub struct NearReport {
    pub id: String,
    pub section: String,
    pub value: u32,
    pub concealed: bool,
    pub pattern: String,
    /// How many tiles the hand is missing for this line.
    pub missing: usize,
    /// The tiles it lacks (a missing tile of a set may also be a joker).
    pub needs: Vec<&'static str>,
    pub target: Vec<&'static str>,
    pub reason: Option<String>,
}

/// The whole answer to a hand check, as the CLI and the API print it.
#[derive(Debug, Clone, Serialize)]
pub struct CheckReport {
    pub winning: bool,
    pub best: Option<MatchReport>,
    pub matches: Vec<MatchReport>,
    pub nearest: Vec<NearReport>,
}

fn strings(tiles: &[Tile]) -> Vec<&'static str> {
    tiles.iter().map(|t| t.name()).collect()
}

impl Card {
    pub fn match_report(&self, m: &LineMatch, check: &Check) -> MatchReport {
        let line = &self.lines[m.line];
        let t = &self.targets[m.target];
        MatchReport {
            id: line.id.clone(),
            section: line.section.clone(),
            value: line.value,
            jokerless: check.jokerless,
            singles_and_pairs: t.singles_and_pairs,
            exposures: check.exposures,
            quints: t.quints,
            concealed: line.concealed,
            pattern: line.patterns[t.alternative].clone(),
            note: line.note.clone(),
            target: strings(&t.tiles),
            suits: t
                .suits
                .iter()
                .map(|(c, s)| (c.to_string(), s.letter().to_string()))
                .collect(),
            shift: t.shift,
            winds: t
                .winds
                .iter()
                .map(|(c, w)| (c.to_string(), w.letter().to_string()))
                .collect(),
            jokers: strings(&m.jokers),
        }
    }

    pub fn check_report(&self, check: &Check) -> CheckReport {
        let matches: Vec<MatchReport> = check
            .matches
            .iter()
            .map(|m| self.match_report(m, check))
            .collect();
        CheckReport {
            winning: !matches.is_empty(),
            best: check.best.map(|b| matches[b].clone()),
            nearest: check
                .nearest
                .iter()
                .map(|n| {
                    let line = &self.lines[n.line];
                    let t = &self.targets[n.target];
                    NearReport {
                        id: line.id.clone(),
                        section: line.section.clone(),
                        value: line.value,
                        concealed: line.concealed,
                        pattern: line.patterns[t.alternative].clone(),
                        missing: n.needs.len(),
                        needs: strings(&n.needs),
                        target: strings(&t.tiles),
                        reason: n.reason.clone(),
                    }
                })
                .collect(),
            matches,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::builtin;
    use rand::seq::SliceRandom;
    use rand::{RngExt, SeedableRng};

    #[test]
    fn the_fast_count_is_the_count() {
        let mut wall: Vec<Tile> = Vec::new();
        for t in Tile::all() {
            let copies = if t == Tile::FLOWER || t == Tile::JOKER {
                8
            } else {
                4
            };
            wall.extend(std::iter::repeat_n(t, copies));
        }
        let mut rng = rand::rngs::StdRng::seed_from_u64(16);
        for name in builtin::names() {
            let card = builtin::get(name).unwrap();
            for round in 0..40 {
                wall.shuffle(&mut rng);
                // Every fourth hand holds a target's own tiles, so near misses are covered too.
                let tiles: Vec<Tile> = if round % 4 == 0 {
                    let t = &card.targets[rng.random_range(0..card.targets.len())];
                    let mut v = t.tiles.to_vec();
                    v[0] = wall[0];
                    v
                } else {
                    wall[..14].to_vec()
                };
                let Ok(hand) = Hand::new(&tiles, &[]) else {
                    continue;
                };
                let counts = card.missing_counts(&hand);
                for (ti, &count) in counts.iter().take(card.targets.len()).enumerate() {
                    assert_eq!(
                        count as usize,
                        missing_count(&card.targets[ti], &hand),
                        "{name} target {ti}"
                    );
                    assert_eq!(
                        missing(&card.targets[ti], &hand),
                        missing_plain(&card.targets[ti], &hand),
                        "{name} target {ti}"
                    );
                }
            }
        }
    }
}
