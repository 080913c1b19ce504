//! In-process Verilator models: Rust code builds a Verilator model of emitted Verilog and
//! drives it cycle by cycle (poke inputs, step the clock, peek outputs), with the same
//! shape of API as the IR simulator (`hdl::sim::Sim`); both implement
//! [`crate::simulator::Simulator`].
//!
//! A model is one shared library: Verilator's C++ for a generated top module (which
//! instantiates one or more designs and renames their ports `p0`, `p1`, ...), plus a C ABI
//! shim rendered from `templates/verilator_shim.cpp`, loaded with `libloading`. Port
//! indices are resolved in Rust from the designs' port lists; values cross the ABI as
//! 64-bit limbs whatever Verilator's C++ type for the port (`CData` to `VlWide<N>`).
//!
//! Builds are cached under a hash (SHA-256) of the Verilog, the shim, the options and the
//! Verilator version: in `Options::cache_dir`, else `$ACCELGEN_CACHE`, else
//! `verilator-cache/` in the Cargo target directory of the running executable, else the
//! system temporary directory. A build happens in a temporary directory that is renamed
//! into place; concurrent builders of the same model all end up loading the one that won
//! the rename. Verilator's runtime objects, the same for every design, are compiled once
//! per Verilator version and options and kept beside the models (`runtime-<hash>/`).

mod build;
mod model;
mod source;

pub use build::{args, cache_root, MAX_THREADS};
pub use model::{BuildInfo, Model, PortId};

use hdl::{Dir, Module};
use std::path::PathBuf;

/// The random initial states tests use: a model starts from the first; tests of several
/// runs alternate them (`Model::reinit`), so the fast suite covers two seeds.
pub const INIT_SEEDS: [u64; 2] = [1, 2];

/// Waveform formats a model can be built to write.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum TraceFormat {
    /// Value change dump (`--trace`).
    Vcd,
    /// Fast signal trace (`--trace-fst`), GTKWave's compressed format.
    Fst,
}

/// An optimization level, `-O0` to `-O3`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Opt {
    O0,
    O1,
    O2,
    O3,
}

impl Opt {
    /// The level `-O0` to `-O3` (or `O0` to `O3`) names.
    pub fn parse(text: &str) -> Option<Opt> {
        match text.trim_start_matches('-') {
            "O0" => Some(Opt::O0),
            "O1" => Some(Opt::O1),
            "O2" => Some(Opt::O2),
            "O3" => Some(Opt::O3),
            _ => None,
        }
    }

    /// `$ACCELGEN_CXX_OPT` when set (an error naming it when it is not a level).
    pub fn from_env() -> Result<Option<Opt>, Error> {
        match std::env::var(CXX_OPT_VAR) {
            Err(_) => Ok(None),
            Ok(v) => Opt::parse(&v).map(Some).ok_or_else(|| {
                Error::InvalidOption(format!("{CXX_OPT_VAR}={v:?}: not one of O0, O1, O2, O3"))
            }),
        }
    }

    pub fn flag(self) -> &'static str {
        match self {
            Opt::O0 => "-O0",
            Opt::O1 => "-O1",
            Opt::O2 => "-O2",
            Opt::O3 => "-O3",
        }
    }
}

/// The environment variable that sets the default C++ optimization of models.
pub const CXX_OPT_VAR: &str = "ACCELGEN_CXX_OPT";

/// How to build a model. The defaults suit a two-core machine: a single-threaded model,
/// two compile jobs, Verilator's full optimization and `-O2` C++, or the level
/// `$ACCELGEN_CXX_OPT` names (`O0` to `O3`; the test script's `O1` compiles a large model
/// in about half the time; a value that is not a level is ignored here and refused by
/// the CLI).
#[derive(Clone, Debug)]
pub struct Options {
    /// The `verilator` executable.
    pub verilator: PathBuf,
    /// Where built models are kept (see the module documentation for the default).
    pub cache_dir: Option<PathBuf>,
    /// Verilator's own optimizations of the model.
    pub verilator_opt: Opt,
    /// The C++ compiler's optimization of the model and Verilator's runtime.
    pub cxx_opt: Opt,
    /// Threads of the model (`--threads`); 1 evaluates in the caller's thread.
    pub threads: u32,
    /// Parallel compiler jobs of the build.
    pub jobs: u32,
    /// Build with waveform support in this format (`Model::trace` then works).
    pub trace: Option<TraceFormat>,
}

impl Default for Options {
    fn default() -> Options {
        Options {
            verilator: PathBuf::from("verilator"),
            cache_dir: None,
            verilator_opt: Opt::O3,
            cxx_opt: Opt::from_env().ok().flatten().unwrap_or(Opt::O2),
            threads: 1,
            jobs: 2,
            trace: None,
        }
    }
}

impl Options {
    /// For short runs of a large model, where the C++ build costs more than the model's
    /// speed saves: the C++ compiled unoptimised.
    pub fn quick_build() -> Options {
        Options {
            cxx_opt: Opt::O0,
            ..Options::default()
        }
    }
}

/// One port of a design's top module.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct PortSpec {
    pub name: String,
    pub dir: Dir,
    pub width: u32,
}

/// The ports of a top module as a model drives them.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Interface {
    /// The module's name.
    pub module: String,
    /// The clock input, toggled by `step` rather than poked.
    pub clock: Option<String>,
    /// Every other port, in declaration order; `reset` is an ordinary input.
    pub ports: Vec<PortSpec>,
}

impl Interface {
    /// The interface of an hdl module as the emitter writes it: a clocked module has
    /// `clock` and `reset` ahead of its declared ports.
    pub fn of(m: &Module) -> Interface {
        let mut ports = Vec::new();
        if m.body.clocked {
            ports.push(PortSpec {
                name: "reset".into(),
                dir: Dir::In,
                width: 1,
            });
        }
        ports.extend(m.body.ports.iter().map(|p| PortSpec {
            name: p.name.clone(),
            dir: p.dir,
            width: m.signal(p.sig).width,
        }));
        Interface {
            module: m.name.clone(),
            clock: m.body.clocked.then(|| "clock".to_string()),
            ports,
        }
    }
}

/// A design to put in a model. Several parts share one model (and one build) side by side,
/// all clocked by its `step`; each part's ports appear in the model as `prefix` followed
/// by the port's name. Module names must be distinct across parts, except that identical
/// Verilog texts are compiled once.
#[derive(Clone, Debug)]
pub struct Part<'a> {
    pub verilog: &'a str,
    pub interface: Interface,
    pub prefix: String,
}

#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// The message names the cause itself: `error` is not reported again as a source.
    #[error("cannot run Verilator (`{program}`): {error}; is it installed? (Debian: apt-get install verilator)")]
    NotFound {
        program: String,
        error: std::io::Error,
    },
    #[error("Verilator failed to build the model ({status}); its log:\n{log}")]
    Build { status: String, log: String },
    #[error("invalid Verilator option: {0}")]
    InvalidOption(String),
    #[error("port `{0}` has no bits")]
    ZeroWidth(String),
    #[error("the model has two ports named `{0}` (give its parts distinct prefixes)")]
    DuplicatePort(String),
    #[error("module name `{0}` is reserved for the generated top module")]
    ReservedModule(String),
    #[error("{context}: {error}")]
    Io {
        context: String,
        error: std::io::Error,
    },
    #[error("cannot load the model library {path}: {message}")]
    Load { path: PathBuf, message: String },
    #[error(
        "the model library {path} does not match its description ({message}); delete it to rebuild"
    )]
    Mismatch { path: PathBuf, message: String },
    #[error("Verilator could not create the model")]
    Create,
    #[error("no port `{0}` on the model")]
    NoPort(String),
    #[error("port `{0}` is an output and cannot be poked")]
    NotAnInput(String),
    #[error("value {value} does not fit port `{port}` of {width} bits")]
    TooWide {
        port: String,
        width: u32,
        value: String,
    },
    #[error("the model was built without waveform support (set Options::trace)")]
    TraceNotBuilt,
    #[error("cannot open waveform file {0}")]
    TraceOpen(PathBuf),
}

impl Error {
    fn io(context: impl Into<String>) -> impl FnOnce(std::io::Error) -> Error {
        let context = context.into();
        move |error| Error::Io { context, error }
    }
}
