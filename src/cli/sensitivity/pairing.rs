//! What pairing every step with the baseline's games was worth to `sensitivity`.

use super::Sensitivity;

/// What pairing every step with the baseline's games was worth, in one line: `Pairing
/// made each step as precise as about 38,000 independent games (settings.p 3.1 times the
/// games, settings.q 12 times).`; `None` when no step moved any faction's wins.
pub(super) fn pairing_line(s: &Sensitivity) -> Option<String> {
    let each: Vec<(String, f64)> = (s.effects.iter())
        .filter_map(|e| Some((e.param.clone(), e.variance_reduction?)))
        .collect();
    if each.is_empty() {
        return None;
    }
    let mean = each.iter().map(|(_, r)| r).sum::<f64>() / each.len() as f64;
    let by: Vec<String> = (each.iter())
        .map(|(p, r)| format!("{p} {} times the games", figures(*r)))
        .collect();
    Some(format!(
        "Pairing every step with the baseline's games made it as precise as about {} independent games ({}).",
        crate::report::thousands(crate::compare::two_figures(s.games as f64 * mean)),
        by.join(", ")
    ))
}

/// A ratio to two significant figures: `3.1`, `12`, `140`.
fn figures(r: f64) -> String {
    if r < 10.0 {
        format!("{r:.1}")
    } else {
        crate::compare::two_figures(r).to_string()
    }
}
