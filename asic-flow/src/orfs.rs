//! The OpenROAD-flow-scripts hand-off: a design directory `orfs/` beside the generated
//! Verilog holding `config.mk` (the variables ORFS documents in
//! `flow/scripts/variables.yaml`) and `constraint.sdc`. The config finds every file
//! relative to itself (`ACCELGEN_HOME`, the output directory), so it is used in place:
//! `make -C flow DESIGN_CONFIG=/abs/path/orfs/config.mk` in an ORFS checkout. The
//! Verilog excludes the SRAM macros' behavioural models: the macros are black boxes whose
//! fakeram views come in through `ADDITIONAL_LEFS`/`ADDITIONAL_LIBS`.

use crate::fakeram::{view_path, Tech};
use std::fmt::Write;

/// What the ORFS design directory is made from.
pub struct OrfsDesign<'a> {
    pub platform: Tech,
    /// The accelgen design name (its `-` become `_` in `DESIGN_NICKNAME`).
    pub design: &'a str,
    pub top: &'a str,
    /// Verilog files relative to the output directory, in compilation order.
    pub verilog: &'a [&'a str],
    /// SRAM macro names; their models `<name>.v` are left out of `VERILOG_FILES`.
    pub macros: &'a [&'a str],
}

/// Core utilization (%) without and with SRAM macros: ORFS's own designs use 40 to 50 for
/// logic alone, and leave more room around macros.
const UTILIZATION: (u32, u32) = (40, 30);

/// Standard-cell placement density, a margin over the utilization for timing repair.
const PLACE_DENSITY: &str = "0.60";

/// The halo (um, x and y) kept free around each macro: about ten standard-cell rows.
fn halo(platform: Tech) -> &'static str {
    match platform {
        Tech::Nangate45 => "10 10",
        Tech::Sky130hd => "25 25",
    }
}

/// `orfs/config.mk` and `orfs/constraint.sdc` (a copy of `sdc`), as paths relative to the
/// output directory and their contents.
pub fn files(d: &OrfsDesign, sdc: &str) -> Vec<(String, String)> {
    vec![
        ("orfs/config.mk".to_string(), config_mk(d)),
        ("orfs/constraint.sdc".to_string(), sdc.to_string()),
    ]
}

fn config_mk(d: &OrfsDesign) -> String {
    let home = |f: &str| format!("$(ACCELGEN_HOME)/{f}");
    let verilog: Vec<String> = d
        .verilog
        .iter()
        .filter(|f| !d.macros.iter().any(|m| **f == format!("{m}.v")))
        .map(|f| home(f))
        .collect();
    let mut s = format!(
        "# OpenROAD-flow-scripts design config for {top} (accelgen design {design}),\n\
         # written by accelgen. Use it in place from ORFS's flow/ directory:\n\
         #   make DESIGN_CONFIG=<this directory, absolute>/config.mk\n\
         ACCELGEN_HOME := $(abspath $(dir $(lastword $(MAKEFILE_LIST)))..)\n\n\
         export DESIGN_NAME = {top}\n\
         export DESIGN_NICKNAME = {nick}\n\
         export PLATFORM = {platform}\n\n\
         export VERILOG_FILES = {verilog}\n\
         export SDC_FILE = $(ACCELGEN_HOME)/orfs/constraint.sdc\n\n\
         export CORE_UTILIZATION = {util}\n\
         export PLACE_DENSITY = {PLACE_DENSITY}\n",
        top = d.top,
        design = d.design,
        nick = d.design.replace('-', "_"),
        platform = d.platform,
        verilog = continued(&verilog),
        util = if d.macros.is_empty() {
            UTILIZATION.0
        } else {
            UTILIZATION.1
        },
    );
    if !d.macros.is_empty() {
        let views = |ext| -> Vec<String> {
            d.macros
                .iter()
                .map(|m| home(&view_path(m, d.platform, ext)))
                .collect()
        };
        let _ = write!(
            s,
            "\n# The SRAM macros: black boxes with accelgen's fakeram views.\n\
             export ADDITIONAL_LEFS = {}\n\
             export ADDITIONAL_LIBS = {}\n\
             export MACRO_PLACE_HALO = {}\n",
            continued(&views("lef")),
            continued(&views("lib")),
            halo(d.platform)
        );
    }
    s
}

/// Words on continuation lines, one per line.
fn continued(words: &[String]) -> String {
    words.join(" \\\n  ")
}
