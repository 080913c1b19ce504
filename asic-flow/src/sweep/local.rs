//! Running a sweep's points on local worker threads, reporting progress as steps finish.

use super::dir::run_point_file;
use super::points::Point;
use super::results::{collect, PointResult, StepStatus, Summary};
use super::spec::Plan;
use super::SweepError;
use std::path::Path;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;

/// Where a running sweep reports (a progress bar, or nothing).
pub trait Progress: Sync {
    /// Step `step` of some point finished with `status`.
    fn step(&self, step: &str, status: StepStatus);
    /// A point finished.
    fn point(&self, result: &PointResult);
}

/// Runs every point of a prepared sweep directory `dir` on `jobs` worker threads, then
/// merges the results (see [`collect`]).
pub fn run_local(
    dir: &Path,
    plan: &Plan,
    points: &[Point],
    jobs: usize,
    progress: &dyn Progress,
) -> Result<Summary, SweepError> {
    let next = AtomicUsize::new(0);
    let first_error: Mutex<Option<SweepError>> = Mutex::new(None);
    std::thread::scope(|s| {
        for _ in 0..jobs.clamp(1, points.len().max(1)) {
            s.spawn(|| loop {
                let i = next.fetch_add(1, Ordering::SeqCst);
                if i >= points.len() {
                    break;
                }
                let done = |step: &str, status| progress.step(step, status);
                match run_point_file(dir, plan, points, i, &done) {
                    Ok(r) => progress.point(&r),
                    Err(e) => {
                        first_error
                            .lock()
                            .unwrap_or_else(|e| e.into_inner())
                            .get_or_insert(e);
                    }
                }
            });
        }
    });
    if let Some(e) = first_error.into_inner().unwrap_or_else(|e| e.into_inner()) {
        return Err(e);
    }
    collect(dir)
}
