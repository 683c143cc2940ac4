//! What a game comes to: its [`Outcome`], its [`Result`] and how the winner was decided.
//!
//! Owns the plain record of one game that the engine hands to the runner, the statistics
//! and the reports, and that settling `win`/`lose` marks forces.

use crate::ids::ReasonId;
use crate::state::MAX_FACTIONS;

/// How a game's winner was decided.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Decider {
    /// The top score was not tied (or the game was a draw).
    Score,
    /// A link of the tie-break chain separated the top faction (index into the chain).
    Link(u8),
    /// The tie at the top survived the chain: a shared win.
    Shared,
    /// A `win`/`lose` rule decided (win statement, last one standing, last team).
    Rule,
}

/// The result of a game.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Result {
    /// One winner.
    Win(u8),
    /// Several factions share first place (bit mask).
    Shared(u32),
    /// Nobody wins: a draw.
    Draw,
    /// Nobody wins and every faction loses.
    Nobody,
}

/// Everything the statistics need from one game.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Outcome {
    /// End reason id.
    pub reason: ReasonId,
    /// Rounds played (the round in which the game ended).
    pub rounds: u32,
    /// Final score of each faction.
    pub scores: [i64; MAX_FACTIONS],
    /// Final rank of each faction, 1-based; tied factions share a rank.
    pub ranks: [u8; MAX_FACTIONS],
    /// Who won.
    pub result: Result,
    /// How the winner was decided.
    pub decided_by: Decider,
}

/// No faction leads alone.
pub const NO_LEADER: u8 = u8::MAX;
/// Rounds for which the leader is recorded (the `leader_by_round` table).
pub const LEADER_ROUNDS: usize = 200;
