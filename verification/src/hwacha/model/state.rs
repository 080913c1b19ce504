//! Architectural state: vv0-255 (as configured), vp0-15 (as configured), vs0-63 (vs0
//! reads 0), va0-31, vcfg, vlen and maxvl.
//!
//! Storage follows the configuration: `n` data registers of `maxvl` elements and `#vp`
//! predicate registers of `maxvl` bits, which stays small (n * maxvl <= E * L * B * S)
//! however many lanes the machine has. A register narrower than 64 bits keeps the low
//! bits of what is written to it and reads back sign-extended, as a packed register file
//! would; the precision rule of thesis 7.2 keeps legal programs from seeing the
//! difference.

use super::config::{HwachaParams, Vcfg};

/// Shared registers (vs0 is hard-wired to zero).
pub const NUM_VS: usize = 64;
/// Address registers.
pub const NUM_VA: usize = 32;

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct State {
    /// Cleared by reset and `vuncfg`, set by `vsetcfg`; every control-thread instruction
    /// but `vsetcfg` needs it.
    pub configured: bool,
    pub vcfg: Vcfg,
    pub maxvl: u64,
    pub vlen: u64,
    vv: Vec<u64>,
    vp: Vec<bool>,
    vs: [u64; NUM_VS],
    /// Address registers; written only by the control thread (`vmca`).
    pub va: [u64; NUM_VA],
    /// The control thread's dynamic rounding mode (RISC-V `frm`, 0-4), which worker
    /// instructions with rm = 7 use. The ISS has no F extension, so it lives here.
    pub frm: u32,
    /// Floating-point exception flags accrued by the worker thread (RISC-V `fflags`).
    pub fflags: u8,
}

impl State {
    /// The reset state: unconfigured, with the reset configuration's registers.
    pub fn new(params: &HwachaParams) -> State {
        let mut s = State {
            configured: false,
            vcfg: Vcfg::default(),
            maxvl: 0,
            vlen: 0,
            vv: Vec::new(),
            vp: Vec::new(),
            vs: [0; NUM_VS],
            va: [0; NUM_VA],
            frm: 0,
            fflags: 0,
        };
        s.reconfigure(Vcfg::RESET, params.maxvl(&Vcfg::RESET));
        s
    }

    /// Installs a configuration: vlen becomes 0, data registers read 0 and predicate
    /// registers false except vp0, which is set for every element (as the Hwacha ISA
    /// simulator does) so that blocks that never write vp0 run unmasked. Shared and
    /// address registers keep their values.
    pub fn reconfigure(&mut self, vcfg: Vcfg, maxvl: u64) {
        self.vcfg = vcfg;
        self.maxvl = maxvl;
        self.vlen = 0;
        self.vv = vec![0; vcfg.vv_total() as usize * maxvl as usize];
        self.vp = vec![false; vcfg.vp as usize * maxvl as usize];
        if vcfg.vp > 0 {
            self.vp[..maxvl as usize].fill(true);
        }
    }

    /// Element `elem` of vector data register `reg` (both in range: decode checked them).
    pub fn vv(&self, reg: u32, elem: u64) -> u64 {
        self.vv[self.vv_index(reg, elem)]
    }

    /// Writes element `elem` of `reg`, narrowed to the register's width.
    pub fn set_vv(&mut self, reg: u32, elem: u64, value: u64) {
        let bits = self.vcfg.vv_bits(reg).unwrap_or(64);
        let i = self.vv_index(reg, elem);
        self.vv[i] = narrow(value, bits);
    }

    fn vv_index(&self, reg: u32, elem: u64) -> usize {
        reg as usize * self.maxvl as usize + elem as usize
    }

    /// Element `elem` of predicate register `reg`. With no predicate registers configured
    /// the unit runs unpredicated and vp0 reads true.
    pub fn vp(&self, reg: u32, elem: u64) -> bool {
        if self.vcfg.vp == 0 {
            return true;
        }
        self.vp[reg as usize * self.maxvl as usize + elem as usize]
    }

    pub fn set_vp(&mut self, reg: u32, elem: u64, value: bool) {
        let i = reg as usize * self.maxvl as usize + elem as usize;
        self.vp[i] = value;
    }

    /// Shared register `reg` (< 64).
    pub fn vs(&self, reg: u32) -> u64 {
        self.vs[reg as usize]
    }

    /// Writes shared register `reg` (< 64); writes to vs0 are dropped.
    pub fn set_vs(&mut self, reg: u32, value: u64) {
        if reg != 0 {
            self.vs[reg as usize] = value;
        }
    }
}

/// Keeps the low `bits` bits of `value`, sign-extended.
fn narrow(value: u64, bits: u32) -> u64 {
    let shift = 64 - bits;
    (((value << shift) as i64) >> shift) as u64
}
