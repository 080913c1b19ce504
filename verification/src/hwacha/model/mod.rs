//! Golden model of the Hwacha vector unit (Lee's thesis, chapter 7), attached to the
//! RV64 ISS through its RoCC port.
//!
//! The control thread's commands (`vsetcfg`, `vsetvl`, `vgetcfg`, `vgetvl`, `vuncfg`,
//! `vmcs`, `vmca`, `vf`) arrive as RoCC commands; `vf` runs a vector-fetch block of
//! 64-bit worker-thread instructions from memory until `vstop`. Both threads decode with
//! the encoding table the assembler uses too ([`crate::hwacha::encoding`]).
//!
//! Exceptions are typed ([`HwachaError`]). Through [`Hwacha::command`] a caller gets them
//! directly; through the ISS's RoCC port the core takes the matching RISC-V trap on the
//! control-thread instruction that raised it (the vector unit raises its exceptions to
//! the control processor, thesis 7.2), with mepc at that instruction:
//!
//! | exception | mcause | mtval |
//! |---|---|---|
//! | control thread: accelerator disabled (unconfigured), illegal `vsetcfg` configuration, `vmcs` past vs63, not in Table 7.1 | 2 illegal instruction | the control-thread instruction |
//! | worker thread, at `vf`: illegal instruction (any reason of [`Illegal`]) | 2 illegal instruction | the 64-bit worker instruction (low bits 0x3f: a 64-bit encoding) |
//! | worker: misaligned vpc, vpc outside memory | 0 / 1 instruction misaligned / access fault | the vpc |
//! | worker: misaligned load, store or AMO | 4 / 6 | the address |
//! | worker: load, store or AMO outside memory | 5 / 7 | the address |
//!
//! RISC-V has no accelerator-disabled cause: as for an F instruction while mstatus.FS
//! is Off, it is an illegal instruction. AMOs fault as stores, as RISC-V's do. The
//! worker-thread detail (the vpc of the faulting instruction, its bits, the reason, the
//! access size) stays with the model, in [`Hwacha::exception`] (as Hwacha's
//! `vxcptcause`/`vxcptaux` would hold it). A block that runs past the model's step
//! limit is no exception of the architecture: the ISS stops with an error.
//!
//! For lockstep with a design whose memory performs vector AMOs (thesis: the L2), the
//! unit has a memory-order mode ([`Hwacha::follow_memory_order`]): AMOs of one
//! instruction colliding on one address are applied in the order the design's memory
//! performed them (handed over with [`RoccAccelerator::memory_amos`]), any order being
//! legal, rather than in element order. The memory performs them after the core has
//! sent the `vf`, so in this mode every command's work on the registers and memory is
//! put off until the core's next `fence` (when the design's unit has finished it) or
//! until the core takes a deferred exception; responses and control-thread exceptions
//! stay immediate (they depend on the control state alone). An AMO element claims the
//! first performed AMO of the same address, size, operation and operand, from its lane
//! when the lanes' memory ports are known (element e is in lane `(e / strip) % L`, a
//! strip being B*S elements, the machine's striping); elements of one lane alike in all
//! of these are taken in element order (the order a lane sends them in), and an
//! element the memory has not reported goes after those it has, in element order.
//!
//! Floating point (half, single, double; `fp.rs`) is IEEE-exact on a soft-float
//! library with RISC-V's NaN, min/max, conversion and tininess rules. Its flags accrue in
//! the unit ([`Hwacha::take_fflags`]) and its dynamic rounding mode is set with
//! [`Hwacha::set_frm`], since the ISS has no F extension to hold `fcsr`. The
//! mixed-precision forms of the encoding file (`vfadd.s.h`, ...), which the thesis's
//! tables do not list, read narrow sources, widen them exactly and round once in the
//! wider format: our reading, written down in `fp.rs`.
//!
//! Choices where the thesis leaves room, each written down where it is made:
//! `vsetcfg` zeroes the data registers and sets vp0 (config in `state.rs`); a `vf` with
//! vlen 0 does nothing (`control.rs`); `vlui`/`vauipc` put their immediate in the upper
//! 32 bits (`exec.rs`); `veidx` returns the element index shifted left by rs1;
//! narrow registers keep the low bits of what they are written and read back
//! sign-extended (`state.rs`).

mod config;
mod control;
mod decode;
mod error;
mod exec;
mod fpnames;
mod mem;
mod state;
mod trace;

pub use crate::fp::{flags as fflags, Arith, FCmp, Fma, Fmt, FpOp, IntKind, WideningOp};
/// The operand fields [`Insn`] is read by.
pub use crate::hwacha::encoding::Field;
pub use config::{HwachaParams, ParamError, Vcfg};
pub use control::instruction_bits;
pub use decode::{AmoOp, CmpOp, ImmOp, Insn, IntOp, MemOp, Mode, Op, Width};
pub use error::{HwachaError, Illegal};
pub use state::{State, NUM_VA, NUM_VS};
pub use trace::{Effect, Retired};

use crate::iss::mem::Memory;
use crate::iss::rocc::{RoccAccelerator, RoccCommand, RoccError};
use crate::tb::memory::AmoRecord;
use control::{Action, ControlView};
use decode::Decoder;
use mem::AmoOrder;
use std::cell::RefCell;
use std::collections::VecDeque;
use std::rc::Rc;

/// The Hwacha unit: parameters, architectural state, decoders and the worker trace.
pub struct Hwacha {
    params: HwachaParams,
    decoder: Decoder,
    state: State,
    tracing: bool,
    trace: Vec<Retired>,
    exception: Option<HwachaError>,
    /// Worker-thread exceptions are delivered late (see [`Hwacha::set_imprecise`]).
    imprecise: bool,
    /// The worker-thread exception waiting to be delivered.
    pending: Option<HwachaError>,
    /// The control state as of the last command (ahead of `state` in memory-order mode).
    view: ControlView,
    /// Memory-order mode: the actions put off, and the AMOs memory performed.
    deferred: Option<Deferred>,
}

/// The work memory-order mode puts off until a fence.
struct Deferred {
    actions: VecDeque<Action>,
    amos: AmoOrder,
}

impl Hwacha {
    /// A unit in its reset state (unconfigured).
    pub fn new(params: HwachaParams) -> Result<Hwacha, ParamError> {
        params.validate()?;
        let state = State::new(&params);
        Ok(Hwacha {
            decoder: Decoder::new(),
            view: ControlView::of(&state),
            deferred: None,
            state,
            params,
            tracing: false,
            trace: Vec::new(),
            exception: None,
            imprecise: false,
            pending: None,
        })
    }

    pub fn params(&self) -> &HwachaParams {
        &self.params
    }

    pub fn state(&self) -> &State {
        &self.state
    }

    /// Records retired worker-thread instructions from now on (or stops recording).
    pub fn set_tracing(&mut self, on: bool) {
        self.tracing = on;
    }

    /// The worker-thread instructions retired since the last call, oldest first.
    pub fn take_trace(&mut self) -> Vec<Retired> {
        std::mem::take(&mut self.trace)
    }

    /// Sets the dynamic rounding mode (RISC-V frm, 0-4) that worker instructions with
    /// rm = 7 use; the control thread's frm would be inherited at `vf`, but the ISS has
    /// no F extension, so the host sets it here.
    pub fn set_frm(&mut self, rm: u32) -> Result<(), HwachaError> {
        if rm > 4 {
            return Err(HwachaError::ReservedRoundingMode { rm });
        }
        self.state.frm = rm;
        Ok(())
    }

    /// The floating-point exception flags accrued so far (RISC-V fflags bits), cleared.
    pub fn take_fflags(&mut self) -> u8 {
        std::mem::take(&mut self.state.fflags)
    }

    /// Delivers worker-thread exceptions as the RTL unit does (the control processor runs
    /// ahead of the blocks it queues): the `vf` that raised one completes, the exception
    /// waits until the core takes it ([`RoccAccelerator::take_deferred`], called where
    /// the design's core took it), and until then the unit drops `vmcs`, `vmca` and `vf`
    /// (configuration commands still apply). Control-thread exceptions stay precise.
    pub fn set_imprecise(&mut self, on: bool) {
        self.imprecise = on;
    }

    /// Enters memory-order mode (see the module docs), which delivers worker-thread
    /// exceptions late as [`Hwacha::set_imprecise`] does. `lane_ports` names the memory
    /// port (as in [`AmoRecord::port`]) each lane sends its AMOs through; empty when not
    /// known. `state` then lags the commands until [`Hwacha::catch_up`] (a fence).
    pub fn follow_memory_order(&mut self, lane_ports: &[usize]) {
        self.imprecise = true;
        if self.deferred.is_none() {
            let p = &self.params;
            let strip = p.banks as u64 * (p.bank_width as u64 / 64);
            self.deferred = Some(Deferred {
                actions: VecDeque::new(),
                amos: AmoOrder::new(lane_ports, p.lanes, strip),
            });
        }
    }

    /// Records AMOs the design's memory performed, in its order (memory-order mode; else
    /// ignored).
    pub fn memory_amos(&mut self, performed: &[AmoRecord]) {
        if let Some(d) = &mut self.deferred {
            d.amos.record(performed);
        }
    }

    /// Does the work put off in memory-order mode, in command order.
    pub fn catch_up(&mut self, mem: &mut Memory) -> Result<(), HwachaError> {
        while let Some(action) = self.deferred.as_mut().and_then(|d| d.actions.pop_front()) {
            if let Err(e) = self.apply(action, mem) {
                self.exception = Some(e.clone());
                return Err(e);
            }
        }
        Ok(())
    }

    /// Whether a worker-thread exception waits to be delivered (imprecise mode).
    pub fn halted(&self) -> bool {
        self.pending.is_some()
    }

    /// The most recent exception, if any command raised one.
    pub fn exception(&self) -> Option<&HwachaError> {
        self.exception.as_ref()
    }

    /// Executes one control-thread command, with `mem` as the memory the worker thread
    /// sees. Returns the response for rd.
    pub fn command(&mut self, cmd: &RoccCommand, mem: &mut Memory) -> Result<u64, HwachaError> {
        let result = self.control(cmd, mem);
        if let Err(e) = &result {
            self.exception = Some(e.clone());
        }
        result
    }

    /// Decides the command, then applies it now or, in memory-order mode, puts it off.
    fn control(&mut self, cmd: &RoccCommand, mem: &mut Memory) -> Result<u64, HwachaError> {
        let mut view = self.view;
        let (response, action) = self.decide(&mut view, cmd)?;
        self.view = view;
        match &mut self.deferred {
            Some(d) => d.actions.push_back(action),
            None => self.apply(action, mem)?,
        }
        Ok(response)
    }

    /// Decodes a worker-thread word and checks it against the current configuration.
    pub fn decode(&self, bits: u64) -> Result<Insn, Illegal> {
        let insn = self.decoder.decode(bits)?;
        insn.check(&self.state.vcfg)?;
        Ok(insn)
    }
}

impl RoccAccelerator for Hwacha {
    fn execute(&mut self, cmd: &RoccCommand, mem: &mut Memory) -> Result<u64, RoccError> {
        self.command(cmd, mem).map_err(|e| rocc_error(e, cmd))
    }

    fn take_deferred(&mut self, mem: &mut Memory) -> Option<RoccError> {
        if let Err(e) = self.catch_up(mem) {
            return Some(rocc_error(e, &NO_COMMAND));
        }
        self.pending.take().map(|e| rocc_error(e, &NO_COMMAND))
    }

    fn fence(&mut self, mem: &mut Memory) -> Result<(), RoccError> {
        self.catch_up(mem).map_err(|e| rocc_error(e, &NO_COMMAND))
    }

    fn memory_amos(&mut self, performed: &[AmoRecord]) {
        Hwacha::memory_amos(self, performed);
    }

    /// The worker thread's accrued flags, not cleared ([`Hwacha::take_fflags`] clears).
    fn fflags(&self) -> Option<u8> {
        Some(self.state.fflags)
    }
}

/// The command of errors raised by put-off work: only worker-thread exceptions and the
/// step limit arise there, and their traps do not depend on the command.
const NO_COMMAND: RoccCommand = RoccCommand {
    opcode: 0,
    funct7: 0,
    rd: 0,
    rs1: 0,
    rs2: 0,
    xd: false,
    xs1: false,
    xs2: false,
    rs1_value: 0,
    rs2_value: 0,
};

/// The RoCC error (and so the trap) of an exception: the table in the module docs.
fn rocc_error(e: HwachaError, cmd: &RoccCommand) -> RoccError {
    match e {
        HwachaError::UnsupportedControl { .. } => RoccError::Unsupported {
            opcode: cmd.opcode,
            funct7: cmd.funct7,
        },
        HwachaError::AcceleratorDisabled { .. }
        | HwachaError::IllegalConfig { .. }
        | HwachaError::SharedRegisterOutOfRange { .. }
        // Only `set_frm` raises this one; were frm reserved, FP would be illegal.
        | HwachaError::ReservedRoundingMode { .. } => RoccError::Illegal {
            reason: e.to_string(),
        },
        HwachaError::IllegalInstruction { pc, bits, reason } => RoccError::IllegalFetched {
            bits,
            reason: format!("vpc {pc:#x}: {reason}"),
        },
        HwachaError::MisalignedFetch { pc } => RoccError::FetchMisaligned { addr: pc },
        HwachaError::FetchFault { pc } => RoccError::FetchAccessFault { addr: pc },
        HwachaError::MisalignedAccess { addr, store, .. } if store => {
            RoccError::StoreMisaligned { addr }
        }
        HwachaError::MisalignedAccess { addr, .. } => RoccError::LoadMisaligned { addr },
        HwachaError::AccessFault { addr, store, .. } if store => {
            RoccError::StoreAccessFault { addr }
        }
        HwachaError::AccessFault { addr, .. } => RoccError::LoadAccessFault { addr },
        HwachaError::StepLimit { .. } => RoccError::Aborted {
            reason: e.to_string(),
        },
    }
}

/// A shared unit, so that a test can attach the model to an ISS and still inspect it.
impl RoccAccelerator for Rc<RefCell<Hwacha>> {
    fn execute(&mut self, cmd: &RoccCommand, mem: &mut Memory) -> Result<u64, RoccError> {
        self.borrow_mut().execute(cmd, mem)
    }

    fn take_deferred(&mut self, mem: &mut Memory) -> Option<RoccError> {
        self.borrow_mut().take_deferred(mem)
    }

    fn fence(&mut self, mem: &mut Memory) -> Result<(), RoccError> {
        self.borrow_mut().fence(mem)
    }

    fn memory_amos(&mut self, performed: &[AmoRecord]) {
        self.borrow_mut().memory_amos(performed);
    }
}
