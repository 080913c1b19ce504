//! Parameter sweeps: a TOML spec names a design, a base config, axes of parameter values
//! and the steps to run at every point of their product (generate, lint, programs on the
//! RTL). Points run on local worker threads or as a Slurm job array; both write one
//! result file per point into the sweep directory, and `collect` merges those into
//! `results.csv`, `results.jsonl` and plots. Step results are cached by a hash of what
//! determines them, so a rerun resumes.
//!
//! A sweep directory holds `sweep.json` (the validated spec), `points.json`, `points/<i>/`
//! (each point's generated RTL), `results/<i>.json`, `cache/<hash>.json`, and the merged
//! outputs.

mod asic;
mod cache;
pub mod dir;
mod local;
mod plot;
mod points;
mod program;
mod results;

pub mod slurm;
mod spec;
mod steps;

pub use cache::file_hash;
pub use dir::validate;
pub use local::{run_local, Progress};
pub use points::Point;
pub use results::{collect, status, PointResult, StepRecord, StepStatus, Summary};
pub use spec::{AsicSpec, Axis, FpgaSpec, InvalidPoints, Plan, ProgramSpec};
pub use steps::StepKind;

use std::path::{Path, PathBuf};

/// What goes wrong in a sweep before or around its points (a failing step is not an
/// error: it is recorded in its point's row).
#[derive(Debug, thiserror::Error)]
pub enum SweepError {
    /// The spec is invalid; `key` is the spec key at fault (`axes."hwacha.lanes"`).
    #[error("{}: `{key}`: {message}", spec.display())]
    Spec {
        spec: PathBuf,
        key: String,
        message: String,
    },
    #[error("{}: {message}", path.display())]
    Io { path: PathBuf, message: String },
    /// The directory is not a sweep directory, or a point index is out of range.
    #[error("{}: {message}", dir.display())]
    Dir { dir: PathBuf, message: String },
    #[error("slurm: {0}")]
    Slurm(String),
    #[error("plotting {}: {message}", path.display())]
    Plot { path: PathBuf, message: String },
}

impl SweepError {
    pub(crate) fn io(path: &Path, e: impl std::fmt::Display) -> SweepError {
        SweepError::Io {
            path: path.to_path_buf(),
            message: e.to_string(),
        }
    }
}

/// Writes `text` to `path` through a temporary file in the same directory and a rename,
/// so a reader (or a crash) never sees a partial file.
pub(crate) fn write_file(path: &Path, text: &[u8]) -> Result<(), SweepError> {
    use std::io::Write;
    let dir = path.parent().unwrap_or(Path::new("."));
    let mut tmp = tempfile::NamedTempFile::new_in(dir).map_err(|e| SweepError::io(dir, e))?;
    tmp.write_all(text).map_err(|e| SweepError::io(path, e))?;
    // Temporary files are private; results are ordinary files.
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let mode = std::fs::Permissions::from_mode(0o644);
        std::fs::set_permissions(tmp.path(), mode).map_err(|e| SweepError::io(path, e))?;
    }
    tmp.persist(path).map_err(|e| SweepError::io(path, e))?;
    Ok(())
}

/// Reads and parses JSON file `path`.
pub(crate) fn read_json<T: serde::de::DeserializeOwned>(path: &Path) -> Result<T, SweepError> {
    let text = std::fs::read_to_string(path).map_err(|e| SweepError::io(path, e))?;
    serde_json::from_str(&text).map_err(|e| SweepError::io(path, e))
}

/// Pretty JSON with a final newline.
pub(crate) fn to_json<T: serde::Serialize>(value: &T) -> String {
    let mut s = serde_json::to_string_pretty(value).expect("sweep types serialize");
    s.push('\n');
    s
}
