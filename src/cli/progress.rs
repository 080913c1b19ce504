//! What a long command is doing, on stderr: a spinner with the elapsed time when stderr
//! is a terminal, one line per phase otherwise (logs, CI), so stdout stays the
//! command's own output.

use indicatif::{ProgressBar, ProgressStyle};
use std::io::IsTerminal;
use std::time::{Duration, Instant};

/// One phase of a command, shown until it is finished or dropped.
pub struct Phase {
    spinner: Option<ProgressBar>,
    what: String,
    start: Instant,
}

impl Phase {
    /// Starts showing `what` (e.g. "building the Verilator model of rocket").
    pub fn start(what: impl Into<String>) -> Phase {
        let what = what.into();
        let spinner = std::io::stderr().is_terminal().then(|| {
            let s = ProgressBar::new_spinner().with_message(what.clone());
            s.set_style(
                ProgressStyle::with_template("{spinner} {msg} ({elapsed})")
                    .expect("a fixed, valid template"),
            );
            s.enable_steady_tick(Duration::from_millis(120));
            s
        });
        if spinner.is_none() {
            eprintln!("{what} ...");
        }
        Phase {
            spinner,
            what,
            start: Instant::now(),
        }
    }

    /// Ends the phase with a line saying how long it took and `result` (e.g. "cached").
    pub fn finish(self, result: &str) {
        let line = format!(
            "{}: {result} ({:.1} s)",
            self.what,
            self.start.elapsed().as_secs_f64()
        );
        match &self.spinner {
            Some(s) => {
                s.set_style(
                    ProgressStyle::with_template("{msg}").expect("a fixed, valid template"),
                );
                s.finish_with_message(line)
            }
            None => eprintln!("{line}"),
        }
    }
}

impl Drop for Phase {
    fn drop(&mut self) {
        // A phase abandoned by an error leaves no spinner behind.
        if let Some(s) = &self.spinner {
            if !s.is_finished() {
                s.finish_and_clear();
            }
        }
    }
}
