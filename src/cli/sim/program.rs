//! `accelgen sim --program`: a program on a processor design, optionally in lockstep
//! with the ISS (and the accelerator's golden model), checked before the model is built.

use super::SimArgs;
use crate::cli::iss::process_status;
use anyhow::Context;
use generators::hwacha::soc::RocketHwachaParams;
use std::path::Path;
use verification::elf::Program;
use verification::exit::explain;
use verification::hwacha::model::{Hwacha, HwachaParams as HwachaModelParams};
use verification::iss::rocc::Accumulator;
use verification::iss::FpExt;
use verification::tb::lockstep::IssGolden;
use verification::tb::program::{soc_config, Accelerator};
use verification::tb::soc::{self, SocConfig};
use verification::verilator::Model;

/// Runs `program` (`args.program`) on a processor design; prints cycles, instructions
/// and CPI to stderr (stdout is the program's), explains a failing exit, and returns
/// the exit code (see [`process_status`]).
pub fn run(
    model: &mut Model,
    program: &Program,
    args: &SimArgs,
    accel: Accelerator,
    params: &toml::Table,
) -> anyhow::Result<u8> {
    let hwacha: Option<RocketHwachaParams> = match accel {
        Accelerator::Hwacha { .. } => Some(params.clone().try_into()?),
        _ => None,
    };
    let mem = args.mem_config();
    let defaults = soc_config(accel, mem, args.max_cycles);
    // The vector unit's dynamic rounding mode (`--frm` is checked to be for it).
    let frm = (defaults.frm).map(|rne| args.frm.map_or(rne, |m| m as u32));
    let config = SocConfig {
        init: super::init(args.init_seed),
        frm,
        ..defaults
    };
    // A `rocket` design with `fpu` has F; the golden model must too.
    let fp = match params.get("fpu").and_then(toml::Value::as_bool) {
        Some(true) => FpExt::F,
        _ => FpExt::None,
    };
    let golden = if args.lockstep {
        Some(golden(program, accel, hwacha.zip(frm).as_ref(), fp)?)
    } else {
        None
    };
    let path = args.program.as_deref().unwrap_or(Path::new("program"));
    let (out, seconds) = super::running(path, |stdout, stderr| {
        soc::run(model, program, &config, stdout, stderr, golden)
    });
    let out = out?;
    eprintln!(
        "{}: exit code {}, {} cycles, {} instructions, CPI {:.3}{}{}{} ({:.0} cycles/s)",
        path.display(),
        out.exit_code,
        out.cycles,
        out.instret,
        out.cpi(),
        match out.last_accelerator_trap {
            None => String::new(),
            Some((cause, tval)) => format!(
                ", {} accelerator exception(s) taken (the last: cause {cause}, tval {tval:#x})",
                out.accelerator_traps
            ),
        },
        match out.fflags {
            None => String::new(),
            Some(f) => format!(", vector FP flags {f:#04x}{}", fflag_names(f)),
        },
        if args.lockstep {
            format!(", {} commits matched the ISS", out.matched)
        } else {
            String::new()
        },
        out.cycles as f64 / seconds.max(1e-9)
    );
    if let Some(why) = explain(program, out.exit_code, out.trap) {
        eprintln!("{}: {why}", path.display());
    }
    Ok(process_status(out.exit_code))
}

/// fflags bits named: " (NV DZ OF UF NX)" as set, nothing when none is.
fn fflag_names(f: u8) -> String {
    let names = ["NX", "UF", "OF", "DZ", "NV"];
    let set: Vec<&str> = (0..5)
        .rev()
        .filter(|b| f >> b & 1 == 1)
        .map(|b| names[b])
        .collect();
    if set.is_empty() {
        String::new()
    } else {
        format!(" ({})", set.join(" "))
    }
}

/// The ISS with the design's accelerator's golden model on its RoCC port (a Hwacha unit
/// with the design's parameters and dynamic rounding mode).
fn golden(
    program: &Program,
    accel: Accelerator,
    hwacha: Option<&(RocketHwachaParams, u32)>,
    fp: FpExt,
) -> anyhow::Result<IssGolden> {
    let mut g = soc::golden_with(program, u64::MAX, fp).context("starting the ISS")?;
    match hwacha {
        Some((p, frm)) => {
            // The RTL delivers worker-thread exceptions late, and its memory orders
            // colliding AMOs; the model follows both.
            let mut unit = Hwacha::new(hwacha_model(&p.hwacha))?;
            unit.set_frm(*frm)?;
            unit.follow_memory_order(&soc::hwacha_lane_ports(p.hwacha.lanes));
            g.iss_mut().attach_rocc(Box::new(unit))
        }
        None if accel == Accelerator::Accumulator => {
            g.iss_mut().attach_rocc(Box::new(Accumulator::default()))
        }
        None => {}
    }
    Ok(g)
}

/// The golden model of a Hwacha unit with the RTL's parameters.
fn hwacha_model(p: &generators::hwacha::params::HwachaParams) -> HwachaModelParams {
    HwachaModelParams::of_rtl(p)
}
