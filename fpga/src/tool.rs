//! Running one external tool of the flow (Yosys, nextpnr, a bitstream packer): its
//! output captured to a log file, a missing program or a failure turned into an error
//! that names the tool and quotes the end of its log.

use crate::flow::FpgaError;
use std::fs;
use std::io;
use std::path::Path;
use std::process::{Command, Stdio};

/// Lines of a failed tool's log quoted in its error.
const TAIL_LINES: usize = 20;

/// Runs `program args` in directory `cwd`, its stdout and stderr written to `log`.
/// Returns the log's text.
pub fn run(program: &str, args: &[String], cwd: &Path, log: &Path) -> Result<String, FpgaError> {
    let file = fs::File::create(log).map_err(|e| FpgaError::io(log, e))?;
    let err_file = file.try_clone().map_err(|e| FpgaError::io(log, e))?;
    let status = Command::new(program)
        .args(args)
        .current_dir(cwd)
        .stdin(Stdio::null())
        .stdout(file)
        .stderr(err_file)
        .status()
        .map_err(|e| match e.kind() {
            io::ErrorKind::NotFound => FpgaError::ToolMissing {
                tool: program.to_string(),
            },
            _ => FpgaError::Run {
                tool: program.to_string(),
                err: e,
            },
        })?;
    let text = fs::read_to_string(log).map_err(|e| FpgaError::io(log, e))?;
    if !status.success() {
        return Err(FpgaError::ToolFailed {
            tool: program.to_string(),
            log: log.to_path_buf(),
            tail: tail(&text),
        });
    }
    Ok(text)
}

/// The last [`TAIL_LINES`] lines of `text`.
pub fn tail(text: &str) -> String {
    let lines: Vec<&str> = text.lines().collect();
    lines[lines.len().saturating_sub(TAIL_LINES)..].join("\n")
}
