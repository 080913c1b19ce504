//! The `synth` and `sta` steps: [`crate::synth::synth`] on the point's generated RTL,
//! its netlist, report and fakeram Liberty files kept in `points/<i>/synth/` (the layout
//! [`crate::sta::sta`] reads) with the synth step's cache key, so a later `sta` reuses
//! them while the key matches; and [`crate::sta::sta`] on them.

use super::cache::Metrics;
use super::spec::AsicSpec;
use crate::sta::{self, StaOptions};
use crate::synth::{self, SynthOptions};
use serde_json::json;
use std::path::Path;

/// The file holding the cache key of the synth run whose netlist the directory holds.
const KEY_FILE: &str = "synth.key";

/// Whether `dir` holds the netlist of the synth run with cache key `key`.
pub fn has_netlist(dir: &Path, key: &str) -> bool {
    std::fs::read_to_string(dir.join(KEY_FILE)).is_ok_and(|k| k == key)
}

fn round(x: f64, digits: i32) -> f64 {
    let scale = 10f64.powi(digits);
    (x * scale).round() / scale
}

/// Synthesizes generated output `rtl` per `a`, writing the netlist, the report and the
/// macros' Liberty files into `dir` (replaced) under cache key `key`.
pub fn synth(a: &AsicSpec, rtl: &Path, dir: &Path, key: &str) -> Result<Metrics, String> {
    let r = synth::synth(&SynthOptions {
        dir: rtl.to_path_buf(),
        liberty: a.liberty.clone(),
        top: None,
        depth: a.depth,
        clock_period_ns: a.period_ns,
    })
    .map_err(|e| e.to_string())?;
    let io = |e: std::io::Error| format!("{}: {e}", dir.display());
    if dir.exists() {
        std::fs::remove_dir_all(dir).map_err(io)?;
    }
    std::fs::create_dir_all(dir).map_err(io)?;
    let mut files = r.dir_files();
    files.push((KEY_FILE.into(), key.to_string()));
    for (name, text) in &files {
        std::fs::write(dir.join(name), text).map_err(io)?;
    }
    let mut m = Metrics::new();
    m.insert("area_um2".into(), json!(round(r.area_um2, 1)));
    m.insert("logic_area_um2".into(), json!(round(r.logic_area_um2, 1)));
    m.insert("macro_area_um2".into(), json!(round(r.macro_area_um2, 1)));
    m.insert("flops".into(), json!(r.flops));
    m.insert("cells".into(), json!(r.cells));
    m.insert("wall_s".into(), json!(round(r.wall_s, 2)));
    m.insert("peak_rss_mb".into(), json!(round(r.peak_rss_mb, 0)));
    // Each instance below the top, by its path without the top's name.
    for i in r.instances.iter().filter(|i| i.depth > 0) {
        let path = i.path.split_once('/').map_or(i.path.as_str(), |p| p.1);
        m.insert(
            format!("{}.area_um2", path.replace('/', ".")),
            json!(round(i.subtree_area_um2, 1)),
        );
    }
    Ok(m)
}

/// Times the netlist in `dir` at `a.period_ns`.
pub fn sta(a: &AsicSpec, dir: &Path) -> Result<Metrics, String> {
    let period_ns = a.period_ns.ok_or("no period_ns")?;
    let r = sta::sta(&StaOptions {
        dir: dir.to_path_buf(),
        liberty: a.liberty.clone(),
        period_ns,
        paths: 1,
    })
    .map_err(|e| e.to_string())?;
    let mut m = Metrics::new();
    m.insert("worst_slack_ns".into(), json!(round(r.worst_slack_ns, 4)));
    m.insert("fmax_mhz".into(), json!(round(r.fmax_mhz, 2)));
    m.insert("path_delay_ns".into(), json!(round(r.path_delay_ns, 4)));
    m.insert("levels".into(), json!(r.levels));
    m.insert("startpoint".into(), json!(r.startpoint));
    m.insert("endpoint".into(), json!(r.endpoint));
    m.insert("wall_s".into(), json!(round(r.wall_s, 2)));
    Ok(m)
}
