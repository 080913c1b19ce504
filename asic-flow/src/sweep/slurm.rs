//! Sweeps on a Slurm cluster: a job array with one point per task (each runs
//! `accelgen sweep run-point DIR INDEX`, logs in `DIR/logs/%A_%a.out`) and a collect job
//! depending on the whole array (`afterany`) that merges the result files as a local run
//! does. The sweep directory must be on a filesystem the nodes share. `status` reads the
//! result files and, where Slurm's clients are installed, the jobs' states.

use super::{read_json, to_json, write_file, SweepError};
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};
use std::process::Command;

/// How to submit.
#[derive(Clone, Debug, Default)]
pub struct SlurmOptions {
    pub partition: Option<String>,
    /// Array tasks running at once (`%K`); all at once when `None`.
    pub max_parallel: Option<usize>,
    /// The accelgen executable the tasks run (an absolute path on the shared filesystem).
    pub accelgen: PathBuf,
}

/// The submitted jobs, as `DIR/slurm.json` records them.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Submitted {
    pub array_job: String,
    pub collect_job: String,
}

/// `s` quoted for the shell.
fn quote(s: &str) -> String {
    format!("'{}'", s.replace('\'', r"'\''"))
}

fn path_text(p: &Path) -> Result<String, SweepError> {
    p.to_str()
        .map(str::to_string)
        .ok_or_else(|| SweepError::Slurm(format!("path {} is not UTF-8", p.display())))
}

/// A batch script: `#SBATCH` lines, then `accelgen sweep ARGS`.
fn script(directives: &[String], accelgen: &str, args: &str) -> String {
    let mut s = String::from("#!/bin/sh\n");
    for d in directives {
        s.push_str(&format!("#SBATCH {d}\n"));
    }
    s.push_str(&format!("exec {} sweep {args}\n", quote(accelgen)));
    s
}

/// `sbatch --parsable ARGS SCRIPT`: the job id.
fn sbatch(args: &[String], script: &Path) -> Result<String, SweepError> {
    let out = Command::new("sbatch")
        .arg("--parsable")
        .args(args)
        .arg(script)
        .output()
        .map_err(|e| SweepError::Slurm(format!("cannot run sbatch ({e}); is Slurm installed?")))?;
    if !out.status.success() {
        return Err(SweepError::Slurm(format!(
            "sbatch {} failed: {}",
            script.display(),
            String::from_utf8_lossy(&out.stderr).trim()
        )));
    }
    let text = String::from_utf8_lossy(&out.stdout);
    // `--parsable` prints `id` or `id;cluster`.
    let id = text.trim().split(';').next().unwrap_or("").to_string();
    if id.is_empty() || !id.chars().all(|c| c.is_ascii_digit()) {
        return Err(SweepError::Slurm(format!(
            "sbatch printed no job id: {text:?}"
        )));
    }
    Ok(id)
}

/// Writes the array and collect scripts for prepared sweep directory `dir` (with
/// `points` points, an absolute path) and submits them.
pub fn submit(dir: &Path, points: usize, opts: &SlurmOptions) -> Result<Submitted, SweepError> {
    if points == 0 {
        return Err(SweepError::Slurm("the sweep has no points".into()));
    }
    let d = path_text(dir)?;
    let exe = path_text(&opts.accelgen)?;
    let mut common = vec!["--job-name=accelgen-sweep".to_string()];
    if let Some(p) = &opts.partition {
        common.push(format!("--partition={p}"));
    }
    let limit = opts
        .max_parallel
        .map(|k| format!("%{k}"))
        .unwrap_or_default();
    let mut array = common.clone();
    array.push(format!("--array=0-{}{limit}", points - 1));
    array.push(format!("--output={d}/logs/%A_%a.out"));
    let array_sh = dir.join("slurm-array.sh");
    let run = format!("run-point {} \"$SLURM_ARRAY_TASK_ID\"", quote(&d));
    write_file(&array_sh, script(&array, &exe, &run).as_bytes())?;
    let mut collect = common;
    collect.push(format!("--output={d}/logs/collect_%j.out"));
    let collect_sh = dir.join("slurm-collect.sh");
    write_file(
        &collect_sh,
        script(&collect, &exe, &format!("collect {}", quote(&d))).as_bytes(),
    )?;
    let array_job = sbatch(&[], &array_sh)?;
    let collect_job = sbatch(&[format!("--dependency=afterany:{array_job}")], &collect_sh)?;
    let submitted = Submitted {
        array_job,
        collect_job,
    };
    write_file(&dir.join("slurm.json"), to_json(&submitted).as_bytes())?;
    Ok(submitted)
}

/// The jobs submitted for sweep directory `dir`, if it was submitted.
pub fn submitted(dir: &Path) -> Option<Submitted> {
    read_json(&dir.join("slurm.json")).ok()
}

/// What Slurm says of `jobs` (`squeue`, then `sacct` for finished ones), one line per job
/// or array task; `None` when neither client is installed.
pub fn job_states(jobs: &Submitted) -> Option<String> {
    let ids = format!("{},{}", jobs.array_job, jobs.collect_job);
    let queued = Command::new("squeue")
        .args(["-h", "-j", &ids, "-o", "%i %T %R"])
        .output()
        .ok()
        .filter(|o| o.status.success())
        .map(|o| String::from_utf8_lossy(&o.stdout).into_owned());
    let accounted = Command::new("sacct")
        .args(["-n", "-X", "-P", "-j", &ids, "-o", "JobID,State,ExitCode"])
        .output()
        .ok()
        .filter(|o| o.status.success())
        .map(|o| String::from_utf8_lossy(&o.stdout).replace('|', " "));
    match (queued, accounted) {
        (None, None) => None,
        (q, a) => Some(q.unwrap_or_default() + &a.unwrap_or_default()),
    }
}
