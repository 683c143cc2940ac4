//! A tune's report folder: `tune.json`, the chart of the goal metric against the tuned
//! parameters (panels, or one map of the trials for two), and report.md with every trial.

use std::fmt::Write as _;
use std::path::Path;

use super::Args;
use super::answer::chosen;
use crate::error::Result;
use crate::report::charts::{TuneMap, TunePanel};
use crate::tune::Tuned;

/// Writes the folder's files: the JSON `doc`, the chart, and report.md around the terminal
/// table `text`.
pub(super) fn write_page(
    a: &Args,
    model: &crate::Model,
    dir: &Path,
    r: &Tuned,
    doc: &serde_json::Value,
    text: &str,
) -> Result<()> {
    let o = &a.opts;
    super::super::begin_report_with(dir, "tune", &super::super::pretty_json(doc)?)?;
    chart(a, dir, r)?;
    let title = format!("Tune: {}", model.title);
    let mut md =
        super::super::report_header(&title, model, o.seed, o.games, "per variant or point");
    let paths: Vec<&str> = a.param.iter().map(|p| p.path.as_str()).collect();
    let _ = write!(
        md,
        "![Goal metric against the tuned parameters](tune.svg)\n\n```text\n{text}```\n\n## Trials\n\n| trial | {} | goal metric | low | high | vs the best |\n|---|{}---|---|---|---|\n",
        paths.join(" | "),
        "---|".repeat(a.param.len())
    );
    md.push_str(&trial_rows(a, r));
    super::super::write_report(dir, &md, &title)
}

/// The chart: one panel per parameter, or for two parameters one map of the trials, colored
/// by the loss, instead of two panels that each flatten the other parameter into noise. Returns
/// the files written.
fn chart(a: &Args, dir: &Path, r: &Tuned) -> Result<Vec<std::path::PathBuf>> {
    let o = &a.opts;
    let s = &r.s;
    let sub = super::super::chart_subtitle(&a.scenario, o, "per trial");
    let title = format!("Goal metric: {}", a.goal.expr());
    if let [px, py] = &a.param[..] {
        let map = TuneMap {
            axes: [
                (px.path.clone(), (px.lo, px.hi)),
                (py.path.clone(), (py.lo, py.hi)),
            ],
            trials: (s.trials.iter())
                .map(|t| (t.values[0], t.values[1], a.goal.loss(&t.metric)))
                .collect(),
            best: (s.best[0], s.best[1]),
            loss: a.goal.loss_words(),
        };
        return crate::report::charts::write_tune_map(
            dir,
            "tune",
            (&title, &sub),
            &map,
            o.canvas(),
        );
    }
    let (chosen, chosen_key) = chosen(a, r);
    let panels: Vec<TunePanel> = (a.param.iter().enumerate())
        .map(|(i, p)| TunePanel {
            label: p.path.clone(),
            range: (p.lo, p.hi),
            tried: s.trials.iter().map(|t| (t.values[i], t.metric)).collect(),
            chosen: match i {
                0 => chosen.clone(),
                _ => vec![(s.best[i], r.confirmed)],
            },
            chosen_key: chosen_key.clone(),
            band: if i == 0 { r.interval } else { None },
        })
        .collect();
    let target = a.goal.target();
    crate::report::charts::write_tune(dir, "tune", (&title, &sub), target, &panels, o.canvas())
}

/// report.md's table of trials, each marked against the best: within noise when their 95%
/// intervals of the goal's loss overlap the best trial's.
fn trial_rows(a: &Args, r: &Tuned) -> String {
    let mut md = String::new();
    for (i, tr) in r.s.trials.iter().enumerate() {
        let vs = match &r.noise {
            Some(n) if n.best == i => "best",
            Some(n) if n.within.contains(&i) => "within noise",
            Some(_) => "beyond noise",
            None => "",
        };
        let values: Vec<String> = (a.param.iter().zip(&tr.values))
            .map(|(p, x)| p.show(*x))
            .collect();
        let _ = writeln!(
            md,
            "| {} | {} | {:.4} | {:.4} | {:.4} | {vs} |",
            i + 1,
            values.join(" | "),
            tr.metric.est,
            tr.metric.lo,
            tr.metric.hi
        );
    }
    md
}
