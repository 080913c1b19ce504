//! Running an external tool while measuring it: wall time and the peak resident memory of
//! the child process (from `wait4`'s resource usage, so it is the tool's own peak, not the
//! caller's). Output goes to files, so no pipe can fill up and stall the tool.

use std::fs::File;
use std::io;
use std::path::Path;
use std::process::{Command, ExitStatus, Stdio};
use std::time::Instant;

/// How a finished run went.
#[derive(Debug)]
pub struct Measured {
    pub status: ExitStatus,
    pub wall_s: f64,
    /// Peak resident set size of the child, in MiB.
    pub peak_rss_mb: f64,
}

/// Runs `cmd` with its standard output and error appended to `log`, and waits for it.
pub fn run(cmd: &mut Command, log: &Path) -> io::Result<Measured> {
    let out = File::create(log)?;
    let err = out.try_clone()?;
    let start = Instant::now();
    let child = cmd
        .stdin(Stdio::null())
        .stdout(Stdio::from(out))
        .stderr(Stdio::from(err))
        .spawn()?;
    let (status, rusage) = wait4(child.id())?;
    Ok(Measured {
        status,
        wall_s: start.elapsed().as_secs_f64(),
        // Linux reports `ru_maxrss` in KiB.
        peak_rss_mb: rusage.ru_maxrss as f64 / 1024.0,
    })
}

/// Waits for process `pid` and returns its exit status and resource usage.
fn wait4(pid: u32) -> io::Result<(ExitStatus, libc::rusage)> {
    use std::os::unix::process::ExitStatusExt;
    let mut status: libc::c_int = 0;
    // SAFETY: an all-zero `rusage` is a valid value of this plain C struct.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    loop {
        // SAFETY: `status` and `usage` are valid for writes for the duration of the call,
        // and `pid` is our own child that nothing else waits for.
        let r = unsafe { libc::wait4(pid as libc::pid_t, &mut status, 0, &mut usage) };
        if r >= 0 {
            return Ok((ExitStatus::from_raw(status), usage));
        }
        let e = io::Error::last_os_error();
        if e.kind() != io::ErrorKind::Interrupted {
            return Err(e);
        }
    }
}
