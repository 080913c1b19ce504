//! The sweep directory: preparing it from a spec (the validated plan in `sweep.json`, the
//! points in `points.json`), reading it back, and running one of its points into
//! `results/<i>.json` (what each local worker and each Slurm array task does).

use super::points::{expand, Point};
use super::results::{PointResult, StepStatus};
use super::spec::Plan;
use super::steps::{run_point, write_result};
use super::{read_json, to_json, write_file, SweepError};
use std::path::Path;

/// The file that marks a directory as a sweep directory.
pub const PLAN_FILE: &str = "sweep.json";

/// Reads and validates the spec at `spec` and every point's parameters, writing nothing.
pub fn validate(spec: &Path, accelgen: &str) -> Result<(Plan, Vec<Point>), SweepError> {
    let plan = Plan::load(spec, accelgen)?;
    let points = expand(&plan, spec)?;
    Ok((plan, points))
}

/// Validates the spec at `spec` and every point, then writes the plan and points into
/// `dir`, which must be new, empty or an earlier sweep directory (whose cache stays, so a
/// rerun resumes; its point results are removed). Nothing is written when the spec is bad.
pub fn prepare(spec: &Path, dir: &Path, accelgen: &str) -> Result<(Plan, Vec<Point>), SweepError> {
    let (plan, points) = validate(spec, accelgen)?;
    if dir.exists() {
        let mut entries = std::fs::read_dir(dir).map_err(|e| SweepError::io(dir, e))?;
        if entries.next().is_some() && !dir.join(PLAN_FILE).is_file() {
            return Err(SweepError::Dir {
                dir: dir.to_path_buf(),
                message: format!(
                    "is not empty and holds no {PLAN_FILE}: not a sweep directory; refusing to \
                     write into it"
                ),
            });
        }
    }
    for sub in ["results", "cache", "points", "logs"] {
        let d = dir.join(sub);
        std::fs::create_dir_all(&d).map_err(|e| SweepError::io(&d, e))?;
    }
    clear_results(&dir.join("results"))?;
    write_file(&dir.join("points.json"), to_json(&points).as_bytes())?;
    write_file(&dir.join(PLAN_FILE), to_json(&plan).as_bytes())?;
    Ok((plan, points))
}

/// Removes the point results (`<index>.json`) of an earlier run, so that none is taken
/// for this run's (the cache keeps what they computed).
fn clear_results(results: &Path) -> Result<(), SweepError> {
    let entries = std::fs::read_dir(results).map_err(|e| SweepError::io(results, e))?;
    for e in entries {
        let path = e.map_err(|e| SweepError::io(results, e))?.path();
        let stem = path.file_stem().and_then(|s| s.to_str()).unwrap_or("");
        let ours = path.extension().is_some_and(|x| x == "json")
            && !stem.is_empty()
            && stem.chars().all(|c| c.is_ascii_digit());
        if ours {
            std::fs::remove_file(&path).map_err(|e| SweepError::io(&path, e))?;
        }
    }
    Ok(())
}

/// The plan and points of sweep directory `dir`.
pub fn load(dir: &Path) -> Result<(Plan, Vec<Point>), SweepError> {
    if !dir.join(PLAN_FILE).is_file() {
        return Err(SweepError::Dir {
            dir: dir.to_path_buf(),
            message: format!("holds no {PLAN_FILE}: not a sweep directory"),
        });
    }
    Ok((
        read_json(&dir.join(PLAN_FILE))?,
        read_json(&dir.join("points.json"))?,
    ))
}

/// Runs point `index` of sweep directory `dir` and writes its result file.
pub fn run_point_file(
    dir: &Path,
    plan: &Plan,
    points: &[Point],
    index: usize,
    done: &dyn Fn(&str, StepStatus),
) -> Result<PointResult, SweepError> {
    let point = points.get(index).ok_or_else(|| SweepError::Dir {
        dir: dir.to_path_buf(),
        message: format!("has no point {index} (points 0..{})", points.len()),
    })?;
    let result = run_point(dir, plan, point, done);
    write_result(dir, &result)?;
    Ok(result)
}
