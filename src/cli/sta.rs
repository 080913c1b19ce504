//! `accelgen sta OUT --liberty LIB --period NS`: OpenSTA on the netlist of `accelgen
//! synth`: worst slack, Fmax and the worst paths, as a table or JSON on stdout.

use anyhow::Context;
use asic_flow::sta::{self, StaOptions, StaReport};
use clap::Args;
use std::path::PathBuf;

#[derive(Args)]
pub struct StaArgs {
    /// Output directory of `accelgen synth`.
    dir: PathBuf,
    /// The Liberty the netlist was mapped to (`.lib` or `.lib.gz`).
    #[arg(long, value_name = "LIB")]
    liberty: PathBuf,
    /// Clock period, in ns.
    #[arg(long, value_name = "NS")]
    period: f64,
    /// How many worst paths (to distinct endpoints) to list.
    #[arg(long, default_value_t = 5)]
    paths: usize,
    /// Print the report as JSON instead of text.
    #[arg(long)]
    json: bool,
}

pub fn run(args: StaArgs) -> anyhow::Result<u8> {
    let report = sta::sta(&StaOptions {
        dir: args.dir.clone(),
        liberty: args.liberty,
        period_ns: args.period,
        paths: args.paths,
    })
    .with_context(|| format!("timing {}", args.dir.display()))?;
    if args.json {
        println!("{}", serde_json::to_string_pretty(&report)?);
    } else {
        print!("{}", text(&report));
    }
    Ok(0)
}

fn text(r: &StaReport) -> String {
    let mut s = format!(
        "{} at {} ns: worst slack {:.3} ns, Fmax {:.1} MHz\n  critical path: {} (drives {}) \
         -> {} ({:.3} ns, {} cells)\n",
        r.top,
        r.period_ns,
        r.worst_slack_ns,
        r.fmax_mhz,
        r.startpoint,
        r.start_net,
        r.endpoint,
        r.path_delay_ns,
        r.levels
    );
    for p in &r.paths {
        s += &format!(
            "  slack {:>8.3}  {} ({}, drives {}) -> {} ({})\n",
            p.slack_ns, p.startpoint, p.start_kind, p.start_net, p.endpoint, p.end_kind
        );
    }
    s
}
