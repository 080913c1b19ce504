//! Place and route with nextpnr: its options for a device and package, its JSON report
//! (bels used per type, achieved Fmax per clock), and its "does not fit" failure turned
//! into the error naming the resource.

use crate::device::{Device, Family};
use crate::flow::{check_fit, FpgaError, Tools};
use crate::report::{Resource, Usage};
use crate::tool;
use serde::Deserialize;
use std::collections::BTreeMap;
use std::fs;
use std::path::Path;

/// The seed of nextpnr's placer: fixed, so that the same netlist places the same way.
const SEED: &str = "1";

/// The device, package, clock and pins to place and route for.
pub(crate) struct Target<'a> {
    pub family: Family,
    pub device: &'a Device,
    pub package: &'a str,
    pub freq_mhz: f64,
    pub constraints: Option<&'a Path>,
}

/// What nextpnr reported: bels used per type, the lowest achieved Fmax over the clocks.
pub(crate) struct Placed {
    pub utilization: BTreeMap<String, Usage>,
    pub fmax_mhz: Option<f64>,
}

impl Placed {
    pub fn used(&self, bel: &str) -> u64 {
        self.utilization.get(bel).map_or(0, |u| u.used)
    }
}

#[derive(Deserialize)]
struct Report {
    utilization: BTreeMap<String, Usage>,
    #[serde(default)]
    fmax: BTreeMap<String, ClockFmax>,
}

#[derive(Deserialize)]
struct ClockFmax {
    achieved: f64,
}

/// Places and routes `work/synth.json` (top `top`), writing `work/<top>.<placed_ext>`,
/// `nextpnr-report.json` and `nextpnr.log`. Timing failure is not an error: the report
/// says whether the requested frequency was met.
pub(crate) fn place_and_route(
    t: &Tools,
    target: &Target,
    work: &Path,
    top: &str,
) -> Result<Placed, FpgaError> {
    let mut args: Vec<String> = [
        target.device.nextpnr_flag,
        "--package",
        target.package,
        "--json",
        "synth.json",
        "--report",
        "nextpnr-report.json",
        t.placed_flag,
        &format!("{top}.{}", t.placed_ext),
        "--freq",
        &target.freq_mhz.to_string(),
        "--seed",
        SEED,
        "--timing-allow-fail",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    match target.constraints {
        Some(c) => args.extend([t.constraints_flag.to_string(), c.display().to_string()]),
        None => args.push(t.unconstrained_flag.to_string()),
    }
    let log = work.join("nextpnr.log");
    if let Err(e) = tool::run(t.nextpnr, &args, work, &log) {
        let text = fs::read_to_string(&log).unwrap_or_default();
        overflow(t, target, &text)?;
        return Err(e);
    }
    let path = work.join("nextpnr-report.json");
    let text = fs::read_to_string(&path).map_err(|e| FpgaError::io(&path, e))?;
    let report: Report = serde_json::from_str(&text).map_err(|e| FpgaError::BadOutput {
        tool: t.nextpnr.to_string(),
        what: format!("report {}", path.display()),
        message: e.to_string(),
    })?;
    let fmax_mhz = report.fmax.values().map(|c| c.achieved).reduce(f64::min);
    Ok(Placed {
        utilization: report.utilization,
        fmax_mhz,
    })
}

/// The does-not-fit error for the first resource nextpnr's "Device utilisation" lines
/// (`ICESTORM_LC: 6123/ 5280 115%`) show over its capacity.
fn overflow(t: &Tools, target: &Target, log: &str) -> Result<(), FpgaError> {
    for line in log.lines() {
        let line = line.trim_start_matches("Info:").trim();
        let Some((bel, counts)) = line.split_once(':') else {
            continue;
        };
        let Some((used, available)) = counts.split_once('/') else {
            continue;
        };
        let number = |s: &str| s.split_whitespace().next()?.parse::<u64>().ok();
        let (Some(used), Some(available)) = (number(used), number(available)) else {
            continue;
        };
        if let Some(r) = Resource::ALL.into_iter().find(|r| (t.bel)(*r) == Some(bel)) {
            check_fit(target.family, target.device, r, used, available)?;
        }
    }
    Ok(())
}
