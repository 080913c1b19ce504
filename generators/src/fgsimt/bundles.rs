//! The interfaces between the engine's blocks (seed 000, Figure 3; docs/fgsimt-engine.md,
//! "Interfaces"): front end to SIU (warp instructions, branch and jump results), lanes to
//! SMU (memory slots and load data), and the engine's fault report. Every block builds
//! its ports from these shapes, so the blocks connect with `connect_bundle`.

use super::dws::params::{DwsParams, DELAY_BITS};
use super::dws::state::Widths;
use super::params::FgsimtParams;
use hdl::{Field, Shape};

fn uint(name: &str, width: u32) -> Field {
    Shape::field(name, Shape::UInt(width))
}

/// Sources a warp instruction may take from the ASRF: rs1, rs2, rs3.
pub const COMPACT_SOURCES: u32 = 3;

/// A source operand from the ASRF (+a): `ok` (the lanes use it instead of the SRF),
/// `base` and signed `stride`: thread i of the warp reads base + i * stride.
pub fn compact_source() -> Shape {
    Shape::bundle(vec![uint("ok", 1), uint("base", 32), uint("stride", 16)])
}

/// A warp instruction from the front end to the SIU (decoupled): its `pc` and raw `insn`,
/// the active `mask` (bit i = thread `tid_base + i` of the warp) and `tid_base`, the
/// index of the warp's thread 0 (for `tidx`). The SIU decodes the fields it needs.
/// With +a, `src[i]` ([`compact_source`]) for rs1, rs2 and rs3; with `warps` > 1,
/// `ctx`, the warp's context; with +a and the DWS sequencer, `mat_after`: the
/// instruction is a materialisation sent right after its own instruction
/// (`FgsimtParams::mat_after`).
pub fn warp_inst(p: &FgsimtParams) -> Shape {
    let mut fields = vec![
        uint("pc", 32),
        uint("insn", 32),
        uint("mask", p.warp_size),
        uint("tid_base", 32),
    ];
    if p.ctx_bits() > 0 {
        fields.push(uint("ctx", p.ctx_bits()));
    }
    if p.affine_arith() {
        let src = Shape::Vec(COMPACT_SOURCES, Box::new(compact_source()));
        fields.push(Shape::field("src", src));
    }
    if p.mat_after() {
        fields.push(uint("mat_after", 1));
    }
    Shape::decoupled(Shape::bundle(fields))
}

/// A conditional branch's outcome, SIU to front end (valid, one cycle): `taken` has the
/// active threads whose condition holds (inactive threads' bits are 0).
pub fn branch_result(warp_size: u32) -> Shape {
    Shape::valid(Shape::bundle(vec![uint("taken", warp_size)]))
}

/// A `jalr`'s outcome, SIU to front end (valid, one cycle): the lowest active thread's
/// `target` (`(rs1 + imm) & !1`), and `agree`, set when every active thread's is equal.
pub fn jump_result() -> Shape {
    Shape::valid(Shape::bundle(vec![uint("target", 32), uint("agree", 1)]))
}

/// A kernel fault (valid, held until the engine is reset): the RISC-V exception `cause`
/// ([`cause`]), the instruction's `pc`, the lowest faulting `thread` (global index) and
/// `tval` (the address, the instruction, or a jump target: the lowest active thread's).
pub fn fault() -> Shape {
    Shape::valid(Shape::bundle(vec![
        uint("cause", 5),
        uint("pc", 32),
        uint("thread", 32),
        uint("tval", 32),
    ]))
}

/// Fault causes: RISC-V's `mcause` codes, and one of the engine's own.
pub mod cause {
    pub const MISALIGNED_TARGET: u64 = 0;
    pub const ILLEGAL_INSTRUCTION: u64 = 2;
    pub const BREAKPOINT: u64 = 3;
    pub const LOAD_MISALIGNED: u64 = 4;
    pub const LOAD_ACCESS: u64 = 5;
    pub const STORE_MISALIGNED: u64 = 6;
    pub const STORE_ACCESS: u64 = 7;
    /// `ecall` from machine mode, as the ISS raises it in a kernel.
    pub const ECALL: u64 = 11;
    /// A `jalr` whose active threads' targets differ (`tval` = the lowest active thread's).
    pub const DIVERGENT_JUMP: u64 = 24;
    /// With the DWS sequencer: a launch of a kernel the re-convergence directory does not
    /// hold, or of one with more conditional branches than `branch_entries` (`tval` =
    /// the kernel's entry).
    pub const NO_BRANCH_TABLE: u64 = 25;
    /// With the DWS sequencer: its error (a deadlock, a re-convergence stack deeper than
    /// `stack_depth`, the WST overflowed, or a branch the table lacks).
    pub const SEQUENCER: u64 = 26;
}

/// One thread group of a memory warp instruction, lanes to SMU (valid only, one slot
/// per cycle, slots 0..T-1 of an instruction in consecutive cycles; the SIU issues a
/// memory instruction only while the SMU's `space` is high, so the SMU always accepts).
/// Shared by the lanes: `op` (the L1's narrow `op` codes, `l1::op`), `size` (log2
/// bytes), `last` (the instruction's last slot). Per lane `l`: `active` (bit l: the
/// thread is in the mask; inactive lanes' entries hold their place and access nothing),
/// and in `lane[l]` the byte `addr`, the store or AMO `data` already shifted to its
/// bytes within the word, and the byte `mask` within the word. With `avc`, `private`
/// (bit l: an active thread's access to its own stack, `stack_check.rs`; its `addr` is
/// then the byte offset in that stack) and the instruction's warp's `tid_base` (the
/// kernel state's moves on to the next warp before the last one's slots are done).
pub fn mem_slot(lanes: u32, avc: bool) -> Shape {
    let lane = Shape::bundle(vec![uint("addr", 32), uint("data", 32), uint("mask", 4)]);
    let mut fields = vec![
        uint("op", 4),
        uint("size", 2),
        uint("last", 1),
        uint("active", lanes),
    ];
    if avc {
        fields.push(uint("private", lanes));
        fields.push(uint("tid_base", 32));
    }
    fields.push(Shape::field("lane", Shape::Vec(lanes, Box::new(lane))));
    Shape::valid(Shape::bundle(fields))
}

/// The words a memory slot writes, lanes to the shared load cache
/// (`cp/shared_load_cache.rs`): `write` bit l when lane l's thread is active and the
/// slot is a store, SC or AMO; `word[l]` its address's bits 31:2.
pub fn store_snoop(lanes: u32) -> Shape {
    Shape::bundle(vec![
        uint("write", lanes),
        Shape::field("word", Shape::Vec(lanes, Box::new(Shape::UInt(30)))),
    ])
}

/// An affine unit-stride load, SIU to SMU (+m, seed 000 section 2.6; valid only, one
/// cycle, issued like a memory instruction: while the SMU's `space` is high, never in the
/// cycle of another instruction's first slot; the SIU also takes an SLWQ entry and later
/// pops the load's T slots through `load` as for any load). `addr` is thread 0's byte
/// address (base + imm), thread i's is `addr + i * (1 << size)`; `size` is log2 bytes
/// (0-2) with `addr` aligned to it; `mask` has the active threads (at least one); the
/// elements lie outside the uncached region. In program order it follows every
/// instruction whose first slot arrived before or with it.
pub fn affine_load(warp_size: u32) -> Shape {
    Shape::valid(Shape::bundle(vec![
        uint("addr", 32),
        uint("size", 2),
        uint("mask", warp_size),
    ]))
}

/// Load data, SMU to lanes: `ready` is high while every lane's SLDQ holds all T slots of
/// the oldest load (loads, LR, SC and AMOs, in program order); the SLU then takes one
/// slot a cycle for T cycles with `pop`. `data[l]` is lane l's head: the word holding
/// the address shifted right by the address's byte offset (the SLU sign- or
/// zero-extends sub-words), the old value of an AMO, 0/1 for SC; unspecified for an
/// inactive thread.
///
/// With hit masks (`FgsimtParams::hit_masks`, a warp of `passes`), a load is written
/// back in passes (`smu/hit_mask.rs`): `ready` is high while the oldest load, answered
/// (`load_hits`), has data to write: all of it, or (before its first pass) the threads'
/// already in. `pass` has the threads a pass would write (their data in, not written
/// yet), `fill` those of them not hits at the load's answer (the threads it fills),
/// `whole` says every thread's data is in (the pass is the load's last), `first`
/// that no pass of it was made; the SLU starts a pass with `take` (in its start cycle)
/// and pops its T slots as above, writing only `pass`'s threads.
pub fn load_data(lanes: u32, passes: Option<u32>) -> Shape {
    let mut fields = vec![
        uint("ready", 1),
        Shape::flipped("pop", Shape::UInt(1)),
        Shape::field("data", Shape::Vec(lanes, Box::new(Shape::UInt(32)))),
    ];
    if let Some(w) = passes {
        fields.extend([
            uint("pass", w),
            uint("fill", w),
            uint("whole", 1),
            uint("first", 1),
            Shape::flipped("take", Shape::UInt(1)),
        ]);
    }
    Shape::bundle(fields)
}

/// With hit masks, SMU to the front end's sequencer: each load's answer, in program
/// order, once its data had `hit_window` cycles to arrive (or all of it is in): the
/// threads whose data is in (a bit a thread of the warp).
pub fn load_hits(warp_size: u32) -> Shape {
    Shape::decoupled(Shape::UInt(warp_size))
}

/// Tag bits of the engine's D$ ports (narrow and wide).
pub const MEM_TAG_BITS: u32 = 2;

/// SRF write ports per lane (SAU0, SAU1, SLU; docs/fgsimt-engine.md, Lanes): the
/// `wtrace` entries of a lane.
pub const SRF_WRITE_PORTS: u32 = 3;

/// The front end's trace (valid, one cycle): each warp instruction's `pc`, `insn` and
/// active `mask` as the front end commits it to the PWFB (docs/fgsimt-engine.md,
/// Lockstep), in program order of the SIMT model, and `cp`: the CP completed it (the
/// golden model's classes `Cp` and `UniformBranch`: no warp instruction for the lanes);
/// `warp`, the launch's warp it belongs to, and with `ctx_bits` > 0 (`warps` > 1) `ctx`,
/// the context holding that warp (whose SRF registers `wtrace` numbers `ctx * 64 + r`).
pub fn ftrace(warp_size: u32, ctx_bits: u32) -> Shape {
    let mut fields = vec![
        uint("pc", 32),
        uint("insn", 32),
        uint("mask", warp_size),
        uint("cp", 1),
        uint("warp", 32),
    ];
    if ctx_bits > 0 {
        fields.push(uint("ctx", ctx_bits));
    }
    Shape::valid(Shape::bundle(fields))
}

/// The DWS sequencer's trace (every cycle, with `reconv` other than `pwfb`;
/// `cp/warp_sequencer.rs`): what `dws/sequencer.rs` takes and decides, by its own port
/// names, for the lockstep against the golden model's `DwsControl` inside the engine
/// (docs/fgsimt-engine.md, "DWS in the engine"). In: `start` (a bit a context),
/// `start_pc`, `start_mask` (every context's), `fill<k>`, `busy`, `op`, `next_valid`,
/// `next_pc`, the late answer (`ans`, `ans_warp`, `ans_next_valid`, `ans_next_pc`) and
/// the answer inputs (`taken`, `target`, `satisfied`, `hit_delay`); out its decisions
/// (`issue` with `issue_warp`, `issue_pc`, `issue_mask`, `issue_ready`; `control`,
/// `stall`, `executed`, `run`, `mem_mask`, `mem_ready`) and its `error` (held).
pub fn strace(d: &DwsParams) -> Shape {
    let fields = strace_fields(d).iter().map(|(n, w)| uint(n, *w)).collect();
    Shape::bundle(fields)
}

/// [`strace`]'s fields and their widths.
pub fn strace_fields(d: &DwsParams) -> Vec<(String, u32)> {
    let (w, warp) = (d.warp_size, Widths::of(d).warp);
    let mut fields = vec![
        ("start".to_string(), d.warps),
        ("start_pc".into(), 32),
        ("start_mask".into(), w),
    ];
    fields.extend((0..d.warps).map(|k| (format!("fill{k}"), w)));
    for (name, width) in [
        ("busy", 1),
        ("op", 2),
        ("next_valid", 1),
        ("next_pc", 32),
        ("ans", 2),
        ("ans_warp", warp),
        ("ans_next_valid", 1),
        ("ans_next_pc", 32),
        ("taken", w),
        ("target", 32),
        ("satisfied", w),
        ("hit_delay", DELAY_BITS),
        ("issue", 1),
        ("issue_warp", warp),
        ("issue_pc", 32),
        ("issue_mask", w),
        ("issue_ready", w),
        ("control", 1),
        ("stall", 1),
        ("executed", 1),
        ("run", w),
        ("mem_mask", w),
        ("mem_ready", w),
        ("error", 1),
    ] {
        fields.push((name.to_string(), width));
    }
    fields
}

/// The ASRF's writes (valid, one cycle; +a): register `reg` (0-63) becomes compact
/// (`ok`: `base`, `stride`) or generic; with contexts (`ctx_bits` > 0), context `ctx`'s.
pub fn atrace(ctx_bits: u32) -> Shape {
    let mut fields = vec![
        uint("reg", 6),
        uint("ok", 1),
        uint("base", 32),
        uint("stride", 16),
    ];
    if ctx_bits > 0 {
        fields.push(uint("ctx", ctx_bits));
    }
    Shape::valid(Shape::bundle(fields))
}

/// One SRF write port's write (valid): the register `reg` (`reg_bits` wide: the
/// context's number, then 0-31 x, 32-63 f), the thread `slot` and the `data` written.
pub fn srf_write(threads_per_lane: u32, reg_bits: u32) -> Shape {
    Shape::valid(Shape::bundle(vec![
        uint("reg", reg_bits),
        uint("slot", hdl::ir::addr_width(threads_per_lane as u64).max(1)),
        uint("data", 32),
    ]))
}

/// The SRF writes of a cycle: for lane `l` and write port `p` (`wtrace_<l>_<p>_*`, the
/// ports SAU0, SAU1, SLU), a [`srf_write`] of thread `tid_base + slot * lanes + l`.
pub fn wtrace(lanes: u32, threads_per_lane: u32, reg_bits: u32) -> Shape {
    let lane = Shape::Vec(
        SRF_WRITE_PORTS,
        Box::new(srf_write(threads_per_lane, reg_bits)),
    );
    Shape::Vec(lanes, Box::new(lane))
}
