//! Whether a difference in win rate matters: beyond noise is not enough when it is smaller
//! than a practical margin, and an interval that holds 0 is "undecided", not "no change",
//! until it is narrower than the margin.
//!
//! Owns the one classification every reading of a difference uses ([`judge`]), the
//! default margin, and how many games would decide an undecided difference.

use super::Diff;

/// The smallest difference in win rate that matters unless a command is told otherwise
/// (`--margin`): 2 percentage points.
pub const DEFAULT_MARGIN: f64 = 0.02;

/// What a difference's interval says at a margin.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Judgement {
    /// Beyond noise and at least the margin, upward.
    Up,
    /// Beyond noise and at least the margin, downward.
    Down,
    /// Beyond noise, and the whole interval is smaller than the margin.
    Small,
    /// Beyond noise, the estimate smaller than the margin but the interval reaching past
    /// it: more games would tell whether it reaches the margin.
    Unsettled,
    /// Not beyond noise, and the whole interval is within the margin of 0.
    Within,
    /// Not beyond noise, and the interval reaches past the margin: more games would tell.
    Undecided,
}

/// Judges difference `d` at margin `m` (both in proportions).
pub fn judge(d: &Diff, m: f64) -> Judgement {
    if d.low > 0.0 {
        if d.est >= m {
            Judgement::Up
        } else if d.high < m {
            Judgement::Small
        } else {
            Judgement::Unsettled
        }
    } else if d.high < 0.0 {
        if -d.est >= m {
            Judgement::Down
        } else if d.low > -m {
            Judgement::Small
        } else {
            Judgement::Unsettled
        }
    } else if d.low >= -m && d.high <= m {
        Judgement::Within
    } else {
        Judgement::Undecided
    }
}

/// Games that would narrow an interval of half-width `half`, measured on `n` games, to the
/// margin `m` (a half-width shrinks with the square root of the games).
pub fn games_to_decide(n: u64, half: f64, m: f64) -> u64 {
    let ratio = (half / m).powi(2);
    (n as f64 * ratio).ceil().min(1e15) as u64
}

/// The words for an undecided difference: `undecided (±8.1 pp): about 33,000 games per
/// level would narrow it to ±2 pp` (`per` names the unit of `n`, e.g. "per level").
pub fn undecided(d: &Diff, n: u64, m: f64, per: &str) -> String {
    let (width, more) = undecided_parts(d, n, m, per);
    format!("undecided ({width}): {more}")
}

/// The two parts of [`undecided`]'s words: the interval's half-width (`±8.1 pp`) and what
/// would settle it (`about 33,000 games per level would narrow it to ±2 pp`).
pub fn undecided_parts(d: &Diff, n: u64, m: f64, per: &str) -> (String, String) {
    let half = (d.high - d.low) / 2.0;
    (
        format!("±{:.1} pp", 100.0 * half),
        format!(
            "about {} games{per} would narrow it to ±{} pp",
            round_thousands(games_to_decide(n, half, m)),
            pp(m)
        ),
    )
}

/// The margin in percentage points as written: `2`, `0.5`.
pub fn pp(m: f64) -> String {
    let x = 100.0 * m;
    let s = format!("{x:.2}");
    s.trim_end_matches('0').trim_end_matches('.').to_string()
}

/// A count rounded up to two significant digits, with thousands separators: `33,000`.
pub fn round_thousands(n: u64) -> String {
    let unit = 10u64.pow(n.max(1).ilog10().saturating_sub(1));
    super::thousands(n.div_ceil(unit) * unit)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn d(est: f64, low: f64, high: f64) -> Diff {
        Diff { est, low, high }
    }

    #[test]
    fn each_interval_gets_its_judgement() {
        let m = DEFAULT_MARGIN;
        assert_eq!(judge(&d(0.05, 0.03, 0.07), m), Judgement::Up);
        assert_eq!(judge(&d(-0.05, -0.07, -0.03), m), Judgement::Down);
        assert_eq!(judge(&d(0.009, 0.002, 0.016), m), Judgement::Small);
        // Beyond noise, under the margin, but reaching past it: not "under the margin".
        assert_eq!(judge(&d(0.015, 0.005, 0.025), m), Judgement::Unsettled);
        assert_eq!(judge(&d(-0.015, -0.025, -0.005), m), Judgement::Unsettled);
        assert_eq!(judge(&d(0.001, -0.01, 0.012), m), Judgement::Within);
        assert_eq!(judge(&d(0.01, -0.08, 0.10), m), Judgement::Undecided);
    }

    #[test]
    fn an_undecided_difference_says_how_many_games_would_decide_it() {
        // ±8 pp on 2,000 games: (8 / 2)^2 = 16 times the games.
        let words = undecided(&d(0.0, -0.08, 0.08), 2000, 0.02, " per level");
        assert_eq!(
            words,
            "undecided (±8.0 pp): about 32,000 games per level would narrow it to ±2 pp"
        );
        assert_eq!(pp(0.005), "0.5");
        assert_eq!(round_thousands(1234567), "1,300,000");
    }
}
