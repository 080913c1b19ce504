//! Building a model's shared library with Verilator, and the build cache.

use super::source::{Source, TOP};
use super::{Error, Options, TraceFormat};
use sha2::{Digest, Sha256};
use std::collections::HashMap;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::Mutex;
use std::time::Instant;

/// The most threads a model may have (Verilator's thread pool is sized to it).
pub const MAX_THREADS: u32 = 64;

/// The library's file name inside a cache entry.
pub const LIBRARY: &str = "libmodel.so";

/// Only the shim's functions are exported: Verilator's runtime is linked into every model,
/// and models loaded side by side must each keep their own.
const EXPORTS: &str = "{ global: model_*; local: *; };\n";

/// A cache entry holding a built library.
pub struct Built {
    pub dir: PathBuf,
    /// Whether it was already in the cache.
    pub cached: bool,
    /// Seconds spent verilating and compiling (0 when cached).
    pub seconds: f64,
}

/// Where models are cached when `Options::cache_dir` is not set: `$ACCELGEN_CACHE`, else
/// `verilator-cache/` in the Cargo target directory that holds the running executable
/// (found by Cargo's `CACHEDIR.TAG`), else the system temporary directory.
pub fn cache_root() -> PathBuf {
    if let Some(dir) = std::env::var_os("ACCELGEN_CACHE").filter(|d| !d.is_empty()) {
        return PathBuf::from(dir);
    }
    std::env::current_exe()
        .ok()
        .and_then(|exe| {
            exe.ancestors()
                .find(|d| d.join("CACHEDIR.TAG").is_file())
                .map(|d| d.join("verilator-cache"))
        })
        .unwrap_or_else(|| std::env::temp_dir().join("accelgen-verilator-cache"))
}

/// `verilator --version`, once per executable path.
fn version(verilator: &Path) -> Result<String, Error> {
    static VERSIONS: Mutex<Option<HashMap<PathBuf, String>>> = Mutex::new(None);
    let mut versions = VERSIONS.lock().unwrap_or_else(|e| e.into_inner());
    let versions = versions.get_or_insert_with(HashMap::new);
    if let Some(v) = versions.get(verilator) {
        return Ok(v.clone());
    }
    let out = Command::new(verilator)
        .arg("--version")
        .output()
        .map_err(|error| Error::NotFound {
            program: verilator.display().to_string(),
            error,
        })?;
    if !out.status.success() {
        return Err(Error::Build {
            status: out.status.to_string(),
            log: shorten(&log_text(&out.stdout, &out.stderr)),
        });
    }
    let v = String::from_utf8_lossy(&out.stdout).trim().to_string();
    versions.insert(verilator.to_path_buf(), v.clone());
    Ok(v)
}

/// The options that change the library (not where or how fast it is built).
fn key_options(opts: &Options) -> String {
    format!("{} c++ {}", args(opts).join(" "), opts.cxx_opt.flag())
}

fn cache_key(version: &str, opts: &Options, src: &Source) -> String {
    let options = key_options(opts);
    hash(&[
        "accelgen verilator model",
        version,
        &options,
        &src.shim,
        &src.verilog,
    ])
}

/// The first 16 bytes of the SHA-256 of `parts`, in hexadecimal; each part is
/// length-prefixed, so that no two different inputs hash the same text.
fn hash(parts: &[&str]) -> String {
    let mut h = Sha256::new();
    for part in parts {
        h.update((part.len() as u64).to_le_bytes());
        h.update(part.as_bytes());
    }
    h.finalize()[..16]
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

fn validate(opts: &Options) -> Result<(), Error> {
    if !(1..=MAX_THREADS).contains(&opts.threads) {
        return Err(Error::InvalidOption(format!(
            "threads must be in 1..={MAX_THREADS}, got {}",
            opts.threads
        )));
    }
    if opts.jobs == 0 {
        return Err(Error::InvalidOption("jobs must be at least 1".into()));
    }
    Ok(())
}

/// The cached library for `src`, built first if it is not in the cache.
pub fn build(src: &Source, opts: &Options) -> Result<Built, Error> {
    validate(opts)?;
    let version = version(&opts.verilator)?;
    let root = opts.cache_dir.clone().unwrap_or_else(cache_root);
    let dir = root.join(cache_key(&version, opts, src));
    if dir.join(LIBRARY).is_file() {
        return Ok(Built {
            dir,
            cached: true,
            seconds: 0.0,
        });
    }
    let start = Instant::now();
    fs::create_dir_all(&root).map_err(Error::io(format!(
        "cannot create the model cache {}",
        root.display()
    )))?;
    // One build of an entry at a time: a builder that finds another (thread or process)
    // building the same entry waits for it and takes its library, rather than building a
    // second copy beside it (on a small machine that halves both builds' speed).
    let lock = BuildLock::acquire(&root, &dir);
    if dir.join(LIBRARY).is_file() {
        drop(lock);
        return Ok(Built {
            dir,
            cached: true,
            seconds: 0.0,
        });
    }
    remove_abandoned(&root);
    // Inside the cache, so that the final rename stays on one file system.
    let work = tempfile::Builder::new()
        .prefix(".build-")
        .tempdir_in(&root)
        .map_err(Error::io(format!(
            "cannot create a build directory in {}",
            root.display()
        )))?;
    let w = work.path();
    let write = |name: &str, text: &str| {
        fs::write(w.join(name), text).map_err(Error::io(format!("cannot write {name}")))
    };
    write("model.v", &src.verilog)?;
    write("shim.cpp", &src.shim)?;
    write("exports.map", EXPORTS)?;
    let runtime = root.join(format!("runtime-{}", runtime_key(&version, opts)));
    let log = verilate_and_make(opts, w, &runtime)?;
    let built = w.join("obj").join(LIBRARY);
    keep_runtime(&root, &w.join("obj"), &runtime);
    // The entry keeps the library and what explains it; the objects are dropped.
    let entry = w.join("entry");
    let entry_err = Error::io("cannot assemble the cache entry");
    (|| {
        fs::create_dir(&entry)?;
        fs::rename(&built, entry.join(LIBRARY))?;
        fs::rename(w.join("model.v"), entry.join("model.v"))?;
        fs::rename(w.join("shim.cpp"), entry.join("shim.cpp"))?;
        fs::write(entry.join("build.log"), &log)
    })()
    .map_err(entry_err)?;
    match fs::rename(&entry, &dir) {
        Ok(()) => {}
        // Another builder won the race: its entry is as good as ours.
        Err(_) if dir.join(LIBRARY).is_file() => {}
        Err(e) => {
            return Err(Error::Io {
                context: format!("cannot move the built model to {}", dir.display()),
                error: e,
            })
        }
    }
    Ok(Built {
        dir,
        cached: false,
        seconds: start.elapsed().as_secs_f64(),
    })
}

/// An exclusive lock on building one cache entry: `<entry>.lock` in the cache, locked with
/// `flock` (released when the holder exits, however it exits). Best effort: without a
/// lock (a file system that refuses it) builders race as before, which the final rename
/// settles. The holder removes the file before releasing it, so that the cache keeps
/// only entries; a builder that then creates a new file finds the entry built.
struct BuildLock {
    file: Option<(fs::File, PathBuf)>,
}

impl BuildLock {
    fn acquire(root: &Path, entry: &Path) -> BuildLock {
        let name = entry.file_name().unwrap_or_default().to_string_lossy();
        let path = root.join(format!("{name}.lock"));
        let file = fs::OpenOptions::new()
            .create(true)
            .truncate(false)
            .write(true)
            .open(&path)
            .ok()
            .filter(|f| f.lock().is_ok());
        BuildLock {
            file: file.map(|f| (f, path)),
        }
    }
}

impl Drop for BuildLock {
    fn drop(&mut self) {
        if let Some((file, path)) = self.file.take() {
            let _ = fs::remove_file(&path);
            drop(file);
        }
    }
}

/// Removes build directories that a killed process left behind: any over a day old (no
/// build takes that long). Best effort: a directory another process removes first, or one
/// that cannot be removed, is left alone.
fn remove_abandoned(root: &Path) {
    const DAY: std::time::Duration = std::time::Duration::from_secs(24 * 3600);
    let Ok(entries) = fs::read_dir(root) else {
        return;
    };
    for e in entries.flatten() {
        let name = e.file_name().to_string_lossy().into_owned();
        let abandoned = (name.starts_with(".build-") || name.starts_with(".runtime-"))
            && e.metadata()
                .and_then(|m| m.modified())
                .is_ok_and(|t| t.elapsed().is_ok_and(|age| age > DAY));
        if abandoned {
            let _ = fs::remove_dir_all(e.path());
        }
    }
}

/// The Verilator command that writes `obj/`'s C++ and makefile for `obj/libmodel.so`
/// from `model.v` and `shim.cpp` ([`make`] builds it).
pub fn verilate(opts: &Options) -> Command {
    let mut cmd = Command::new(&opts.verilator);
    cmd.args(["--cc", "--exe", "-Mdir", "obj", "-o", LIBRARY])
        .args(["--top-module", TOP])
        .args(args(opts))
        // Position-independent, with everything but the shim hidden (see EXPORTS).
        .args(["-CFLAGS", "-fPIC -fvisibility=hidden"])
        .args(["-LDFLAGS", "-shared -Wl,--version-script=../exports.map"])
        .args(["model.v", "shim.cpp"]);
    cmd
}

/// The makefile, beside Verilator's in `obj/`, that builds the model with a precompiled
/// header: `verilated.h` and the model's headers (3 MB for a 2-lane `rocket-hwacha`)
/// are parsed once per optimization level instead of once per C++ file, which was about
/// half of each file's compile (1.3 of 2.6 s at `-O1`); that model's make takes 166 s
/// of CPU instead of 194 s. GCC picks, of the directory `accelgen_pch.h.gch/`, the header
/// compiled with the file's own options (the fast files' `-O1`, the slow files'
/// none). Verilator's runtime objects are built without it, as they are shared.
const PCH_MAKEFILE: &str = "accelgen_pch.mk";
const PCH_HEADER: &str = "accelgen_pch.h";

fn pch_files() -> [(String, String); 2] {
    let prefix = super::source::PREFIX;
    let header = format!("#include \"verilated.h\"\n#include \"{prefix}__Syms.h\"\n");
    let makefile = format!(
        "include {prefix}.mk\n\
         PCH := {PCH_HEADER}.gch\n\
         OPT = -include {PCH_HEADER}\n\
         $(PCH)/fast.gch: OPT_PCH = $(OPT_FAST)\n\
         $(PCH)/slow.gch: OPT_PCH = $(OPT_SLOW)\n\
         $(PCH)/fast.gch $(PCH)/slow.gch $(VK_GLOBAL_OBJS): OPT =\n\
         $(PCH)/%.gch: {PCH_HEADER}\n\
         \t@mkdir -p $(PCH)\n\
         \t$(CXX) $(CXXFLAGS) $(CPPFLAGS) $(OPT_PCH) -MF {PCH_HEADER}.$*.d -x c++-header -o $@ $<\n\
         $(VK_FAST_OBJS) $(VK_SLOW_OBJS) $(VK_USER_OBJS): | $(PCH)/fast.gch $(PCH)/slow.gch\n"
    );
    [
        (PCH_HEADER.to_string(), header),
        (PCH_MAKEFILE.to_string(), makefile),
    ]
}

/// The make command that builds what [`verilate`] wrote, as `verilator --build` would
/// (through [`PCH_MAKEFILE`], which [`verilate_and_make`] writes into `obj/`).
pub fn make(opts: &Options) -> Command {
    let cxx = opts.cxx_opt.flag();
    let mut cmd = Command::new("make");
    cmd.args(["-C", "obj", "-f", PCH_MAKEFILE])
        .args(["-j", &opts.jobs.to_string()])
        .arg(format!("OPT_FAST={cxx}"))
        // The "slow" files (constructors, initial settling: about half of a large
        // model's C++) run once: unoptimized, as Verilator's default (about 10 % less
        // compile time for a 1.3 MB design).
        .arg("OPT_SLOW=")
        .arg(format!("OPT_GLOBAL={cxx}"));
    cmd
}

/// Verilator's runtime objects (`verilated*.o`) depend only on Verilator and the
/// options, not on the design: they are compiled once per key and kept in the cache
/// (`runtime-<key>/`), which saves every later build of a model their compile (about 10
/// s of CPU at `-O2`).
fn runtime_key(version: &str, opts: &Options) -> String {
    hash(&["accelgen verilator runtime", version, &key_options(opts)])
}

fn runtime_objects(dir: &Path) -> Vec<PathBuf> {
    let mut objs: Vec<PathBuf> = (fs::read_dir(dir).into_iter().flatten().flatten())
        .map(|e| e.path())
        .filter(|p| {
            let name = p.file_name().unwrap_or_default().to_string_lossy();
            name.starts_with("verilated") && name.ends_with(".o")
        })
        .collect();
    objs.sort();
    objs
}

/// Verilates in `w`, puts the kept runtime objects (if any) into `obj/` after the
/// makefile (so that make finds them up to date), and makes; the build's log.
fn verilate_and_make(opts: &Options, w: &Path, runtime: &Path) -> Result<String, Error> {
    let run = |mut cmd: Command, program: &str| {
        cmd.current_dir(w)
            .output()
            .map_err(|error| Error::NotFound {
                program: program.to_string(),
                error,
            })
    };
    let out = run(verilate(opts), &opts.verilator.display().to_string())?;
    let mut log = log_text(&out.stdout, &out.stderr);
    if out.status.success() {
        for (name, text) in pch_files() {
            fs::write(w.join("obj").join(&name), text)
                .map_err(Error::io(format!("cannot write {name}")))?;
        }
        for obj in runtime_objects(runtime) {
            // A copy that fails only costs its compile.
            let _ = fs::copy(
                &obj,
                w.join("obj").join(obj.file_name().unwrap_or_default()),
            );
        }
        let out = run(make(opts), "make")?;
        log.push_str(&log_text(&out.stdout, &out.stderr));
        if out.status.success() && w.join("obj").join(LIBRARY).is_file() {
            return Ok(log);
        }
        return Err(Error::Build {
            status: out.status.to_string(),
            log: shorten(&log),
        });
    }
    Err(Error::Build {
        status: out.status.to_string(),
        log: shorten(&log),
    })
}

/// Keeps `obj`'s runtime objects as `runtime` when it does not exist yet (best effort:
/// assembled beside it and renamed into place, so a reader never sees a partial set).
fn keep_runtime(root: &Path, obj: &Path, runtime: &Path) {
    if runtime.is_dir() {
        return;
    }
    let objs = runtime_objects(obj);
    let Ok(tmp) = tempfile::Builder::new()
        .prefix(".runtime-")
        .tempdir_in(root)
    else {
        return;
    };
    let copied = (objs.iter())
        .all(|o| fs::copy(o, tmp.path().join(o.file_name().unwrap_or_default())).is_ok());
    if copied && !objs.is_empty() {
        let kept = tmp.keep();
        if fs::rename(&kept, runtime).is_err() {
            let _ = fs::remove_dir_all(kept);
        }
    }
}

/// Verilator's options that shape the model (not how it is built), shared by anything
/// that must build the same model (a benchmark's plain C++ main, say).
pub fn args(opts: &Options) -> Vec<String> {
    let mut a: Vec<String> = vec![
        opts.verilator_opt.flag().into(),
        "--threads".into(),
        opts.threads.to_string(),
        // Warnings stay in the log; the emitter's output is linted elsewhere.
        "-Wno-fatal".into(),
        // State starts at zeros or random values, chosen when the model is created
        // (`hdl::sim::Init`), as the IR simulator's.
        "--x-initial".into(),
        "unique".into(),
        // Waveform times count half cycles in nanoseconds, as the IR simulator's do.
        "--timescale".into(),
        "1ns/1ns".into(),
    ];
    match opts.trace {
        Some(TraceFormat::Vcd) => a.push("--trace".into()),
        Some(TraceFormat::Fst) => a.push("--trace-fst".into()),
        None => {}
    }
    a
}

fn log_text(stdout: &[u8], stderr: &[u8]) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(stdout),
        String::from_utf8_lossy(stderr)
    )
}

/// A log for an error message, at most 300 lines: the beginning (Verilator's first
/// errors) and the end (the compiler's last).
fn shorten(log: &str) -> String {
    const KEEP: usize = 150;
    let lines: Vec<&str> = log.lines().collect();
    if lines.len() <= 2 * KEEP {
        return log.to_string();
    }
    format!(
        "{}\n[... {} lines ...]\n{}",
        lines[..KEEP].join("\n"),
        lines.len() - 2 * KEEP,
        lines[lines.len() - KEEP..].join("\n")
    )
}
