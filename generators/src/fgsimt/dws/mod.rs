//! Dynamic warp subdivision (seed 001; `../shared/specs/001-dynamic-warp-subdivision.md`):
//! the DWS sequencer in RTL, the golden model's `verification::fgsimt::dws::control`
//! (`DwsControl`) register for register. Blocks, one file each:
//! - `params.rs`: its parameters (the model's `DwsConfig` but the machine's);
//! - `state.rs`: the group table (the WST's entries, section 2.2) and the re-convergence
//!   stacks (Fig. 3) as values within a cycle;
//! - `sync.rs`: the start of a cycle: starts, fills, wakes, merges at the top of stack,
//!   slots (section 3, steps 1-5);
//! - `reconv_table.rs`: the kernel's branches' post-dominators, loaded before a launch
//!   (sections 2.1 and 2.3);
//! - `action.rs`: the pick and its action: re-convergence, branch splits and pushes,
//!   PC-based merges and memory splits, threads' ends, ReviveSplit (sections 2.3-2.5);
//! - `sequencer.rs`: the registers and ports (`DwsSequencer`).
//!
//! Not yet in the engine: the design `dws` is the sequencer alone (for lint, synthesis
//! and the WST's area), in lockstep with the golden model's datapath
//! (`tests/fgsimt_dws_rtl.rs`); the slip policy is the model's only.

pub mod action;
pub mod params;
pub mod reconv_table;
pub mod sequencer;
pub mod state;
pub mod sync;

use crate::schema::Param;
use crate::{Generator, ParamError};
use hdl::{HdlErrors, Module};
use std::rc::Rc;

/// The design `dws`: the sequencer alone (`sequencer.rs`).
pub struct Dws;

impl Generator for Dws {
    type Params = params::DwsParams;
    const NAME: &'static str = "dws";
    const DESCRIPTION: &'static str =
        "dynamic warp subdivision's sequencer: WST, re-convergence stacks, scheduler slots (seed 001)";

    fn params() -> Vec<Param> {
        params::params()
    }

    fn validate(p: &params::DwsParams) -> Result<(), ParamError> {
        p.validate()
    }

    fn build(p: &params::DwsParams) -> Result<Rc<Module>, HdlErrors> {
        sequencer::sequencer(p)
    }
}
