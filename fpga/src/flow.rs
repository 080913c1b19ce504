//! The FPGA flow on a directory of generated Verilog (an `accelgen generate
//! --all-inferred` output, or a board top): Yosys `synth_ice40`/`synth_ecp5` to a JSON
//! netlist, a fit check of its cells against the device, nextpnr with a utilization and
//! timing report, and the bitstream packer. Without a constraints file the design is
//! placed inside the estimate wrapper (see [`crate::wrapper`]).

use crate::device::{Device, Family, UnknownName};
use crate::report::{thousands, FpgaReport, Resource, Usage};
use crate::{ecp5, ice40, netlist, pnr, tool, wrapper};
use serde::Deserialize;
use std::collections::BTreeMap;
use std::fs;
use std::io;
use std::path::{Path, PathBuf};

/// What to run the flow on and for which device.
#[derive(Clone, Debug)]
pub struct FpgaOptions {
    /// Directory holding the Verilog and a `manifest.json` with `top` and `files` (paths
    /// relative to it); Yosys runs in it, so `$readmemh` files beside the Verilog load.
    pub dir: PathBuf,
    /// Where the netlist, logs, `report.json` and the bitstream are written (created).
    pub work_dir: PathBuf,
    pub family: Family,
    /// accelgen's device name (see [`crate::device::DEVICES`]); the family's largest if none.
    pub device: Option<String>,
    /// The package; the device's default if none.
    pub package: Option<String>,
    /// The clock frequency asked of nextpnr, in MHz.
    pub freq_mhz: f64,
    /// A `.pcf` (iCE40) or `.lpf` (ECP5) file binding the top's ports to pins; without
    /// one the design is wrapped (see [`crate::wrapper`]).
    pub constraints: Option<PathBuf>,
}

#[derive(Debug, thiserror::Error)]
pub enum FpgaError {
    #[error(transparent)]
    UnknownName(#[from] UnknownName),
    #[error("{}: {message}", path.display())]
    Input { path: PathBuf, message: String },
    #[error("clock frequency {0} MHz: expected a positive number")]
    BadFrequency(f64),
    #[error("`{tool}` is not installed or not on PATH (`scripts/install-tools` installs it)")]
    ToolMissing { tool: String },
    #[error("could not run `{tool}`: {err}")]
    Run { tool: String, err: io::Error },
    #[error("`{tool}` failed (log {}):\n{tail}", log.display())]
    ToolFailed {
        tool: String,
        log: PathBuf,
        tail: String,
    },
    #[error("`{tool}` wrote an unexpected {what}: {message}")]
    BadOutput {
        tool: String,
        what: String,
        message: String,
    },
    #[error("the design does not fit the {device}: needs {} {}, the {device} has {}", thousands(*need), resource.name(*family), thousands(*have))]
    DoesNotFit {
        family: Family,
        device: String,
        resource: Resource,
        need: u64,
        have: u64,
    },
    #[error("{}: {err}", path.display())]
    Io { path: PathBuf, err: io::Error },
}

impl FpgaError {
    pub(crate) fn io(path: &Path, err: io::Error) -> FpgaError {
        FpgaError::Io {
            path: path.to_path_buf(),
            err,
        }
    }
}

/// A family's programs, their options and how their cells and bels count as resources.
pub(crate) struct Tools {
    pub yosys: &'static str,
    pub synth: &'static str,
    pub nextpnr: &'static str,
    pub constraints_flag: &'static str,
    pub unconstrained_flag: &'static str,
    pub placed_flag: &'static str,
    pub placed_ext: &'static str,
    pub packer: &'static str,
    pub bitstream_ext: &'static str,
    /// The resource a mapped cell type uses, and how many of it.
    pub cell: fn(&str) -> Option<(Resource, u64)>,
    /// The nextpnr bel type whose count is the resource's use.
    pub bel: fn(Resource) -> Option<&'static str>,
}

fn tools(family: Family) -> &'static Tools {
    match family {
        Family::Ice40 => &ice40::TOOLS,
        Family::Ecp5 => &ecp5::TOOLS,
    }
}

/// The fields of `manifest.json` the flow reads.
#[derive(Deserialize)]
struct Manifest {
    top: String,
    files: Vec<String>,
    #[serde(default)]
    modules: Vec<ModuleInfo>,
}

#[derive(Deserialize)]
struct ModuleInfo {
    name: String,
    ports: Vec<wrapper::Port>,
}

/// Runs the flow: synthesis, fit check, place and route, bitstream. Writes `synth.json`,
/// `yosys.log`, `nextpnr.log`, `nextpnr-report.json`, the bitstream (see
/// [`FpgaReport::bitstream`]) and `report.json` into `opts.work_dir`.
pub fn run(opts: &FpgaOptions) -> Result<FpgaReport, FpgaError> {
    let device = match &opts.device {
        Some(name) => opts.family.device(name)?,
        None => opts.family.default_device(),
    };
    let (package, package_io) = device.package(opts.package.as_deref())?;
    if !(opts.freq_mhz.is_finite() && opts.freq_mhz > 0.0) {
        return Err(FpgaError::BadFrequency(opts.freq_mhz));
    }
    let manifest = read_manifest(&opts.dir)?;
    let constraints = opts
        .constraints
        .as_deref()
        .map(|c| check_constraints(c, opts.family))
        .transpose()?;
    let work = absolute(&opts.work_dir)?;
    fs::create_dir_all(&work).map_err(|e| FpgaError::io(&work, e))?;
    // Copied into the work directory, which is all the WebAssembly nextpnr can read.
    let constraints = match constraints {
        Some(c) => {
            let name = PathBuf::from(c.file_name().expect("a file has a name"));
            fs::copy(&c, work.join(&name)).map_err(|e| FpgaError::io(&c, e))?;
            Some(name)
        }
        None => None,
    };
    let ports = manifest
        .modules
        .iter()
        .find(|m| m.name == manifest.top)
        .map(|m| m.ports.as_slice());
    let design_io_bits = ports.map(wrapper::io_bits);
    let mut files: Vec<PathBuf> = manifest.files.iter().map(PathBuf::from).collect();
    let top = if constraints.is_some() {
        manifest.top.clone()
    } else {
        let ports = ports.ok_or_else(|| FpgaError::Input {
            path: opts.dir.join("manifest.json"),
            message: format!(
                "lists no ports of top module {} (needed for the estimate wrapper)",
                manifest.top
            ),
        })?;
        let path = work.join(format!("{}.v", wrapper::TOP));
        let text = wrapper::verilog(&manifest.top, ports);
        fs::write(&path, text).map_err(|e| FpgaError::io(&path, e))?;
        files.push(path);
        wrapper::TOP.to_string()
    };
    let t = tools(opts.family);
    let cells = synthesize(t, &opts.dir, &files, &top, &work)?;
    let need = |r: Resource| -> u64 {
        cells
            .iter()
            .filter_map(|(ty, n)| (t.cell)(ty).filter(|(c, _)| *c == r).map(|(_, w)| w * n))
            .sum()
    };
    let capacity = |r: Resource| capacity(device, package_io, r);
    for r in [Resource::Lut, Resource::Flop, Resource::Bram, Resource::Dsp] {
        check_fit(opts.family, device, r, need(r), capacity(r))?;
    }
    if let (Some(_), Some(bits)) = (&constraints, design_io_bits) {
        check_fit(opts.family, device, Resource::Io, bits, package_io)?;
    }
    let placed = pnr::place_and_route(
        t,
        &pnr::Target {
            family: opts.family,
            device,
            package,
            freq_mhz: opts.freq_mhz,
            constraints: constraints.as_deref(),
        },
        &work,
        &top,
    )?;
    let bitstream = format!("{top}.{}", t.bitstream_ext);
    tool::run(
        t.packer,
        &[format!("{top}.{}", t.placed_ext), bitstream.clone()],
        &work,
        &work.join("packer.log"),
    )?;
    let usage = |r: Resource| Usage {
        used: match (t.bel)(r) {
            Some(bel) => placed.used(bel),
            None => need(r),
        },
        available: capacity(r),
    };
    let report = FpgaReport {
        family: opts.family,
        device: device.name.to_string(),
        part: device.part.to_string(),
        package: package.to_string(),
        top,
        design_top: manifest.top.clone(),
        wrapped: constraints.is_none(),
        design_io_bits,
        luts: usage(Resource::Lut),
        flops: usage(Resource::Flop),
        bram: usage(Resource::Bram),
        dsp: usage(Resource::Dsp),
        io: usage(Resource::Io),
        freq_mhz: opts.freq_mhz,
        fmax_mhz: placed.fmax_mhz,
        timing_met: placed.fmax_mhz.is_none_or(|f| f >= opts.freq_mhz),
        synth_cells: cells,
        bitstream,
    };
    let path = work.join("report.json");
    let json = serde_json::to_string_pretty(&report).expect("the report serializes") + "\n";
    fs::write(&path, json).map_err(|e| FpgaError::io(&path, e))?;
    Ok(report)
}

/// The device's capacity of resource `r` (I/O: the package's user I/O).
fn capacity(device: &Device, package_io: u64, r: Resource) -> u64 {
    match r {
        Resource::Lut => device.luts,
        Resource::Flop => device.flops,
        Resource::Bram => device.bram,
        Resource::Dsp => device.dsp,
        Resource::Io => package_io,
    }
}

/// An error naming the resource when `need` exceeds `have`.
pub(crate) fn check_fit(
    family: Family,
    device: &Device,
    resource: Resource,
    need: u64,
    have: u64,
) -> Result<(), FpgaError> {
    if need <= have {
        return Ok(());
    }
    Err(FpgaError::DoesNotFit {
        family,
        device: device.name.to_string(),
        resource,
        need,
        have,
    })
}

fn read_manifest(dir: &Path) -> Result<Manifest, FpgaError> {
    let path = dir.join("manifest.json");
    let input = |message: String| FpgaError::Input {
        path: path.clone(),
        message,
    };
    let text = fs::read_to_string(&path).map_err(|e| {
        input(format!(
            "{e} (expected an output directory of `accelgen generate --all-inferred`)"
        ))
    })?;
    let m: Manifest =
        serde_json::from_str(&text).map_err(|e| input(format!("not an accelgen manifest: {e}")))?;
    if m.files.is_empty() {
        return Err(input("lists no Verilog files".into()));
    }
    Ok(m)
}

/// The constraints file, if it exists and has the family's extension.
fn check_constraints(path: &Path, family: Family) -> Result<PathBuf, FpgaError> {
    let ext = match family {
        Family::Ice40 => "pcf",
        Family::Ecp5 => "lpf",
    };
    if path.extension().and_then(|e| e.to_str()) != Some(ext) {
        return Err(FpgaError::Input {
            path: path.to_path_buf(),
            message: format!("a constraints file for {family} must be a .{ext} file"),
        });
    }
    if !path.is_file() {
        return Err(FpgaError::Input {
            path: path.to_path_buf(),
            message: "constraints file not found".into(),
        });
    }
    Ok(path.to_path_buf())
}

fn absolute(path: &Path) -> Result<PathBuf, FpgaError> {
    std::path::absolute(path).map_err(|e| FpgaError::io(path, e))
}

/// Yosys's `synth_*` of `files` (relative to `dir`, where it runs) with top `top`, the
/// netlist written to `work/synth.json`; its cells by type.
fn synthesize(
    t: &Tools,
    dir: &Path,
    files: &[PathBuf],
    top: &str,
    work: &Path,
) -> Result<BTreeMap<String, u64>, FpgaError> {
    let quoted: Vec<String> = files
        .iter()
        .map(|f| format!("\"{}\"", f.display()))
        .collect();
    let netlist = work.join("synth.json");
    let script = format!(
        "read_verilog {}\n{} -top {top} -json \"{}\"\n",
        quoted.join(" "),
        t.synth,
        netlist.display()
    );
    let script_path = work.join("synth.ys");
    fs::write(&script_path, script).map_err(|e| FpgaError::io(&script_path, e))?;
    tool::run(
        t.yosys,
        &["-s".to_string(), script_path.display().to_string()],
        dir,
        &work.join("yosys.log"),
    )?;
    netlist::cells(t.yosys, &netlist, top)
}
