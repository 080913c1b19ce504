//! Lint runners: Verilator (`--lint-only -Wall`), Yosys (`hierarchy -check; proc;
//! check -assert`) and Icarus Verilog (`-g2005`). Each returns a verdict with every
//! warning and error it printed; a missing tool is an error that says how to get it.

use serde::Deserialize;
use std::fmt;
use std::io;
use std::path::{Path, PathBuf};
use std::process::Command;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Tool {
    Verilator,
    Yosys,
    Iverilog,
}

impl Tool {
    pub const ALL: [Tool; 3] = [Tool::Verilator, Tool::Yosys, Tool::Iverilog];

    pub fn program(self) -> &'static str {
        match self {
            Tool::Verilator => "verilator",
            Tool::Yosys => "yosys",
            Tool::Iverilog => "iverilog",
        }
    }
}

impl fmt::Display for Tool {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.program())
    }
}

#[derive(Debug, thiserror::Error)]
pub enum LintError {
    #[error("`{0}` is not installed or not on PATH (`scripts/test` installs it on Debian/Ubuntu: apt-get install {0})")]
    ToolMissing(Tool),
    #[error("could not run `{tool}`: {err}")]
    Run { tool: Tool, err: io::Error },
    #[error("{}: {message}", path.display())]
    Target { path: PathBuf, message: String },
}

/// Verilog sources and the top module to check; `files` are relative to `dir`.
#[derive(Clone, Debug)]
pub struct LintTarget {
    pub dir: PathBuf,
    pub files: Vec<String>,
    pub top: String,
}

/// The fields of `manifest.json` that lint needs.
#[derive(Deserialize)]
struct Manifest {
    top: String,
    files: Vec<String>,
}

impl LintTarget {
    /// The output directory of `accelgen generate`, described by its `manifest.json`.
    pub fn from_dir(dir: &Path) -> Result<LintTarget, LintError> {
        let path = dir.join("manifest.json");
        let target_err = |message: String| LintError::Target {
            path: path.clone(),
            message,
        };
        let text = std::fs::read_to_string(&path).map_err(|e| {
            target_err(format!(
                "{e} (expected the output directory of `accelgen generate`)"
            ))
        })?;
        let m: Manifest = serde_json::from_str(&text)
            .map_err(|e| target_err(format!("invalid manifest: {e}")))?;
        if m.files.is_empty() {
            return Err(target_err("lists no Verilog files".into()));
        }
        if !is_identifier(&m.top) {
            return Err(target_err(format!(
                "top module {:?} is not a Verilog identifier",
                m.top
            )));
        }
        for f in &m.files {
            check_file_name(dir, f).map_err(|why| target_err(format!("file {f:?} {why}")))?;
        }
        Ok(LintTarget {
            dir: dir.to_path_buf(),
            files: m.files,
            top: m.top,
        })
    }
}

/// A simple Verilog identifier: a letter or `_`, then letters, digits, `_` or `$`.
pub fn is_identifier(name: &str) -> bool {
    let mut chars = name.chars();
    chars
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '$')
}

/// Why `name` is not a plain relative path to a regular file inside `dir`, if it is not:
/// no absolute path, no `..`, nothing a tool could read as an option or a command
/// separator, and no symbolic link leading out of `dir`.
fn check_file_name(dir: &Path, name: &str) -> Result<(), String> {
    use std::path::Component;
    let path = Path::new(name);
    if name.is_empty()
        || name.starts_with('-')
        || name.chars().any(|c| c.is_control() || c == ';')
        || !path.components().all(|c| matches!(c, Component::Normal(_)))
    {
        return Err("is not a plain relative path inside the output directory".into());
    }
    let full = dir.join(path);
    if !full.is_file() {
        return Err("is not a file in the output directory".into());
    }
    let inside = match (full.canonicalize(), dir.canonicalize()) {
        (Ok(f), Ok(d)) => f.starts_with(d),
        _ => false,
    };
    if !inside {
        return Err("leads out of the output directory".into());
    }
    Ok(())
}

/// What one tool said.
#[derive(Clone, Debug)]
pub struct Verdict {
    pub tool: Tool,
    /// The tool exited successfully and printed no warning or error.
    pub clean: bool,
    /// The first line of every warning and error.
    pub messages: Vec<String>,
    /// Everything the tool printed, for reports.
    pub output: String,
}

/// Runs `tool` on `target`.
pub fn run(tool: Tool, target: &LintTarget) -> Result<Verdict, LintError> {
    let mut cmd = Command::new(tool.program());
    cmd.current_dir(&target.dir);
    match tool {
        Tool::Verilator => {
            cmd.args(["--lint-only", "-Wall", "--top-module", &target.top]);
            cmd.args(&target.files);
        }
        Tool::Yosys => {
            // The files are arguments, read by the Verilog frontend before the script
            // runs, so no file name is ever part of a command.
            let script = format!("hierarchy -check -top {}; proc; check -assert", target.top);
            cmd.args(["-q", "-f", "verilog", "-p", &script]);
            cmd.args(&target.files);
        }
        Tool::Iverilog => {
            cmd.args(["-g2005", "-Wall", "-o", "/dev/null", "-s", &target.top]);
            cmd.args(&target.files);
        }
    }
    let out = cmd.output().map_err(|e| match e.kind() {
        io::ErrorKind::NotFound => LintError::ToolMissing(tool),
        _ => LintError::Run { tool, err: e },
    })?;
    let output = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    let messages: Vec<String> = output
        .lines()
        .filter(|l| is_message(tool, l))
        .map(str::to_string)
        .collect();
    Ok(Verdict {
        tool,
        clean: out.status.success() && messages.is_empty(),
        messages,
        output,
    })
}

/// The first line of a warning or error in `tool`'s output.
fn is_message(tool: Tool, line: &str) -> bool {
    match tool {
        Tool::Verilator => line.starts_with("%Warning") || line.starts_with("%Error"),
        Tool::Yosys => line.contains("Warning:") || line.contains("ERROR:"),
        // Icarus prints nothing else when compiling to /dev/null.
        Tool::Iverilog => !line.trim().is_empty(),
    }
}

/// Runs every tool on `target`.
pub fn run_all(target: &LintTarget) -> Result<Vec<Verdict>, LintError> {
    Tool::ALL.iter().map(|&t| run(t, target)).collect()
}
