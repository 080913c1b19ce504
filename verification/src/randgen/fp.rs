//! The floating-point part of the random programs: f-register set-up from a table of
//! special values, and random F/D instructions (arithmetic in every rounding mode, fused
//! multiply-adds, square roots, sign injection, min/max, compares, classification,
//! conversions between formats and to and from integers, moves, loads and stores, and
//! accesses to fflags, frm and fcsr, which may leave `frm` invalid so that dynamic-mode
//! instructions trap).

use super::{Gen, BASE, SCRATCH};
use crate::iss::{FpExt, Xlen};
use std::fmt::Write;

/// Special doubles: zeros, the smallest and largest subnormals, the smallest normal,
/// one and its neighbours, the largest finite (and its half, for products and sums that
/// overflow), infinities, quiet and signaling NaNs, a few ordinary values.
pub const SPECIAL_D: [u64; 24] = [
    0x0000_0000_0000_0000,
    0x8000_0000_0000_0000,
    0x0000_0000_0000_0001,
    0x800f_ffff_ffff_ffff,
    0x0010_0000_0000_0000,
    0x3ff0_0000_0000_0000,
    0xbff0_0000_0000_0001,
    0x3fef_ffff_ffff_ffff,
    0x7fef_ffff_ffff_ffff,
    0xffef_ffff_ffff_ffff,
    0x7fdf_ffff_ffff_ffff,
    0x7ff0_0000_0000_0000,
    0xfff0_0000_0000_0000,
    0x7ff8_0000_0000_0000,
    0x7ff4_0000_0000_0001,
    0xfff8_0000_0000_1234,
    0x4000_0000_0000_0000,
    0x3fd5_5555_5555_5555,
    0xc08f_4000_0000_0000,
    0x41e0_0000_0000_0000,
    0x43e0_0000_0000_0000,
    0xc3e0_0000_0000_0001,
    0x0008_0000_0000_0000,
    0x3ca0_0000_0000_0000,
];

/// Special singles, as [`SPECIAL_D`].
pub const SPECIAL_S: [u32; 24] = [
    0x0000_0000,
    0x8000_0000,
    0x0000_0001,
    0x807f_ffff,
    0x0080_0000,
    0x3f80_0000,
    0xbf80_0001,
    0x3f7f_ffff,
    0x7f7f_ffff,
    0xff7f_ffff,
    0x7eff_ffff,
    0x7f80_0000,
    0xff80_0000,
    0x7fc0_0000,
    0x7fa0_0001,
    0xffc0_1234,
    0x4000_0000,
    0x3eaa_aaab,
    0xc47a_0000,
    0x4f00_0000,
    0x5f00_0000,
    0xdf00_0001,
    0x0040_0000,
    0x3380_0000,
];

const ROUNDING: [&str; 6] = ["rne", "rtz", "rdn", "rup", "rmm", "dyn"];
const ARITH: [&str; 4] = ["fadd", "fsub", "fmul", "fdiv"];
const FMA: [&str; 4] = ["fmadd", "fmsub", "fnmsub", "fnmadd"];
const BITS: [&str; 5] = ["fsgnj", "fsgnjn", "fsgnjx", "fmin", "fmax"];
const CMP: [&str; 3] = ["feq", "flt", "fle"];
const FP_CSRS: [&str; 3] = ["fflags", "frm", "fcsr"];

impl Gen {
    /// The data block's first doublewords: every special double, then every pair of
    /// special singles (low and high word).
    pub(super) fn fp_table(&self) -> Vec<u64> {
        let mut t: Vec<u64> = SPECIAL_D.to_vec();
        t.extend(
            SPECIAL_S
                .chunks(2)
                .map(|p| (p[1] as u64) << 32 | p[0] as u64),
        );
        t
    }

    /// Turns the FPU on, picks a rounding mode and loads every f register from the
    /// special-value table.
    pub(super) fn fp_setup(&mut self) {
        let frm = self.rng.below(5);
        let mut s =
            format!("  li {SCRATCH}, 0x2000\n  csrs mstatus, {SCRATCH}\n  csrwi frm, {frm}\n");
        let entries = self.fp_table().len() as u64;
        for r in 0..32 {
            let off = self.rng.below(entries) as i64 * 8 - 2048;
            let (op, off) = if self.fmt_d() {
                ("fld", off)
            } else {
                ("flw", off + 4 * self.rng.below(2) as i64)
            };
            writeln!(s, "  {op} f{r}, {off}({BASE})").unwrap();
        }
        self.out.push_str(&s);
    }

    /// Whether to use a double this time (always single without D).
    fn fmt_d(&mut self) -> bool {
        self.isa.fp == FpExt::FD && self.rng.below(2) == 0
    }

    fn freg(&mut self) -> String {
        format!("f{}", self.rng.below(32))
    }

    /// One random floating-point instruction that does not transfer control.
    pub(super) fn fp_straight(&mut self, rd: &str, rs1: &str) {
        let d = self.fmt_d();
        let sfx = if d { "d" } else { "s" };
        let (fd, f1, f2, f3) = (self.freg(), self.freg(), self.freg(), self.freg());
        let rm = *self.rng.pick(&ROUNDING);
        let rv64 = self.isa.xlen == Xlen::Rv64;
        let ints: &[&str] = if rv64 {
            &["w", "wu", "l", "lu"]
        } else {
            &["w", "wu"]
        };
        let int = *self.rng.pick(ints);
        let s = match self.rng.below(100) {
            0..=24 => format!("{}.{sfx} {fd}, {f1}, {f2}, {rm}", self.rng.pick(&ARITH)),
            25..=36 => format!("{}.{sfx} {fd}, {f1}, {f2}, {f3}, {rm}", self.rng.pick(&FMA)),
            37..=40 => format!("fsqrt.{sfx} {fd}, {f1}, {rm}"),
            41..=50 => format!("{}.{sfx} {fd}, {f1}, {f2}", self.rng.pick(&BITS)),
            51..=56 => format!("{}.{sfx} {rd}, {f1}, {f2}", self.rng.pick(&CMP)),
            57..=58 => format!("fclass.{sfx} {rd}, {f1}"),
            59..=64 => format!("fcvt.{int}.{sfx} {rd}, {f1}, {rm}"),
            // Conversions to D from S and from 32-bit integers are exact: the assembler
            // takes no rounding mode for them.
            65..=70 if d && int.starts_with('w') => format!("fcvt.d.{int} {fd}, {rs1}"),
            65..=70 => format!("fcvt.{sfx}.{int} {fd}, {rs1}, {rm}"),
            71..=74 if self.isa.fp == FpExt::FD && d => format!("fcvt.s.d {fd}, {f1}, {rm}"),
            71..=74 if self.isa.fp == FpExt::FD => format!("fcvt.d.s {fd}, {f1}"),
            75..=78 if d && !rv64 => format!("fsgnj.d {fd}, {f1}, {f2}"),
            75..=78 => {
                let w = if d { "d" } else { "w" };
                if self.rng.below(2) == 0 {
                    format!("fmv.x.{w} {rd}, {f1}")
                } else {
                    format!("fmv.{w}.x {fd}, {rs1}")
                }
            }
            79..=86 => {
                let (w, size) = if d { ("d", 8) } else { ("w", 4) };
                let off = self.rng.offset(size);
                if self.rng.below(2) == 0 {
                    format!("fl{w} {fd}, {off}({BASE})")
                } else {
                    format!("fs{w} {f1}, {off}({BASE})")
                }
            }
            87..=96 => {
                let csr = self.rng.pick(&FP_CSRS);
                match self.rng.below(4) {
                    0 => format!("csrr {rd}, {csr}"),
                    1 => format!("csrw {csr}, {rs1}"),
                    2 => format!("csrrwi {rd}, {csr}, {}", self.rng.below(32)),
                    _ => format!("csrrc {rd}, {csr}, {rs1}"),
                }
            }
            // A static rounding mode of 5 or 6 (reserved): an illegal fadd. (Conversions
            // between formats on an F-only hart come here too.)
            _ => format!(
                ".word {:#x}",
                0x0000_0053 | (5 + self.rng.below(2) as u32) << 12
            ),
        };
        writeln!(self.out, "  {s}").unwrap();
    }
}
