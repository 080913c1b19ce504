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
    #[error("could not run `{tool}`: {source}")]
    Run { tool: Tool, source: io::Error },
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
        Ok(LintTarget {
            dir: dir.to_path_buf(),
            files: m.files,
            top: m.top,
        })
    }
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
            let script = format!(
                "read_verilog {}; hierarchy -check -top {}; proc; check -assert",
                target.files.join(" "),
                target.top
            );
            cmd.args(["-q", "-p", &script]);
        }
        Tool::Iverilog => {
            cmd.args(["-g2005", "-Wall", "-o", "/dev/null", "-s", &target.top]);
            cmd.args(&target.files);
        }
    }
    let out = cmd.output().map_err(|e| match e.kind() {
        io::ErrorKind::NotFound => LintError::ToolMissing(tool),
        _ => LintError::Run { tool, source: e },
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
