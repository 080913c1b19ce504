//! placeholder
mod cli_run;

use cli_run::{accelgen, s, Run, FGSIMT_TILE};
use std::path::{Path, PathBuf};

fn explain(what: &str, run: &Run) -> String {
    format!(
        "{what}: exit {}\nstdout: {}\nstderr: {}",
        run.code, run.stdout, run.stderr
    )
}

fn limited(dir: &Path, name: &str) -> PathBuf {
    let elf = dir.join(format!("{name}-r10.elf"));
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join(format!("kernels/{name}.c"));
    let flags = verification::fgsimt::avc::private::register_limit_flags();
    verification::kernels::build_program_with(&[src], &elf, (&[], &[]), &flags).unwrap();
    elf
}

fn sim(elf: &Path, extra: &[&str]) -> Run {
    let mut args = vec!["sim", "fgsimt", "--program", s(elf), "--lockstep"];
    for t in FGSIMT_TILE {
        args.extend(["--set", t]);
    }
    args.extend_from_slice(extra);
    accelgen(&args)
}

#[test]
fn scratch() {
    let dir = tempfile::tempdir().unwrap();
    for k in ["bsearch", "strsearch", "dither", "mfilt"] {
        let elf = limited(dir.path(), k);
        let t = std::time::Instant::now();
        let run = sim(
            &elf,
            &[
                "--fast-forward",
                "--set",
                "avc=true",
                "--set",
                "avc_sets=2",
                "--set",
                "avc_ways=1",
                "--set",
                "avc_vectors_per_line=2",
                "--set",
                "avc_l1_sets=2",
                "--set",
                "avc_l1_ways=1",
            ],
        );
        println!("{k} {:?} {}", t.elapsed(), explain("x", &run));
        assert_eq!(run.code, 0);
    }
}
