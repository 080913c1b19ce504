//! The sweep spec (TOML) and its validation into a [`Plan`].
//!
//! Core keys: `design = "NAME"`, optional `config = "FILE"` (relative to the spec),
//! `steps = ["generate", "lint", PROGRAM...]` and `[axes]`, mapping parameter names
//! (dotted for nested ones: `"hwacha.lanes"`) to a list of values, `{ values = [...] }`,
//! or an inclusive integer range `{ from, to, step }` (arithmetic) or
//! `{ from, to, times }` (geometric: 1, 2, 4...). Beside them: `invalid_points =
//! "error"|"row"` (a point whose parameters the design refuses is an error before
//! anything runs, the default, or a failed row), `[fpga]` (`family`, `device`,
//! `freq_mhz`: the `fpga` step's target), and `[[programs]]` entries, each a step named by
//! its `name` (see [`ProgramSpec`]). Everything is checked before any point runs,
//! and each error names its spec key.

use super::steps::StepKind;
use super::SweepError;
use generators::DesignInfo;
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};

/// The spec as written.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawSpec {
    design: String,
    config: Option<PathBuf>,
    steps: Vec<String>,
    axes: toml::Table,
    #[serde(default)]
    invalid_points: InvalidPoints,
    #[serde(default)]
    programs: Vec<RawProgram>,
    fpga: Option<FpgaSpec>,
    /// The Liberty of the `synth` and `sta` steps, relative to the spec.
    liberty: Option<PathBuf>,
    /// The clock period `synth` aims at and `sta` times, in ns.
    period_ns: Option<f64>,
    /// Deepest instance level whose area `synth` reports (the top is 0; default 1).
    synth_depth: Option<usize>,
}

/// A `[[programs]]` entry as written.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawProgram {
    name: String,
    /// An RV64 ELF, relative to the spec.
    elf: Option<PathBuf>,
    /// C and assembly sources (Hwacha mnemonics allowed) built into one ELF with the
    /// project's runtime, relative to the spec.
    #[serde(default)]
    sources: Vec<PathBuf>,
    /// Preprocessor definitions for the sources (`NAME` or `NAME=VALUE`).
    #[serde(default)]
    defines: Vec<String>,
    /// Elements the program processes: gives the `elements_per_cycle` metric.
    elements: Option<u64>,
    max_cycles: Option<u64>,
}

/// What a point whose parameters the design refuses becomes.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum InvalidPoints {
    /// An error before anything runs.
    #[default]
    Error,
    /// A row carrying the design's error; the other points run.
    Row,
}

/// A program step: an ELF run to its exit on the design's RTL in Verilator.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ProgramSpec {
    pub name: String,
    /// An ELF, or the sources to build into one (absolute paths), with `defines`.
    pub elf: Option<PathBuf>,
    pub sources: Vec<PathBuf>,
    pub defines: Vec<String>,
    pub elements: Option<u64>,
    pub max_cycles: u64,
}

/// The `[fpga]` table: the target of the `fpga` step.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FpgaSpec {
    pub family: fpga::device::Family,
    /// accelgen's device name (`up5k`, `85k`); the family's largest if none.
    pub device: Option<String>,
    /// The clock asked of place and route; the family's default if none.
    pub freq_mhz: Option<f64>,
}

/// The Liberty and clock of the `synth` and `sta` steps.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct AsicSpec {
    /// An absolute path.
    pub liberty: PathBuf,
    /// Required by `sta`; `synth` aims at the generated SDC's period without it.
    pub period_ns: Option<f64>,
    pub depth: usize,
}

/// One axis: a parameter's dotted name and its values, in order.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Axis {
    pub name: String,
    pub values: Vec<toml::Value>,
}

/// A validated sweep: everything a point needs to run, with no reference to the spec file.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Plan {
    pub design: String,
    /// The base config's parameters.
    pub base: toml::Table,
    pub axes: Vec<Axis>,
    pub steps: Vec<StepKind>,
    pub invalid_points: InvalidPoints,
    /// The accelgen version that made the plan: part of every cache key.
    pub accelgen: String,
}

/// The largest spec or config file read, in bytes.
const MAX_FILE_BYTES: u64 = 1 << 20;

impl Plan {
    /// Reads and validates the spec at `path` (not yet each point: see
    /// [`super::points::expand`]). `accelgen` is the version string of the caller.
    pub fn load(path: &Path, accelgen: &str) -> Result<Plan, SweepError> {
        let err = |key: &str, message: String| SweepError::Spec {
            spec: path.to_path_buf(),
            key: key.to_string(),
            message,
        };
        let mut raw: RawSpec = toml::from_str(&read_text(path)?)
            .map_err(|e| err("(spec)", e.message().to_string()))?;
        let info = generators::design(&raw.design).map_err(|e| err("design", e.to_string()))?;
        let spec_dir = path.parent().unwrap_or(Path::new("."));
        if let Some(lib) = &raw.liberty {
            let lib = spec_dir.join(lib);
            let lib = lib
                .canonicalize()
                .map_err(|e| err("liberty", format!("{}: {e}", lib.display())))?;
            raw.liberty = Some(lib);
        }
        let base = match &raw.config {
            Some(c) => {
                let file = spec_dir.join(c);
                let text = read_text(&file).map_err(|e| err("config", e.to_string()))?;
                let table: toml::Table = text
                    .parse()
                    .map_err(|e| err("config", format!("{}: {e}", file.display())))?;
                info.validate(&table)
                    .map_err(|e| err("config", format!("{}: {e}", file.display())))?;
                table
            }
            None => toml::Table::new(),
        };
        if raw.axes.is_empty() {
            return Err(err("axes", "names no parameter".into()));
        }
        let axes = raw
            .axes
            .iter()
            .map(|(name, v)| axis(&info, name, v).map_err(|m| err(&format!("axes.{name:?}"), m)))
            .collect::<Result<Vec<_>, _>>()?;
        let programs = raw
            .programs
            .iter()
            .enumerate()
            .map(|(i, p)| program(spec_dir, p).map_err(|m| err(&format!("programs[{i}]"), m)))
            .collect::<Result<Vec<_>, _>>()?;
        if let Some(f) = &raw.fpga {
            if let Some(d) = &f.device {
                f.family
                    .device(d)
                    .map_err(|e| err("fpga.device", e.to_string()))?;
            }
            if f.freq_mhz.is_some_and(|m| !(m.is_finite() && m > 0.0)) {
                return Err(err("fpga.freq_mhz", "must be a positive number".into()));
            }
        }
        let steps = steps(&info, &raw, &programs).map_err(|m| err("steps", m))?;
        Ok(Plan {
            design: raw.design,
            base,
            axes,
            steps,
            invalid_points: raw.invalid_points,
            accelgen: accelgen.to_string(),
        })
    }
}

fn read_text(path: &Path) -> Result<String, SweepError> {
    use std::io::Read;
    let mut bytes = Vec::new();
    std::fs::File::open(path)
        .and_then(|f| f.take(MAX_FILE_BYTES + 1).read_to_end(&mut bytes))
        .map_err(|e| SweepError::io(path, e))?;
    if bytes.len() as u64 > MAX_FILE_BYTES {
        return Err(SweepError::io(path, "larger than 1 MiB: not a spec"));
    }
    String::from_utf8(bytes).map_err(|_| SweepError::io(path, "not UTF-8 text"))
}

/// The axis of parameter `name` with values given as `spec`: each value checked against
/// the parameter's description (type and range).
fn axis(info: &DesignInfo, name: &str, spec: &toml::Value) -> Result<Axis, String> {
    let param = info.params.iter().find(|p| p.name == name).ok_or_else(|| {
        let known: Vec<&str> = info.params.iter().map(|p| p.name.as_str()).collect();
        format!(
            "design `{}` has no parameter `{name}` (parameters: {})",
            info.name,
            known.join(", ")
        )
    })?;
    let values = axis_values(spec)?;
    if values.is_empty() {
        return Err("the axis has no values".into());
    }
    for v in &values {
        param.param.check(name, v).map_err(|e| match e {
            generators::schema::Invalid::Value(e) => format!("value {v}: {e}"),
            generators::schema::Invalid::Unknown { path, .. } => {
                format!("value {v}: `{path}` is no parameter")
            }
        })?;
    }
    Ok(Axis {
        name: name.to_string(),
        values,
    })
}

/// The values of an axis: a list, `{ values = [...] }`, `{ from, to, step }` or
/// `{ from, to, times }`.
fn axis_values(spec: &toml::Value) -> Result<Vec<toml::Value>, String> {
    let table = match spec {
        toml::Value::Array(values) => return Ok(values.clone()),
        toml::Value::Table(t) => t,
        other => {
            return Err(format!(
                "expected a list of values or a range table, got {other}"
            ))
        }
    };
    let mut keys: Vec<&str> = table.keys().map(String::as_str).collect();
    keys.sort_unstable();
    let int = |key: &str| {
        table[key]
            .as_integer()
            .ok_or_else(|| format!("`{key}` must be an integer, got {}", table[key]))
    };
    match keys.as_slice() {
        ["values"] => match &table["values"] {
            toml::Value::Array(values) => Ok(values.clone()),
            other => Err(format!("`values` must be a list, got {other}")),
        },
        ["from", "step", "to"] | ["from", "times", "to"] => {
            let (from, to) = (int("from")?, int("to")?);
            let geometric = table.contains_key("times");
            let by = int(if geometric { "times" } else { "step" })?;
            if from > to || by < 1 + i64::from(geometric) {
                return Err(format!(
                    "range from {from} to {to} by {by}: need from <= to and a {} >= {}",
                    if geometric { "times" } else { "step" },
                    1 + i64::from(geometric)
                ));
            }
            let mut values = Vec::new();
            let mut v = from;
            while v <= to && values.len() < 10_000 {
                values.push(toml::Value::Integer(v));
                v = if geometric { v * by } else { v + by };
            }
            Ok(values)
        }
        _ => Err(format!(
            "a range table has `values`, or `from`, `to` and `step` or `times`; got keys {keys:?}"
        )),
    }
}

/// The `synth`/`sta` options: `liberty` (made absolute by [`Plan::load`]), `period_ns`
/// and `synth_depth`.
fn asic(raw: &RawSpec) -> Result<AsicSpec, String> {
    let liberty = raw
        .liberty
        .clone()
        .ok_or("steps `synth` and `sta` need `liberty` (a .lib or .lib.gz file)")?;
    if raw.period_ns.is_some_and(|p| !(p.is_finite() && p > 0.0)) {
        return Err("`period_ns` must be a positive number".into());
    }
    Ok(AsicSpec {
        liberty,
        period_ns: raw.period_ns,
        depth: raw.synth_depth.unwrap_or(1),
    })
}

fn program(spec_dir: &Path, p: &RawProgram) -> Result<ProgramSpec, String> {
    let what = format!("program `{}`", p.name);
    if p.name.is_empty()
        || !p
            .name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-')
    {
        return Err(format!("{what}: a name is letters, digits, `_` and `-`"));
    }
    if p.elf.is_some() != p.sources.is_empty() {
        return Err(format!("{what}: give one of `elf` or `sources`"));
    }
    let resolve = |path: &PathBuf| {
        let path = spec_dir.join(path);
        path.canonicalize()
            .map_err(|e| format!("{what}: {}: {e}", path.display()))
    };
    if p.elements == Some(0) {
        return Err(format!("{what}: `elements` must be positive"));
    }
    Ok(ProgramSpec {
        name: p.name.clone(),
        elf: p.elf.as_ref().map(resolve).transpose()?,
        sources: p.sources.iter().map(resolve).collect::<Result<_, _>>()?,
        defines: p.defines.clone(),
        elements: p.elements,
        max_cycles: p.max_cycles.unwrap_or(50_000_000),
    })
}

/// The steps named in `names`, in order: built-in steps and `[[programs]]` by name.
fn steps(
    info: &DesignInfo,
    raw: &RawSpec,
    programs: &[ProgramSpec],
) -> Result<Vec<StepKind>, String> {
    let names = &raw.steps;
    if names.is_empty() {
        return Err("lists no step".into());
    }
    let mut steps: Vec<StepKind> = Vec::new();
    for name in names {
        let step = match StepKind::builtin(name) {
            Some(s) => s,
            None if name == "synth" || name == "sta" => {
                let asic = asic(raw)?;
                if name == "synth" {
                    StepKind::Synth(asic)
                } else if asic.period_ns.is_none() {
                    return Err("step `sta` needs `period_ns`".into());
                } else if !steps.iter().any(|s| matches!(s, StepKind::Synth(_))) {
                    return Err("step `sta` times the netlist of a `synth` step before it".into());
                } else {
                    StepKind::Sta(asic)
                }
            }
            None if name == "fpga" => StepKind::Fpga(
                raw.fpga
                    .clone()
                    .ok_or("step `fpga` needs an [fpga] table (family, device, freq_mhz)")?,
            ),
            None => {
                let p = programs.iter().find(|p| &p.name == name).ok_or_else(|| {
                    format!(
                        "unknown step `{name}` (steps: {}, or a [[programs]] name)",
                        StepKind::BUILTIN.join(", ")
                    )
                })?;
                if !super::program::runs_programs(info.name) {
                    return Err(format!(
                        "program step `{name}`: design `{}` does not run programs",
                        info.name
                    ));
                }
                StepKind::Program(p.clone())
            }
        };
        if steps.iter().any(|s| s.name() == step.name()) {
            return Err(format!("step `{name}` is listed twice"));
        }
        steps.push(step);
    }
    Ok(steps)
}

#[cfg(test)]
mod tests {
    use super::axis_values;

    fn values(spec: &str) -> Result<Vec<i64>, String> {
        let v: toml::Table = format!("a = {spec}").parse().unwrap();
        axis_values(&v["a"]).map(|vs| vs.iter().map(|v| v.as_integer().unwrap()).collect())
    }

    #[test]
    fn ranges_are_inclusive_arithmetic_or_geometric() {
        assert_eq!(
            values("{ from = 8, to = 32, step = 8 }"),
            Ok(vec![8, 16, 24, 32])
        );
        assert_eq!(
            values("{ from = 1, to = 10, times = 2 }"),
            Ok(vec![1, 2, 4, 8])
        );
        assert_eq!(values("{ values = [3, 1] }"), Ok(vec![3, 1]));
        assert_eq!(values("[5]"), Ok(vec![5]));
        assert!(values("{ from = 1, to = 4, times = 1 }").is_err());
        assert!(values("{ from = 1, to = 4 }")
            .unwrap_err()
            .contains("got keys"));
    }
}
