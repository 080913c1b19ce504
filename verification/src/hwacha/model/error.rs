//! The exceptions of the Hwacha model (thesis 7.1 and 7.2 "Exceptions"), as typed errors.
//! A control-thread command that raises one has no effect; a worker-thread instruction
//! that raises one has no effect either (the model checks every element before it writes
//! anything), while the instructions before it in the vector-fetch block stay retired.

/// Why the Hwacha unit stopped a command.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum HwachaError {
    #[error("accelerator disabled: {insn} while the vector unit is unconfigured")]
    AcceleratorDisabled { insn: &'static str },
    #[error("vsetcfg with vcfg {vcfg:#x}: {reason}")]
    IllegalConfig { vcfg: u64, reason: &'static str },
    #[error("control-thread instruction {bits:#010x} is not one of Table 7.1")]
    UnsupportedControl { bits: u32 },
    #[error("vmcs to vs{index}: only vs0-vs63 exist")]
    SharedRegisterOutOfRange { index: u32 },
    #[error("vector fetch at vpc {pc:#x}: not 8-byte aligned")]
    MisalignedFetch { pc: u64 },
    #[error("vector fetch at vpc {pc:#x}: outside memory")]
    FetchFault { pc: u64 },
    #[error("illegal worker instruction {bits:#018x} at vpc {pc:#x}: {reason}")]
    IllegalInstruction { pc: u64, bits: u64, reason: Illegal },
    #[error("misaligned {} of {size} bytes at {addr:#x} (vpc {pc:#x})", access(*store))]
    MisalignedAccess {
        pc: u64,
        addr: u64,
        size: u8,
        store: bool,
    },
    #[error("{} of {size} bytes at {addr:#x} is outside memory (vpc {pc:#x})", access(*store))]
    AccessFault {
        pc: u64,
        addr: u64,
        size: u8,
        store: bool,
    },
    #[error("frm {rm} is reserved (0-4)")]
    ReservedRoundingMode { rm: u32 },
    #[error("vector-fetch block at {entry:#x} ran {limit} instructions without reaching vstop")]
    StepLimit { entry: u64, limit: u64 },
}

impl HwachaError {
    /// Raised by the worker thread of a `vf` (as opposed to a control-thread command or
    /// the model's own step limit).
    pub fn is_worker_exception(&self) -> bool {
        matches!(
            self,
            HwachaError::MisalignedFetch { .. }
                | HwachaError::FetchFault { .. }
                | HwachaError::IllegalInstruction { .. }
                | HwachaError::MisalignedAccess { .. }
                | HwachaError::AccessFault { .. }
        )
    }
}

fn access(store: bool) -> &'static str {
    if store {
        "store"
    } else {
        "load"
    }
}

/// Why a worker-thread instruction is illegal.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum Illegal {
    #[error("no Hwacha instruction has this encoding")]
    Unknown,
    #[error("rounding mode {rm} is reserved")]
    ReservedRoundingMode { rm: u32 },
    #[error("vv{reg} is out of range: {configured} vector data registers are configured")]
    VvOutOfRange { reg: u32, configured: u32 },
    #[error("vp{reg} is out of range: {configured} predicate registers are configured")]
    VpOutOfRange { reg: u32, configured: u32 },
    #[error("vs{reg} does not exist (vs0-vs63)")]
    VsOutOfRange { reg: u32 },
    #[error("shared destination with a vector source")]
    SharedDestination,
    #[error(
        "vv{reg} holds {reg_bits}-bit elements, narrower than the instruction's {needed} bits"
    )]
    Precision {
        reg: u32,
        reg_bits: u32,
        needed: u32,
    },
    #[error("scalar instruction with a predicate (vp{pred}, n={negate})")]
    PredicatedScalar { pred: u32, negate: bool },
    #[error("consensual condition {cond} is reserved (0 = all, 1 = any)")]
    ReservedCondition { cond: u32 },
}
