//! `accelgen sweep --slurm` on a real single-node Slurm cluster started by the test on
//! localhost (munged, slurmctld and slurmd with a generated config, all files in a
//! temporary directory, on free ports): a 4-point sweep runs as a job array and a collect
//! job, `sweep status` reports it, and the merged results equal a local run of the same
//! spec in every metric but the wall-clock ones. Every daemon started is stopped, also
//! when the test fails. Skipped, saying why, when Slurm or munge is not installed or the
//! test is not root (slurmd must be).

mod cli_run;

use cli_run::{accelgen, s};
use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

const PROGRAMS: [&str; 7] = [
    "munged",
    "slurmctld",
    "slurmd",
    "sbatch",
    "sinfo",
    "squeue",
    "kill",
];

/// The daemons started, stopped (by their pid files) when dropped.
struct Cluster {
    dir: tempfile::TempDir,
    started: Vec<&'static str>,
}

impl Drop for Cluster {
    fn drop(&mut self) {
        for daemon in self.started.iter().rev() {
            let pid_file = self.dir.path().join(format!("{daemon}.pid"));
            if let Ok(pid) = fs::read_to_string(&pid_file) {
                let _ = Command::new("kill").arg(pid.trim()).status();
            }
        }
    }
}

fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

fn conf(dir: &Path) -> String {
    let d = dir.display();
    let cpus = std::thread::available_parallelism().map_or(1, |n| n.get());
    format!(
        "ClusterName=accelgen\nSlurmctldHost=localhost\nSlurmctldPort={}\nSlurmdPort={}\n\
         SlurmUser=root\nSlurmdUser=root\nAuthType=auth/munge\nCredType=cred/munge\n\
         AuthInfo=socket={d}/munge.sock\nStateSaveLocation={d}/state\nSlurmdSpoolDir={d}/spool\n\
         SlurmctldPidFile={d}/slurmctld.pid\nSlurmdPidFile={d}/slurmd.pid\n\
         SlurmctldLogFile={d}/slurmctld.log\nSlurmdLogFile={d}/slurmd.log\n\
         ProctrackType=proctrack/linuxproc\nTaskPlugin=task/none\nSelectType=select/cons_tres\n\
         SelectTypeParameters=CR_CPU\nMpiDefault=none\nReturnToService=2\n\
         JobAcctGatherType=jobacct_gather/none\nAccountingStorageType=accounting_storage/none\n\
         JobCompType=jobcomp/none\nNodeName=localhost CPUs={cpus} State=UNKNOWN\n\
         PartitionName=debug Nodes=localhost Default=YES MaxTime=INFINITE State=UP\n",
        free_port(),
        free_port(),
    )
}

fn run(program: &str, args: &[&str], conf: &Path) {
    let st = Command::new(program)
        .args(args)
        .env("SLURM_CONF", conf)
        .status()
        .unwrap_or_else(|e| panic!("{program}: {e}"));
    assert!(st.success(), "{program} {args:?}: {st}");
}

/// Starts munged, slurmctld and slurmd in a temporary directory; waits for the node to
/// be idle.
fn start() -> (Cluster, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        fs::set_permissions(d, fs::Permissions::from_mode(0o755)).unwrap();
    }
    let mut cluster = Cluster {
        dir,
        started: vec![],
    };
    let d = cluster.dir.path().to_path_buf();
    for sub in ["state", "spool"] {
        fs::create_dir(d.join(sub)).unwrap();
    }
    let mut key = vec![0u8; 1024];
    use std::io::Read;
    fs::File::open("/dev/urandom")
        .unwrap()
        .read_exact(&mut key)
        .unwrap();
    fs::write(d.join("munge.key"), key).unwrap();
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        fs::set_permissions(d.join("munge.key"), fs::Permissions::from_mode(0o600)).unwrap();
    }
    let conf_path = d.join("slurm.conf");
    fs::write(&conf_path, conf(&d)).unwrap();
    let p = |name: &str| format!("{}", d.join(name).display());
    run(
        "munged",
        &[
            "--force",
            &format!("--key-file={}", p("munge.key")),
            &format!("--socket={}", p("munge.sock")),
            &format!("--pid-file={}", p("munged.pid")),
            &format!("--log-file={}", p("munged.log")),
            &format!("--seed-file={}", p("munged.seed")),
        ],
        &conf_path,
    );
    cluster.started.push("munged");
    run("slurmctld", &["-i"], &conf_path);
    cluster.started.push("slurmctld");
    run("slurmd", &["-N", "localhost"], &conf_path);
    cluster.started.push("slurmd");
    let start = Instant::now();
    loop {
        let out = Command::new("sinfo")
            .args(["-h", "-o", "%T"])
            .env("SLURM_CONF", &conf_path)
            .output()
            .unwrap();
        if String::from_utf8_lossy(&out.stdout).trim() == "idle" {
            break;
        }
        assert!(
            start.elapsed() < Duration::from_secs(60),
            "the node never became idle: {}",
            fs::read_to_string(d.join("slurmctld.log")).unwrap_or_default()
        );
        std::thread::sleep(Duration::from_millis(300));
    }
    (cluster, conf_path)
}

fn missing_tools() -> Option<String> {
    let uid = Command::new("id").arg("-u").output().ok()?;
    if String::from_utf8_lossy(&uid.stdout).trim() != "0" {
        return Some("not root: slurmd must run as root".into());
    }
    let missing: Vec<&str> = PROGRAMS
        .iter()
        .copied()
        .filter(|p| {
            Command::new("sh")
                .args(["-c", &format!("command -v {p}")])
                .output()
                .map_or(true, |o| !o.status.success())
        })
        .collect();
    (!missing.is_empty()).then(|| format!("not installed: {}", missing.join(", ")))
}

/// The results CSV without wall-clock columns (`*_s`), as rows of cells.
fn comparable(path: &Path) -> Vec<Vec<String>> {
    let text = fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let mut r = ::csv::Reader::from_reader(text.as_bytes());
    let header: Vec<String> = r.headers().unwrap().iter().map(String::from).collect();
    let keep: Vec<usize> = (0..header.len())
        .filter(|&i| !header[i].ends_with("_s"))
        .collect();
    let mut rows = vec![keep.iter().map(|&i| header[i].clone()).collect()];
    for rec in r.records() {
        let rec = rec.unwrap();
        rows.push(keep.iter().map(|&i| rec[i].to_string()).collect());
    }
    rows
}

const SPEC: &str = r#"
design = "queue"
steps = ["generate", "lint"]
[axes]
depth = [2, 16]
width = [8, 64]
"#;

#[test]
fn a_slurm_sweep_merges_into_what_a_local_run_writes() {
    if let Some(why) = missing_tools() {
        eprintln!("skipping the Slurm sweep test: {why}");
        return;
    }
    let (cluster, conf) = start();
    let tmp = tempfile::tempdir().unwrap();
    let spec = tmp.path().join("queue.toml");
    fs::write(&spec, SPEC).unwrap();
    let shared = tmp.path().join("slurm");
    let out = cli_run::accelgen_env(
        &[
            "sweep",
            s(&spec),
            "--slurm",
            "--max-parallel",
            "2",
            "-o",
            s(&shared),
        ],
        &[("SLURM_CONF", s(&conf))],
    );
    assert_eq!(out.code, 0, "{}{}", out.stdout, out.stderr);
    assert!(out.stdout.contains("4 points submitted"), "{}", out.stdout);
    let script = fs::read_to_string(shared.join("slurm-array.sh")).unwrap();
    assert!(script.contains("#SBATCH --array=0-3%2"), "{script}");
    let start = Instant::now();
    while !shared.join("results.csv").exists() {
        assert!(
            start.elapsed() < Duration::from_secs(120),
            "no merged results; logs: {:?}",
            fs::read_dir(shared.join("logs")).map(|d| d.count())
        );
        std::thread::sleep(Duration::from_millis(500));
    }
    let status = cli_run::accelgen_env(
        &["sweep", "status", s(&shared)],
        &[("SLURM_CONF", s(&conf))],
    );
    assert!(
        status
            .stdout
            .contains("4 points: 4 done, 0 failed, 0 pending"),
        "{}",
        status.stdout
    );
    for i in 0..4 {
        let log = fs::read_dir(shared.join("logs"))
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .any(|n| n.ends_with(&format!("_{i}.out")));
        assert!(log, "no %A_%a log of task {i}");
    }
    let local = tmp.path().join("local");
    let run = accelgen(&["sweep", s(&spec), "-j", "2", "-o", s(&local)]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let merged = comparable(&shared.join("results.csv"));
    assert_eq!(merged.len(), 5);
    assert_eq!(merged, comparable(&local.join("results.csv")));
    assert_eq!(
        fs::read_dir(shared.join("plots")).unwrap().count(),
        fs::read_dir(local.join("plots")).unwrap().count()
    );
    drop(cluster);
}

#[test]
fn a_bad_spec_is_refused_before_sbatch() {
    let tmp = tempfile::tempdir().unwrap();
    let spec = tmp.path().join("bad.toml");
    fs::write(&spec, SPEC.replace("depth = [2, 16]", "depth = [0]")).unwrap();
    let out = tmp.path().join("out");
    // `sbatch` would fail without a cluster; the spec is refused before it is called.
    let run = cli_run::accelgen_env(
        &["sweep", s(&spec), "--slurm", "-o", s(&out)],
        &[("SLURM_CONF", "/nonexistent/slurm.conf")],
    );
    assert_eq!(run.code, 1);
    assert!(
        run.stderr.contains("axes.\"depth\"") && run.stderr.contains("must be in 1..=65536"),
        "{}",
        run.stderr
    );
    assert!(!out.exists());
}
