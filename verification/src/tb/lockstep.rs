//! Lockstep checking: every instruction a design commits is compared, as it commits, with
//! the next record of a golden model, and the first divergence stops the run with a
//! report (cycle, pc, instruction, each differing field, and the records before it).
//!
//! The design shows its commits on a trace port declared with [`trace_shape`]: `valid`
//! for one cycle per retired instruction, with its pc, instruction bits, destination
//! register (0 when none) and the value written, and its memory write as the aligned
//! doubleword it changes: address (a multiple of 8), data in byte lanes, byte mask (0
//! when the instruction stores nothing). This is what a core's commit stage and store
//! port already know, so exposing it costs the design little.

use super::memory::AmoRecord;
use super::{peek, peek_u64, SignalError, Simulator};
use crate::elf::Program;
use crate::iss::commitlog::Commit;
use crate::iss::simt::Launch;
use crate::iss::{Iss, IssConfig, IssError, Step};
use hdl::Shape;
use std::collections::VecDeque;
use std::fmt;

/// How many matching records a divergence report shows.
pub const HISTORY: usize = 32;

/// One retired instruction as the trace port shows it.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct CommitRecord {
    pub pc: u64,
    pub insn: u32,
    /// Integer register written, 0 when none (writes to x0 are not writes).
    pub rd: u8,
    /// The value written to `rd`; not compared when `rd` is 0.
    pub value: u64,
    /// Doubleword-aligned address of the memory write.
    pub mem_addr: u64,
    /// The written bytes in their lanes of the doubleword.
    pub mem_data: u64,
    /// Byte lanes written; 0 when the instruction writes no memory.
    pub mem_mask: u8,
}

impl CommitRecord {
    /// The record of an ISS commit. The ISS reports stores as (address, value, size);
    /// stores never cross a doubleword because misaligned ones trap.
    pub fn from_commit(c: &Commit) -> CommitRecord {
        let (rd, value) = c.xreg.unwrap_or((0, 0));
        let (mem_addr, mem_data, mem_mask) = match c.store {
            Some((addr, data, size)) => {
                let lane = (addr & 7) as u32;
                let bytes = (1u16 << size.min(8)) - 1;
                (
                    addr & !7,
                    data << (8 * lane),
                    ((bytes << lane) & 0xff) as u8,
                )
            }
            None => (0, 0, 0),
        };
        CommitRecord {
            pc: c.pc,
            insn: c.insn,
            rd,
            value,
            mem_addr,
            mem_data,
            mem_mask,
        }
    }

    /// Each field this record (expected) and `actual` disagree on, under the rules of
    /// the trace port: the value only counts when both write a register, the address
    /// only when both write memory, and the data only in lanes both write.
    pub fn mismatches(&self, actual: &CommitRecord) -> Vec<Mismatch> {
        let mut out = Vec::new();
        let mut check = |field, expected: u64, got: u64| {
            if expected != got {
                out.push(Mismatch {
                    field,
                    expected,
                    actual: got,
                });
            }
        };
        check(Field::Pc, self.pc, actual.pc);
        check(Field::Insn, self.insn as u64, actual.insn as u64);
        check(Field::Rd, self.rd as u64, actual.rd as u64);
        if self.rd != 0 && actual.rd != 0 {
            check(Field::Value, self.value, actual.value);
        }
        check(Field::MemMask, self.mem_mask as u64, actual.mem_mask as u64);
        if self.mem_mask != 0 && actual.mem_mask != 0 {
            check(Field::MemAddr, self.mem_addr, actual.mem_addr);
            let lanes = byte_lanes(self.mem_mask & actual.mem_mask);
            check(
                Field::MemData,
                self.mem_data & lanes,
                actual.mem_data & lanes,
            );
        }
        out
    }
}

/// A byte mask widened to a bit mask over a doubleword.
fn byte_lanes(mask: u8) -> u64 {
    (0..8)
        .filter(|i| mask >> i & 1 == 1)
        .fold(0, |m, i| m | 0xff << (8 * i))
}

impl fmt::Display for CommitRecord {
    /// One line: pc, instruction (hex: the project has no disassembler), register and
    /// memory writes.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "pc {:#018x} insn {:#010x}", self.pc, self.insn)?;
        if self.rd != 0 {
            write!(f, " x{}={:#x}", self.rd, self.value)?;
        }
        if self.mem_mask != 0 {
            write!(
                f,
                " mem[{:#x}]={:#018x} mask {:#010b}",
                self.mem_addr, self.mem_data, self.mem_mask
            )?;
        }
        Ok(())
    }
}

/// A field of a commit record.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Field {
    Pc,
    Insn,
    Rd,
    Value,
    MemAddr,
    MemData,
    MemMask,
}

impl fmt::Display for Field {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Field::Pc => "pc",
            Field::Insn => "insn",
            Field::Rd => "rd",
            Field::Value => "value",
            Field::MemAddr => "mem_addr",
            Field::MemData => "mem_data",
            Field::MemMask => "mem_mask",
        })
    }
}

/// One field that differs: what the golden model and the design say.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Mismatch {
    pub field: Field,
    pub expected: u64,
    pub actual: u64,
}

/// A record that matched, kept for the report.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Matched {
    /// Position in the commit stream, from 0.
    pub index: u64,
    pub cycle: u64,
    pub record: CommitRecord,
}

/// The first record where the design and the golden model disagree.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Divergence {
    pub cycle: u64,
    /// Position of the record in the commit stream, from 0.
    pub index: u64,
    pub expected: CommitRecord,
    pub actual: CommitRecord,
    pub mismatches: Vec<Mismatch>,
    /// The last (up to [`HISTORY`]) matching records, oldest first.
    pub history: Vec<Matched>,
}

impl fmt::Display for Divergence {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(
            f,
            "lockstep divergence at cycle {}, record {}: pc {:#018x} insn {:#010x}",
            self.cycle, self.index, self.expected.pc, self.expected.insn
        )?;
        writeln!(f, "  {:<9} {:<20} actual", "field", "expected")?;
        for m in &self.mismatches {
            writeln!(
                f,
                "  {:<9} {:<#20x} {:#x}",
                m.field.to_string(),
                m.expected,
                m.actual
            )?;
        }
        writeln!(f, "  expected: {}", self.expected)?;
        writeln!(f, "  actual:   {}", self.actual)?;
        write!(
            f,
            "last {} matching records (oldest first):",
            self.history.len()
        )?;
        for m in &self.history {
            write!(f, "\n  #{} cycle {}: {}", m.index, m.cycle, m.record)?;
        }
        Ok(())
    }
}

/// Why a lockstep run stopped.
#[derive(Debug, thiserror::Error)]
pub enum LockstepError {
    #[error("{0}")]
    Divergence(Box<Divergence>),
    #[error("cycle {cycle}: the design committed record {index} ({actual}) after the golden model's program ended")]
    Extra {
        cycle: u64,
        index: u64,
        actual: CommitRecord,
    },
    #[error("cycle {cycle}: no commit for {idle} cycles; the golden model expects record {index} ({expected})")]
    Hang {
        cycle: u64,
        idle: u64,
        index: u64,
        expected: CommitRecord,
    },
    #[error("trace port `{signal}` is {width} bits, expected {expected}")]
    Width {
        signal: String,
        width: u32,
        expected: u32,
    },
    #[error("cycle {cycle}: the design took accelerator exception cause {cause} (tval {tval:#x}) after record {index}; the golden model's deferred exception there is {expected}")]
    AcceleratorTrap {
        cycle: u64,
        index: u64,
        cause: u64,
        tval: u64,
        expected: String,
    },
    #[error("at the exit, once the accelerator had finished, its accrued FP flags were {design:#04x} (fflags bits NV DZ OF UF NX); the golden model's are {golden:#04x}")]
    Fflags { design: u8, golden: u8 },
    #[error("golden model: {0}")]
    Golden(#[source] Box<dyn std::error::Error + Send + Sync + 'static>),
    #[error(transparent)]
    Signal(#[from] SignalError),
}

/// A reference that produces the commit stream the design must match.
pub trait GoldenModel {
    type Error: std::error::Error + Send + Sync + 'static;
    /// The next retired instruction's record, or `None` once the program has ended.
    fn next_record(&mut self) -> Result<Option<CommitRecord>, Self::Error>;

    /// Called with each expected record and the design's before they are compared, for
    /// values the architecture leaves to the implementation (cycle counters): the model
    /// may adopt the design's value, in `expected` and in its own state.
    fn reconcile(&mut self, _expected: &mut CommitRecord, _actual: &CommitRecord) {}

    /// The design took an exception from its decoupled accelerator before its next
    /// commit: the model takes its own deferred one there and returns its (cause, tval),
    /// or `None` if it has none (then the instruction at that point must trap by itself,
    /// as a precise accelerator exception does).
    fn deferred_trap(&mut self) -> Result<Option<(u64, u64)>, Self::Error> {
        Ok(None)
    }

    /// AMOs the memory serving the design performed (in the order it performed them),
    /// for a model that applies AMOs colliding on one address in the memory's order,
    /// which the ISA leaves open.
    fn memory_amos(&mut self, _performed: &[AmoRecord]) {}

    /// The FP exception flags an accelerator with its own FP state has accrued once all
    /// the work given to it is done (`None` for a model without one).
    fn accelerator_fflags(&mut self) -> Result<Option<u8>, Self::Error> {
        Ok(None)
    }
}

/// What [`IssGolden::next_step`] found.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum GoldenStep {
    Record(CommitRecord),
    Launch(Launch),
}

/// Errors of [`IssGolden`].
#[derive(Debug, thiserror::Error)]
pub enum IssGoldenError {
    #[error(transparent)]
    Iss(#[from] IssError),
    #[error("the program did not end within {0} steps")]
    StepLimit(u64),
}

/// The RV64 ISS as a golden model, one instruction per record; traps produce no record
/// (the trap handler's instructions do).
///
/// The stream ends with the store that asks the host to exit (an HTIF exit command
/// written to `tohost`), not when the ISS notices it: the ISS, like Spike, polls
/// `tohost` only between chunks of instructions, so it would add up to a chunk of the
/// program's final spin loop, which a design has no reason to reproduce. (Programs that
/// make HTIF system calls, such as `printf`, still wait for `fromhost` on the ISS's
/// schedule; a design running them must serve the host the same way.)
pub struct IssGolden {
    iss: Iss,
    tohost: u64,
    steps: u64,
    max_steps: u64,
    exit: Option<u64>,
    design_conventions: bool,
}

impl IssGolden {
    /// `max_steps` bounds instructions plus traps, so a program that never exits (or
    /// traps forever) becomes an error rather than a hang.
    pub fn new(program: &Program, config: IssConfig, max_steps: u64) -> Result<Self, IssError> {
        Ok(IssGolden {
            iss: Iss::new(program, config)?,
            tohost: program.tohost,
            steps: 0,
            max_steps,
            exit: None,
            design_conventions: false,
        })
    }

    /// Follows the conventions of a processor design rather than Spike's chunk schedule:
    /// the host is served as soon as a store to `tohost` retires (as the design's bench
    /// does when the store commits), an LR reservation survives chunk boundaries, and
    /// reads of `cycle`, `time` and `mcycle` take the design's value (see `reconcile`).
    pub fn with_design_conventions(mut self) -> Self {
        self.design_conventions = true;
        self.iss.keep_reservation();
        self
    }

    /// The program's exit code, once its stream has ended.
    pub fn exit_code(&self) -> Option<u64> {
        self.exit
    }

    /// The ISS, e.g. to attach a RoCC accelerator model before the run.
    pub fn iss_mut(&mut self) -> &mut Iss {
        &mut self.iss
    }

    /// The ISS, e.g. to read its state.
    pub fn iss(&self) -> &Iss {
        &self.iss
    }

    /// Whether `c` stored into the `tohost` word.
    fn stores_tohost(&self, c: &Commit) -> bool {
        c.store.is_some_and(|(addr, _, size)| {
            addr < self.tohost.wrapping_add(8) && addr.wrapping_add(size as u64) > self.tohost
        })
    }

    /// The exit code if the store `c` made asks the host to exit: device 0, command 0,
    /// low bit set (HTIF's encoding).
    fn exit_request(&self, c: &Commit) -> Option<u64> {
        if !self.stores_tohost(c) {
            return None;
        }
        let word = self.iss.mem.read(self.tohost, 8)?;
        (word >> 48 == 0 && word & 1 == 1).then_some((word & ((1 << 48) - 1)) >> 1)
    }
    /// The ISS's next retired instruction's record, or a launch it hands over (with
    /// [`Iss::defer_launches`]: the caller runs the threads, then [`Self::finish_launch`]);
    /// `None` once the program has ended.
    pub fn next_step(&mut self) -> Result<Option<GoldenStep>, IssGoldenError> {
        while self.exit.is_none() {
            if self.steps == self.max_steps {
                return Err(IssGoldenError::StepLimit(self.max_steps));
            }
            self.steps += 1;
            match self.iss.step_one()? {
                Step::Retired(c) => {
                    self.exit = self.exit_request(&c);
                    if self.design_conventions && self.exit.is_none() && self.stores_tohost(&c) {
                        if let Some(code) = self.iss.poll_host()? {
                            self.exit = Some(code);
                        }
                    }
                    return Ok(Some(GoldenStep::Record(CommitRecord::from_commit(&c))));
                }
                Step::Trapped { .. } => {}
                Step::Exited(code) => self.exit = Some(code),
                Step::Launch(l) => return Ok(Some(GoldenStep::Launch(l))),
            }
        }
        Ok(None)
    }

    /// The record of the deferred launch instruction, which retires once its threads
    /// have run.
    pub fn finish_launch(&mut self) -> CommitRecord {
        CommitRecord::from_commit(&self.iss.finish_launch())
    }
}

/// Whether `insn` reads a counter whose value is the implementation's (cycle, time,
/// mcycle, and on RV32 their high halves cycleh, timeh, mcycleh): a CSR instruction with
/// one of those numbers.
fn reads_free_counter(insn: u32) -> bool {
    let csr = insn >> 20;
    insn & 0x7f == 0x73
        && (insn >> 12) & 3 != 0
        && matches!(csr, 0xb00 | 0xc00 | 0xc01 | 0xb80 | 0xc80 | 0xc81)
}

impl GoldenModel for IssGolden {
    type Error = IssGoldenError;

    fn reconcile(&mut self, expected: &mut CommitRecord, actual: &CommitRecord) {
        let same = expected.pc == actual.pc && expected.insn == actual.insn;
        if self.design_conventions && same && reads_free_counter(expected.insn) {
            expected.value = actual.value;
            if expected.rd != 0 {
                self.iss.x[expected.rd as usize] = actual.value;
            }
        }
    }

    fn next_record(&mut self) -> Result<Option<CommitRecord>, IssGoldenError> {
        match self.next_step()? {
            Some(GoldenStep::Record(r)) => Ok(Some(r)),
            Some(GoldenStep::Launch(_)) => unreachable!("launches are deferred only on request"),
            None => Ok(None),
        }
    }

    fn deferred_trap(&mut self) -> Result<Option<(u64, u64)>, IssGoldenError> {
        Ok(self.iss.take_deferred_trap()?)
    }

    /// Handed to the ISS's accelerator ([`crate::iss::rocc::RoccAccelerator::memory_amos`]).
    fn memory_amos(&mut self, performed: &[AmoRecord]) {
        self.iss.rocc_memory_amos(performed);
    }

    fn accelerator_fflags(&mut self) -> Result<Option<u8>, IssGoldenError> {
        Ok(self.iss.rocc_fflags()?)
    }
}

/// Shape of the trace port, declared with `m.io("<prefix>", Dir::Out, &trace_shape())`.
pub fn trace_shape() -> Shape {
    Shape::valid(Shape::bundle(
        TRACE_FIELDS
            .iter()
            .map(|&(name, width)| Shape::field(name, Shape::UInt(width)))
            .collect(),
    ))
}

/// The trace port's record fields and widths, in declaration order.
const TRACE_FIELDS: [(&str, u32); 7] = [
    ("pc", 64),
    ("insn", 32),
    ("rd", 5),
    ("value", 64),
    ("mem_addr", 64),
    ("mem_data", 64),
    ("mem_mask", 8),
];

/// Names of the trace port's signals on the design's top level.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TracePort {
    valid: String,
    /// The record fields, in the order of `TRACE_FIELDS`.
    fields: [String; 7],
}

impl TracePort {
    /// The names `trace_shape` gives a port declared as `prefix`.
    pub fn new(prefix: &str) -> TracePort {
        TracePort {
            valid: format!("{prefix}_valid"),
            fields: TRACE_FIELDS.map(|(name, _)| format!("{prefix}_bits_{name}")),
        }
    }

    /// Checks the widths of the port's signals.
    fn check(&self, dut: &mut impl Simulator) -> Result<(), LockstepError> {
        let widths = std::iter::once(1).chain(TRACE_FIELDS.iter().map(|f| f.1));
        for (signal, expected) in std::iter::once(&self.valid).chain(&self.fields).zip(widths) {
            let width = peek(dut, signal)?.width();
            if width != expected {
                return Err(LockstepError::Width {
                    signal: signal.clone(),
                    width,
                    expected,
                });
            }
        }
        Ok(())
    }

    /// Whether the port shows a commit this cycle.
    pub fn valid(&self, dut: &mut impl Simulator) -> Result<bool, SignalError> {
        Ok(peek_u64(dut, &self.valid)? & 1 == 1)
    }

    /// The record on the port (whether or not `valid` is high).
    pub fn read(&self, dut: &mut impl Simulator) -> Result<CommitRecord, SignalError> {
        let mut v = [0u64; 7];
        for (slot, signal) in v.iter_mut().zip(&self.fields) {
            *slot = peek_u64(dut, signal)?;
        }
        Ok(CommitRecord {
            pc: v[0],
            insn: v[1] as u32,
            rd: v[2] as u8,
            value: v[3],
            mem_addr: v[4],
            mem_data: v[5],
            mem_mask: v[6] as u8,
        })
    }
}

/// Compares a design's trace port with a golden model, cycle by cycle.
pub struct Lockstep<G: GoldenModel> {
    golden: G,
    port: TracePort,
    /// The golden model's next record once fetched (`Some(None)`: its program ended).
    /// It is fetched when the design commits, or to tell whether the program has ended,
    /// not ahead: an accelerator exception the design takes must reach the model before
    /// it executes the instruction the design trapped on.
    expected: Option<Option<CommitRecord>>,
    matched: u64,
    history: VecDeque<Matched>,
    idle: u64,
    max_idle: u64,
    port_checked: bool,
}

impl<G: GoldenModel> Lockstep<G> {
    /// Default for [`Lockstep::with_max_idle`].
    pub const MAX_IDLE: u64 = 10_000;

    pub fn new(golden: G, port: TracePort) -> Result<Self, LockstepError> {
        Ok(Lockstep {
            golden,
            port,
            expected: None,
            matched: 0,
            history: VecDeque::with_capacity(HISTORY),
            idle: 0,
            max_idle: Self::MAX_IDLE,
            port_checked: false,
        })
    }

    /// Cycles without a commit, while the golden model still has records, after which
    /// the design counts as hung.
    pub fn with_max_idle(mut self, cycles: u64) -> Self {
        self.max_idle = cycles;
        self
    }

    /// The design made progress this cycle without committing (an accelerator's own
    /// trace): the hang bound counts from here.
    pub fn progressed(&mut self) {
        self.idle = 0;
    }

    /// The golden model's next record (`None` once its program has ended).
    fn expected(&mut self) -> Result<Option<CommitRecord>, LockstepError> {
        if self.expected.is_none() {
            let next = self
                .golden
                .next_record()
                .map_err(|e| LockstepError::Golden(Box::new(e)))?;
            self.expected = Some(next);
        }
        Ok(self.expected.flatten())
    }

    /// Whether the golden model's program has ended (every record matched).
    pub fn finished(&mut self) -> Result<bool, LockstepError> {
        Ok(self.expected()?.is_none())
    }

    /// Records matched so far.
    pub fn matched(&self) -> u64 {
        self.matched
    }

    pub fn golden(&self) -> &G {
        &self.golden
    }

    /// The golden model, for a bench that feeds it more than the trace port (the
    /// FG-SIMT engine's kernel traces).
    pub fn golden_mut(&mut self) -> &mut G {
        &mut self.golden
    }

    /// Checks the flags the design's accelerator accrued, `design`, against the golden
    /// model's ([`GoldenModel::accelerator_fflags`]), once both have finished their work;
    /// a model without them checks nothing.
    pub fn check_accelerator_fflags(&mut self, design: u8) -> Result<(), LockstepError> {
        let golden =
            (self.golden.accelerator_fflags()).map_err(|e| LockstepError::Golden(Box::new(e)))?;
        match golden {
            Some(golden) if golden != design => Err(LockstepError::Fflags { design, golden }),
            _ => Ok(()),
        }
    }

    /// Hands the golden model the AMOs the design's memory performed
    /// ([`GoldenModel::memory_amos`]).
    pub fn memory_amos(&mut self, performed: &[AmoRecord]) {
        self.golden.memory_amos(performed);
    }

    /// Samples the trace port (call once per cycle, before the clock edge) and checks
    /// any commit.
    pub fn check_cycle(&mut self, dut: &mut impl Simulator) -> Result<(), LockstepError> {
        let cycle = dut.cycle();
        if !self.port_checked {
            self.port.check(dut)?;
            self.port_checked = true;
        }
        if peek_u64(dut, &self.port.valid)? & 1 == 1 {
            let actual = self.port.read(dut)?;
            return self.check_record(cycle, actual);
        }
        self.idle += 1;
        if self.idle <= self.max_idle {
            return Ok(());
        }
        match self.expected()? {
            Some(expected) => Err(LockstepError::Hang {
                cycle,
                idle: self.idle,
                index: self.matched,
                expected,
            }),
            None => Ok(()),
        }
    }

    /// The design took exception (`cause`, `tval`) from its decoupled accelerator after
    /// the records checked so far: the golden model takes its deferred one, which must be
    /// the same. With none deferred, the instruction the design trapped on must raise it
    /// itself (a precise accelerator exception), which the next records show.
    pub fn accelerator_trap(
        &mut self,
        cycle: u64,
        cause: u64,
        tval: u64,
    ) -> Result<(), LockstepError> {
        if self.expected.is_some() {
            // Fetched ahead only once the design has ended or hung, never mid-run.
            return Err(LockstepError::AcceleratorTrap {
                cycle,
                index: self.matched,
                cause,
                tval,
                expected: "unknown: the model is past that point".into(),
            });
        }
        let taken = self
            .golden
            .deferred_trap()
            .map_err(|e| LockstepError::Golden(Box::new(e)))?;
        match taken {
            Some(t) if t != (cause, tval) => Err(LockstepError::AcceleratorTrap {
                cycle,
                index: self.matched,
                cause,
                tval,
                expected: format!("cause {} (tval {:#x})", t.0, t.1),
            }),
            _ => Ok(()),
        }
    }

    /// Checks one committed record (for designs whose trace is not a single port).
    pub fn check_record(&mut self, cycle: u64, actual: CommitRecord) -> Result<(), LockstepError> {
        self.idle = 0;
        let index = self.matched;
        let Some(mut expected) = self.expected()? else {
            return Err(LockstepError::Extra {
                cycle,
                index,
                actual,
            });
        };
        self.expected = None;
        self.golden.reconcile(&mut expected, &actual);
        let mismatches = expected.mismatches(&actual);
        if !mismatches.is_empty() {
            return Err(LockstepError::Divergence(Box::new(Divergence {
                cycle,
                index,
                expected,
                actual,
                mismatches,
                history: self.history.iter().copied().collect(),
            })));
        }
        if self.history.len() == HISTORY {
            self.history.pop_front();
        }
        self.history.push_back(Matched {
            index,
            cycle,
            record: actual,
        });
        self.matched += 1;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A golden model replaying a fixed list, with an optional deferred exception.
    struct Replay(std::vec::IntoIter<CommitRecord>, Option<(u64, u64)>);

    impl GoldenModel for Replay {
        type Error = std::convert::Infallible;
        fn next_record(&mut self) -> Result<Option<CommitRecord>, Self::Error> {
            Ok(self.0.next())
        }

        fn deferred_trap(&mut self) -> Result<Option<(u64, u64)>, Self::Error> {
            Ok(self.1.take())
        }
    }

    fn rec(pc: u64) -> CommitRecord {
        CommitRecord {
            pc,
            insn: 0x13,
            rd: 5,
            value: pc * 3,
            ..CommitRecord::default()
        }
    }

    fn checker(records: Vec<CommitRecord>) -> Lockstep<Replay> {
        Lockstep::new(Replay(records.into_iter(), None), TracePort::new("trace")).unwrap()
    }

    #[test]
    fn stores_become_lane_aligned_doubleword_writes() {
        let c = Commit {
            pc: 0x8000_0000,
            insn: 0x00b5_1123,
            store: Some((0x8000_1006, 0xbeef, 2)),
            ..Commit::default()
        };
        let r = CommitRecord::from_commit(&c);
        assert_eq!(
            (r.rd, r.mem_addr, r.mem_data, r.mem_mask),
            (0, 0x8000_1000, 0xbeef << 48, 0b1100_0000)
        );
        let d = CommitRecord::from_commit(&Commit {
            store: Some((0x10, u64::MAX, 8)),
            xreg: Some((7, 9)),
            ..c
        });
        assert_eq!(
            (d.rd, d.value, d.mem_addr, d.mem_data, d.mem_mask),
            (7, 9, 0x10, u64::MAX, 0xff)
        );
    }

    #[test]
    fn comparison_ignores_what_the_port_does_not_define() {
        let exp = CommitRecord {
            rd: 0,
            value: 0,
            mem_mask: 0b0000_1111,
            mem_addr: 0x40,
            mem_data: 0x1122_3344_5566_7788,
            ..rec(0x100)
        };
        // Garbage in `value` with rd 0 and in unwritten lanes is fine.
        let act = CommitRecord {
            value: 0xdead,
            mem_data: 0xffff_ffff_5566_7788,
            ..exp
        };
        assert!(exp.mismatches(&act).is_empty());
        let bad = CommitRecord {
            rd: 3,
            mem_mask: 0b0000_0011,
            mem_data: 0x7789,
            ..act
        };
        assert_eq!(
            exp.mismatches(&bad),
            vec![
                Mismatch {
                    field: Field::Rd,
                    expected: 0,
                    actual: 3
                },
                Mismatch {
                    field: Field::MemMask,
                    expected: 0b1111,
                    actual: 0b11
                },
                Mismatch {
                    field: Field::MemData,
                    expected: 0x7788,
                    actual: 0x7789
                },
            ]
        );
    }

    #[test]
    fn divergence_reports_the_last_32_matches() {
        let golden: Vec<CommitRecord> = (0..40).map(|i| rec(0x1000 + 4 * i)).collect();
        let mut ls = checker(golden.clone());
        for (i, r) in golden.iter().take(35).enumerate() {
            ls.check_record(10 + i as u64, *r).unwrap();
        }
        let wrong = CommitRecord {
            value: golden[35].value ^ 1,
            ..golden[35]
        };
        let Err(LockstepError::Divergence(d)) = ls.check_record(99, wrong) else {
            panic!("expected a divergence");
        };
        assert_eq!((d.cycle, d.index), (99, 35));
        assert_eq!(
            d.mismatches,
            vec![Mismatch {
                field: Field::Value,
                expected: golden[35].value,
                actual: golden[35].value ^ 1
            }]
        );
        assert_eq!(d.history.len(), HISTORY);
        assert_eq!(
            d.history[0],
            Matched {
                index: 3,
                cycle: 13,
                record: golden[3]
            }
        );
        assert_eq!(d.history[31].index, 34);
        let text = d.to_string();
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(
            lines[..5],
            [
                "lockstep divergence at cycle 99, record 35: pc 0x000000000000108c insn 0x00000013",
                "  field     expected             actual",
                "  value     0x31a4               0x31a5",
                "  expected: pc 0x000000000000108c insn 0x00000013 x5=0x31a4",
                "  actual:   pc 0x000000000000108c insn 0x00000013 x5=0x31a5",
            ]
        );
        assert_eq!(lines[5], "last 32 matching records (oldest first):");
        assert_eq!(
            lines[6],
            "  #3 cycle 13: pc 0x000000000000100c insn 0x00000013 x5=0x3024"
        );
        assert_eq!(lines.len(), 6 + 32);
    }

    #[test]
    fn accelerator_traps_must_match_the_models_deferred_exception() {
        let deferred = |t| {
            let replay = Replay(vec![rec(0), rec(4)].into_iter(), t);
            Lockstep::new(replay, TracePort::new("trace")).unwrap()
        };
        let mut ls = deferred(Some((4, 0x1004)));
        ls.check_record(0, rec(0)).unwrap();
        ls.accelerator_trap(1, 4, 0x1004).unwrap();
        ls.check_record(2, rec(4)).unwrap();
        let mut ls = deferred(Some((4, 0x1004)));
        let err = ls.accelerator_trap(1, 6, 0x1004).unwrap_err().to_string();
        assert!(
            err.contains("cause 6 (tval 0x1004) after record 0"),
            "{err}"
        );
        assert!(err.contains("is cause 4 (tval 0x1004)"), "{err}");
        // None deferred: a precise exception, which the records that follow show.
        deferred(None).accelerator_trap(1, 2, 0x1b).unwrap();
        // Once the model is past the point (fetched to see whether it ended), too late.
        let mut ls = deferred(Some((4, 0x1004)));
        assert!(!ls.finished().unwrap());
        assert!(ls.accelerator_trap(1, 4, 0x1004).is_err());
    }

    #[test]
    fn extra_commits_are_errors_and_the_end_is_known_after_the_last_record() {
        let mut ls = checker(vec![rec(0)]);
        assert!(!ls.finished().unwrap());
        ls.check_record(0, rec(0)).unwrap();
        assert!(ls.finished().unwrap());
        assert_eq!(ls.matched(), 1);
        let err = ls.check_record(1, rec(4)).unwrap_err();
        assert_eq!(
            err.to_string(),
            "cycle 1: the design committed record 1 (pc 0x0000000000000004 insn 0x00000013 x5=0xc) \
             after the golden model's program ended"
        );
    }
}
