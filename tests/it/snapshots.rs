//! Snapshots of what a person reads, whole: the terminal table of `run`, its report.md,
//! `validate`'s listing and a trace with both searchers' findings. A change to any of them
//! shows here as a diff to review (`cargo insta review`, or update the inline text by hand);
//! the other modules check what each part means.
//!
//! Only what varies from run to run is masked: the speed line, compile times, the report
//! folder's path and vpsim's version.

use crate::util::{fresh_temp_dir, vpsim_output};

/// What varies between two identical runs, masked.
fn masked() -> insta::Settings {
    let mut s = insta::Settings::clone_current();
    s.add_filter(r"[\d,]+ games/s on \d+ threads? \([\d.]+ s\)", "[speed]");
    s.add_filter(r"in [\d.]+ ms", "in [time]");
    s.add_filter(r"--out \S+", "--out [dir]");
    s.add_filter(r"\| vpsim \| [\d.]+ \|", "| vpsim | [version] |");
    s
}

/// The standard output of a command that succeeds.
fn stdout_of(args: &[&str]) -> String {
    let out = vpsim_output(args);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

#[test]
fn the_run_table() {
    let text = stdout_of(&["run", "scenarios/race_to_three.toml", "--games", "2000"]);
    masked().bind(|| insta::assert_snapshot!(text, @r#"
    race_to_three — 2,000 games, seed 1
    scenario scenarios/race_to_three.toml (730a00af4b8540f6), intervals are 95% Wilson
    agents: every faction weighted

    why: The contrasts beyond noise, surest first (ranked by the end of each interval nearest zero). Associations under the agents' play, not effects; 95% intervals, those of actions and cards simultaneous over every comparison.
      - Factions each from its own seat (a seat's edge and a faction's are not told apart: run with --rotate-seats), over the fair share (50.0%): First -13.7 pp [-15.8, -11.6]; Second +13.7 pp [+11.6, +15.8]; 2,000 games.

    faction        win [95% CI]         shared    draw  mean rank   score    min   q1  med   q3   max
    First      36.3% [ 34.2%,  38.4%]     0.0%    0.0%       1.64    1.87      0    1    2    3     3
    Second     63.7% [ 61.6%,  65.8%]     0.0%    0.0%       1.36    2.55      0    2    3    3     3

    rank          #1     #2   score sd
    First      36.3%  63.7%       1.03
    Second     63.7%  36.3%       0.80

    length (rounds): mean 6.33, sd 2.43, min 3, q1 5, median 6, q3 8, max 19
      3: 8.2%  4: 16.6%  5: 17.5%  6: 17.6%  7: 14.2%  8: 9.3%  9: 5.9%  10: 4.0%  11: 3.1%  12: 1.4%  13: 0.9%  14: 0.5%  15: 0.4%  16: 0.2%  17: 0.1%  19: 0.1%
    end reasons:
      three                        100.0% [ 99.8%, 100.0%]  condition
    draws   0.0% [  0.0%,   0.2%]   shared wins   0.0% [  0.0%,   0.2%]   nobody wins   0.0% [  0.0%,   0.2%]
    winner decided by (games with a winner):
      score                         92.9% [ 91.7%,  93.9%]
      -table_seat                    7.1% [  6.1%,   8.3%]
    [speed]
    "#));
}

#[test]
fn the_run_report_page() {
    let dir = fresh_temp_dir("snapshots-report");
    let d = dir.to_str().unwrap();
    let args = [
        "run",
        "scenarios/race_to_three.toml",
        "--games",
        "2000",
        "--quiet",
    ];
    stdout_of(&[&args[..], &["--out", d]].concat());
    let page = std::fs::read_to_string(dir.join("report.md")).unwrap();
    masked().bind(|| insta::assert_snapshot!(page, @r#"
    # race\_to\_three

    Reproduce with:

    ```sh
    vpsim run scenarios/race_to_three.toml --games 2000 --quiet --out [dir] --force
    ```

    | | |
    |---|---|
    | vpsim | [version] |
    | scenario | `scenarios/race_to_three.toml` (FNV-1a `730a00af4b8540f6`) |
    | seed | 1 |
    | games | 2,000 |
    | overrides | none |
    | agents | every faction weighted |
    | intervals | 95% Wilson |

    ## Why

    The contrasts beyond noise, surest first (ranked by the end of each interval nearest zero). Associations under the agents' play, not effects; 95% intervals, those of actions and cards simultaneous over every comparison.

    - Factions each from its own seat (a seat's edge and a faction's are not told apart: run with --rotate-seats), over the fair share (50.0%): First -13.7 pp [-15.8, -11.6]; Second +13.7 pp [+11.6, +15.8]; 2,000 games.

    ## Win rates

    ![Win rates](win_rates.png)

    Second wins most often, 63.7% [61.6%, 65.8%]; First least, 36.3% [34.2%, 38.4%]; the gap is beyond noise (the 95% intervals do not overlap). The fair share is 50.0%.

    ## Score distributions

    ![Score distributions](scores.png)

    Mean final scores run from 1.87 (First) to 2.55 (Second); the widest spread (sd) is 1.03.

    ## Rank distributions

    ![Rank distributions](ranks.png)

    Last place (rank 2) goes to First most often, 63.7% [61.6%, 65.8%], beyond noise (its 95% interval is above every other faction's).

    ## Game length

    ![Game length](length.png)

    Games last 6.33 rounds on average (median 6, from 3 to 19).

    ## End reasons

    ![End reasons](end_reasons.png)

    Every game ends by `three` (condition).

    ## Leader by round

    ![Leader by round](leader_by_round.png)

    The sole leader after round 1 goes on to win 77.7% [74.9%, 80.3%] of the time, against a fair share of 50.0%: an early lead pays, beyond noise.

    ## Score race

    ![Score race](score_race.png)

    Feedback: a faction gains +0.002 [-0.012, +0.017] points more in a round after leading (alone or tied) than after trailing, the same faction in the same round compared, pooled over 21,284 gains in 28 (faction, round) pairs, those with at least 2 rounds after leading and 2 after trailing (95% interval): no feedback beyond noise.

    ## Summary

    | faction | win [95% CI] | shared | draw | mean rank | score mean | sd | min | q1 | median | q3 | max |
    |---|---|---|---|---|---|---|---|---|---|---|---|
    | First | 36.3% [34.2%, 38.4%] | 0.0% | 0.0% | 1.64 | 1.87 | 1.03 | 0 | 1 | 2 | 3 | 3 |
    | Second | 63.7% [61.6%, 65.8%] | 0.0% | 0.0% | 1.36 | 2.55 | 0.80 | 0 | 2 | 3 | 3 | 3 |

    Draws 0.0% [0.0%, 0.2%], shared wins 0.0% [0.0%, 0.2%], nobody wins 0.0% [0.0%, 0.2%]. Tables: `summary`, `scores`, `ranks`, `lengths`, `end_reasons`, `tie_breaks`, `points_by_source`, `leader_by_round`, `by_round` (Parquet, beside this file).
    "#));
}

#[test]
fn the_validate_listing() {
    let text = stdout_of(&["validate", "scenarios/race_to_three.toml"]);
    masked().bind(|| insta::assert_snapshot!(text, @r#"
    scenarios/race_to_three.toml: OK (race_to_three, hash 730a00af4b8540f6)
    rounds: 10000 (ages: 1)
    factions (2):
      First, agent weighted
      Second, agent weighted
    state: 1 variable in 2 slots
      vp (faction, 0..=3)
    hidden from each faction (searching agents redraw it in their playouts):
      First: nothing
      Second: nothing
    phases: score (each faction)
    actions: none
    events: none
    end reasons:
      three (checked at round end)
      last_round (last round)
    ranking: by score, then -table_seat, then die
    seats: rotating them can change games: phase score plays its turns in seat order; a formula reads table_seat
    native engine: 7 functions (formulas, statement runs, option scans, end checks, rounds) compiled to machine code in [time]
      rounds are played as machine code
    tweakable with --set PATH=VALUE (7 values, current values shown):
      scenario.rounds=10000
      settings.p=0.3
      settings.q=0.4
      faction.First.settings.chance=p   (a formula: a number given with --set replaces it)
      faction.Second.settings.chance=q   (a formula: a number given with --set replaces it)
      var.vp.min=0
      var.vp.max=3
    "#));
}

#[test]
fn a_trace_with_both_searchers() {
    let args = ["trace", "tests/data/safe_or_risky.toml", "--game", "2"];
    let agents = ["--agent", "A=lookahead:4", "--agent", "B=mcts:8"];
    let text = stdout_of(&[&args[..], &agents].concat());
    masked().bind(|| insta::assert_snapshot!(text, @r#"
    game 2 of seed 1: safe_or_risky
    seats: 1 A, 2 B
    round 1 (age 1)
     phase turn
      A: safe
        lookahead (4 playouts an option, win): safe 0.750, risky 0.500 [8 playouts, 24 rounds played]
        A.vp += 1 -> 1 (was 0) [line 18]
      B: safe
        mcts (8 iterations, win): safe 5 visits 0.400, risky 3 visits 0.333 [8 playouts, 24 rounds played]
        B.vp += 1 -> 1 (was 0) [line 18]
    round 2 (age 1)
     phase turn
      A: safe
        lookahead (4 playouts an option, win): safe 1.000, risky 0.500 [8 playouts, 16 rounds played]
        A.vp += 1 -> 2 (was 1) [line 18]
      B: safe
        mcts (8 iterations, win): safe 7 visits 0.429, risky 5 visits 0.200 [8 playouts, 16 rounds played]
        B.vp += 1 -> 2 (was 1) [line 18]
    round 3 (age 1)
     phase turn
      A: safe
        lookahead (4 playouts an option, win): safe 1.000, risky 0.000 [8 playouts, 8 rounds played]
        A.vp += 1 -> 3 (was 2) [line 18]
      B: safe
        mcts (8 iterations, win): safe 7 visits 0.286, risky 7 visits 0.286 [8 playouts, 8 rounds played]
        B.vp += 1 -> 3 (was 2) [line 18]
    game ends in round 3: last_round
    final ranking: 1. A (3), 2. B (3)
    tie at the top broken by `-seat`
    winner: A
    "#));
}
