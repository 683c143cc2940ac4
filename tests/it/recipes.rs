//! The scale-out recipes of `examples/scale-out` as far as this machine allows: the GitHub
//! Actions workflow and the Kubernetes manifests are parsed as YAML, and every command they
//! hold runs here with the index variables put in (the matrix value, the completion index),
//! the artifacts and the shared volume played by folders, and this build's `vpsim` on the
//! PATH; the merged result must equal one whole run. (The Slurm recipe runs on a real
//! cluster: `scripts/slurm_test.sh`, from `.ci/run`.)

use std::path::{Path, PathBuf};
use std::process::Command;

use yaml_rust2::{Yaml, YamlLoader};

use crate::util::{fresh_temp_dir, vpsim, without_performance};

const RECIPES: &str = "examples/scale-out";
const KEY: &str = "recipe-test-key";

/// The YAML documents of a recipe file.
fn load(name: &str) -> Vec<Yaml> {
    let text = std::fs::read_to_string(Path::new(RECIPES).join(name)).unwrap();
    YamlLoader::load_from_str(&text).unwrap_or_else(|e| panic!("{name}: {e}"))
}

/// A folder whose only file is a `vpsim` link to this build's binary, for the PATH.
fn bin_dir(name: &str) -> PathBuf {
    let d = fresh_temp_dir(name);
    std::os::unix::fs::symlink(env!("CARGO_BIN_EXE_vpsim"), d.join("vpsim")).unwrap();
    d
}

/// The PATH with `bin` first.
fn path_with(bin: &Path) -> String {
    format!(
        "{}:{}",
        bin.display(),
        std::env::var("PATH").unwrap_or_default()
    )
}

/// Runs `cmd`, panicking with its output when it fails; its stdout.
fn ok(mut cmd: Command, what: &str) -> Vec<u8> {
    let out = cmd.output().unwrap();
    assert!(
        out.status.success(),
        "{what} failed: {}\n{}",
        String::from_utf8_lossy(&out.stderr),
        String::from_utf8_lossy(&out.stdout)
    );
    out.stdout
}

/// Checks that `merged` (a merge's `--json` output) is one whole run of `scenario` with a
/// report folder's usage counts, bit for bit bar `performance`; on a difference, names the
/// fields that differ (the documents are too long to show).
fn assert_one_run(merged: &[u8], scenario: &str, games: &str, seed: &str) {
    let out = vpsim()
        .args([
            "run", scenario, "--games", games, "--seed", seed, "--usage", "--json",
        ])
        .output()
        .unwrap();
    let (a, b) = (
        without_performance(merged),
        without_performance(&out.stdout),
    );
    let (a, b) = (a.as_object().unwrap(), b.as_object().unwrap());
    let differ: Vec<&String> = a
        .keys()
        .chain(b.keys())
        .filter(|k| a.get(*k) != b.get(*k))
        .collect();
    assert!(
        differ.is_empty(),
        "the merged result differs from one run in {differ:?}"
    );
}

/// `text` with the workflow expressions this test plays put in; any other `${{ }}` is a
/// recipe this test does not understand, and fails it.
fn expand(text: &str, k: Option<&str>, key: &str) -> String {
    let mut s = text.replace("${{ secrets.VPSIM_SHARD_KEY }}", key);
    if let Some(k) = k {
        s = s.replace("${{ matrix.k }}", k);
    }
    assert!(
        !s.contains("${{"),
        "an expression the test does not play: {s}"
    );
    s
}

/// A GitHub Actions job's `env` (expressions put in).
fn job_env(job: &Yaml, k: Option<&str>, key: &str) -> Vec<(String, String)> {
    job["env"]
        .as_hash()
        .map(|h| {
            h.iter()
                .map(|(n, v)| {
                    (
                        n.as_str().unwrap().to_string(),
                        expand(v.as_str().unwrap(), k, key),
                    )
                })
                .collect()
        })
        .unwrap_or_default()
}

/// A workspace as `actions/checkout` leaves it, as far as vpsim needs: the scenarios.
fn workspace(name: &str) -> PathBuf {
    let d = fresh_temp_dir(name);
    let scenarios = std::fs::canonicalize("scenarios").unwrap();
    std::os::unix::fs::symlink(scenarios, d.join("scenarios")).unwrap();
    d
}

/// Plays one job's steps in `ws`: `run` steps in bash (as the runner does, `bash -e`), an
/// install step skipped (this build is on the PATH), artifacts kept in `artifacts/NAME`.
fn play_job(
    job: &Yaml,
    ws: &Path,
    env: &[(String, String)],
    k: Option<&str>,
    key: &str,
    bin: &Path,
    artifacts: &Path,
) -> Result<(), String> {
    for step in job["steps"].as_vec().unwrap() {
        if let Some(run) = step["run"].as_str() {
            if run.starts_with("cargo install") {
                assert_eq!(step["name"].as_str(), Some("Install vpsim"));
                continue;
            }
            let out = Command::new("bash")
                .args(["-e", "-c", &expand(run, k, key)])
                .current_dir(ws)
                .envs(env.iter().map(|(a, b)| (a, b)))
                .env("PATH", path_with(bin))
                .output()
                .unwrap();
            if !out.status.success() {
                return Err(String::from_utf8_lossy(&out.stderr).into_owned());
            }
            continue;
        }
        let uses = step["uses"].as_str().unwrap();
        let with = &step["with"];
        if uses.starts_with("actions/upload-artifact") {
            if step["if"].as_str() == Some("always()") {
                continue; // The report's upload: what it names is checked by the caller.
            }
            let name = expand(with["name"].as_str().unwrap(), k, key);
            let path = ws.join(expand(with["path"].as_str().unwrap(), k, key));
            let dest = artifacts.join(&name);
            std::fs::create_dir_all(&dest).unwrap();
            // One file uploads as the artifact's only file, at its root.
            std::fs::copy(&path, dest.join(path.file_name().unwrap())).unwrap();
        } else if uses.starts_with("actions/download-artifact") {
            let prefix = with["pattern"].as_str().unwrap().trim_end_matches('*');
            let into = ws.join(with["path"].as_str().unwrap());
            for a in std::fs::read_dir(artifacts).unwrap() {
                let a = a.unwrap();
                let name = a.file_name().into_string().unwrap();
                if name.starts_with(prefix) {
                    let dest = into.join(&name);
                    std::fs::create_dir_all(&dest).unwrap();
                    for f in std::fs::read_dir(a.path()).unwrap() {
                        let f = f.unwrap();
                        std::fs::copy(f.path(), dest.join(f.file_name())).unwrap();
                    }
                }
            }
        } else {
            assert!(
                uses.starts_with("actions/checkout"),
                "a step the test does not play: {uses}"
            );
        }
    }
    Ok(())
}

#[test]
fn the_github_actions_recipe_merges_to_one_run_and_checks_it() {
    let doc = &load("github-actions.yml")[0];
    let bin = bin_dir("gha-bin");
    let artifacts = fresh_temp_dir("gha-artifacts");
    // The workflow's settings, with fewer games.
    let mut env = job_env(doc, None, KEY);
    let get =
        |env: &[(String, String)], n: &str| env.iter().find(|(a, _)| a == n).unwrap().1.clone();
    let shards: usize = get(&env, "SHARDS").parse().unwrap();
    let games = "20000";
    env.iter_mut()
        .filter(|(n, _)| n == "GAMES")
        .for_each(|(_, v)| *v = games.to_string());
    let shard = &doc["jobs"]["shard"];
    let ks: Vec<String> = shard["strategy"]["matrix"]["k"]
        .as_vec()
        .unwrap()
        .iter()
        .map(|k| k.as_i64().unwrap().to_string())
        .collect();
    let expected: Vec<String> = (1..=shards).map(|k| k.to_string()).collect();
    assert_eq!(ks, expected, "the matrix must be 1..=SHARDS");
    for k in &ks {
        let ws = workspace(&format!("gha-shard-{k}"));
        let mut e = env.clone();
        e.extend(job_env(shard, Some(k), KEY));
        play_job(shard, &ws, &e, Some(k), KEY, &bin, &artifacts).unwrap();
    }
    let merge = &doc["jobs"]["merge"];
    assert_eq!(merge["needs"].as_str(), Some("shard"));
    let ws = workspace("gha-merge");
    let mut e = env.clone();
    e.extend(job_env(merge, None, KEY));
    play_job(merge, &ws, &e, None, KEY, &bin, &artifacts).unwrap();
    let merged = std::fs::read(ws.join("merged.json")).unwrap();
    assert_one_run(&merged, &get(&env, "SCENARIO"), games, &get(&env, "SEED"));
    assert!(ws.join("checks.xml").is_file());
    assert!(ws.join("merged/report.md").is_file());

    // A missing secret is an empty key: the shard stops at once, naming the variable.
    let ws = workspace("gha-nokey");
    let mut e = env.clone();
    e.extend(job_env(shard, Some("1"), ""));
    let err = play_job(shard, &ws, &e, Some("1"), "", &bin, &artifacts).unwrap_err();
    assert!(err.contains("VPSIM_SHARD_KEY is set but empty"), "{err}");
}

/// The container of a Job document: its command line and its environment, with the secret
/// `KEY`, the shared volume at `data` and the scenarios of this repository.
fn container(job: &Yaml, data: &Path, games: &str) -> (Vec<String>, Vec<(String, String)>) {
    let spec = &job["spec"]["template"]["spec"];
    let c = &spec["containers"][0];
    let mount = c["volumeMounts"][0]["mountPath"].as_str().unwrap();
    let scenarios = std::fs::canonicalize("scenarios").unwrap();
    let mut env = Vec::new();
    for v in c["env"].as_vec().unwrap() {
        let name = v["name"].as_str().unwrap().to_string();
        let value = match v["value"].as_str() {
            Some(_) if name == "GAMES" => games.to_string(),
            Some(s) => s.replacen(mount, &data.display().to_string(), 1).replacen(
                "/scenarios",
                &scenarios.display().to_string(),
                1,
            ),
            None => {
                assert!(!v["valueFrom"]["secretKeyRef"].is_badvalue());
                KEY.to_string()
            }
        };
        env.push((name, value));
    }
    let line = c["command"]
        .as_vec()
        .unwrap()
        .iter()
        .chain(c["args"].as_vec().unwrap())
        .map(|a| a.as_str().unwrap().to_string())
        .collect();
    (line, env)
}

/// Runs a container's command line with `env` and the index variable, if any.
fn run_container(line: &[String], env: &[(String, String)], index: Option<u64>, bin: &Path) {
    let mut cmd = Command::new(&line[0]);
    cmd.args(&line[1..])
        .envs(env.iter().map(|(a, b)| (a, b)))
        .env("PATH", path_with(bin));
    if let Some(i) = index {
        cmd.env("JOB_COMPLETION_INDEX", i.to_string());
    }
    ok(cmd, &format!("the container (index {index:?})"));
}

#[test]
fn the_kubernetes_recipe_merges_to_one_run_and_checks_it() {
    let bin = bin_dir("k8s-bin");
    let data = fresh_temp_dir("k8s-data");
    let games = "16000";
    let docs = load("kubernetes/shards.yaml");
    let job = docs
        .iter()
        .find(|d| d["kind"].as_str() == Some("Job"))
        .unwrap();
    assert_eq!(job["spec"]["completionMode"].as_str(), Some("Indexed"));
    let completions = job["spec"]["completions"].as_i64().unwrap() as u64;
    let (line, env) = container(job, &data, games);
    let setting = |n: &str| env.iter().find(|(a, _)| a == n).unwrap().1.clone();
    assert_eq!(setting("SHARDS"), completions.to_string());
    for i in 0..completions {
        run_container(&line, &env, Some(i), &bin);
    }
    let merge = &load("kubernetes/merge.yaml")[0];
    let (line, merge_env) = container(merge, &data, games);
    run_container(&line, &merge_env, None, &bin);
    let out = PathBuf::from(setting("OUT"));
    let merged = std::fs::read(out.join("merged.json")).unwrap();
    assert_one_run(&merged, &setting("SCENARIO"), games, &setting("SEED"));
}
