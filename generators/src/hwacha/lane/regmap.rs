//! Register mapping: where a register's elements live in the banks (thesis 7.1 for the
//! baseline; chapter 8, "Mixed-Precision Support", Register Mapping and Spatial
//! Parallelism, for `mixed_precision`).
//!
//! Baseline: vector data register `r` (of `n = max(#vv, 1)`) holds lane-local strip `s`
//! in row `s * n + r`, predicate register `p` in predicate row `s * max(#vp, 1) + p`
//! (`hwacha/mod.rs`).
//!
//! Mixed precision: the banks are segmented into a doubleword region (rows from 0), a
//! word region (from `bw`) and a halfword region (from `bh`). A register of class `c`
//! (its width: registers are numbered 64-bit ones first, then 32-, then 16-bit) packs
//! `k = 1, 2, 4` strips to a row, each strip in subword `sub = s % k` of every slice:
//! its strip `s` is in row `base_c + (s / k) * n_c + (r - first_c)`, a constant stride of
//! `n_c` (the class's register count) between rows. The predicate file holds four
//! strips per entry (4S bits): predicate `p`'s strip `s` is bits `(s % 4) * S ..` of row
//! `(s / 4) * max(#vp, 1) + p`. Sources are unpacked and sign-extended before the
//! operand latches (`unpack`); writes are repacked (`repack`) under a 16-bit-granule
//! write mask. A packed operation (Spatial Parallelism: the packed FMAs) reads and
//! writes its rows whole, as they are packed (`packed_granules`).

use super::uop::row_bits;
use crate::hwacha::master::{NVP_BITS, NVV_BITS};
use crate::hwacha::params::HwachaParams;
use crate::hwacha::rocc::elements_per_bank;
use hdl::{cat, Bits, ModuleBuilder, Value};

/// Register classes (the `*_c` and `cls` fields): which region a register is in.
pub mod cls {
    pub const D: u64 = 0;
    pub const W: u64 = 1;
    pub const H: u64 = 2;
    pub const WIDTH: u32 = 2;
}

/// The configuration fields the master sequencer hands the lanes: the register counts
/// (`nvv`, `nvp`), and with mixed precision the counts per class and the word and
/// halfword regions' first rows.
pub fn layout_fields(p: &HwachaParams) -> Vec<(&'static str, u32)> {
    let mut v = vec![("nvv", NVV_BITS), ("nvp", NVP_BITS)];
    if p.mixed_precision {
        let rw = row_bits(p);
        v.extend([
            ("nd", NVV_BITS),
            ("nw", NVV_BITS),
            ("nh", NVV_BITS),
            ("bw", rw),
            ("bh", rw),
        ]);
    }
    v
}

/// `layout_fields`' values for a `vcfg` (as the RoCC unit's vsetcfg writes it): the
/// doubleword region takes `e * #vv64` rows, the word region `ceil(e / 2) * #vv32`.
pub fn layout_of(p: &HwachaParams, vcfg: &Value) -> Vec<Value> {
    let count = |hi, lo| vcfg.slice(hi, lo).zext(NVV_BITS + 1);
    let (nd, nw, nh) = (count(8, 0), count(22, 14), count(31, 23));
    let nvv = (&(&nd + &nw) + &nh).trunc(NVV_BITS);
    let nvp = vcfg.slice(13, 9).zext(NVP_BITS);
    let mut v = vec![nvv, nvp];
    if p.mixed_precision {
        let rw = row_bits(p);
        let e = elements_per_bank(p, vcfg).trunc(rw + 3);
        let rows = |strips: &Value, n: &Value| {
            let n = n.zext(rw.max(n.width())).slice(rw - 1, 0);
            strips.mul(&n).trunc(rw)
        };
        let half = (&e + &e.konst(Bits::from_u64(rw + 3, 1))).shr(1);
        let bw = rows(&e, &nd);
        let bh = &bw + &rows(&half, &nw);
        v.extend([
            nd.trunc(NVV_BITS),
            nw.trunc(NVV_BITS),
            nh.trunc(NVV_BITS),
            bw,
            bh,
        ]);
    }
    v
}

/// A lane block's view of the configuration: its input ports (`layout_fields`).
pub struct Layout {
    ports: Vec<(&'static str, Value)>,
    packed: bool,
    row_w: u32,
}

/// `v`, or 1 when it is 0, in `w` bits (a count of registers per strip: thesis 7.1's
/// n < 2 rule; only the low row bits matter, with 256 registers a register has one
/// strip).
fn at_least_one(v: &Value, w: u32) -> Value {
    let z = v.eq(&v.konst(Bits::zero(v.width())));
    let v = z.mux(&v.konst(Bits::from_u64(v.width(), 1)), v);
    v.zext(v.width().max(w)).slice(w - 1, 0)
}

fn k(v: &Value, value: u64, w: u32) -> Value {
    v.konst(Bits::from_u64(w, value))
}

impl Layout {
    /// The input ports of `layout_fields`.
    pub fn inputs(m: &mut ModuleBuilder, p: &HwachaParams) -> Layout {
        let ports = layout_fields(p)
            .into_iter()
            .map(|(name, w)| (name, m.input(name, w)))
            .collect();
        Layout {
            ports,
            packed: p.mixed_precision,
            row_w: row_bits(p),
        }
    }

    /// The port `name` (of `layout_fields`).
    pub fn port(&self, name: &str) -> &Value {
        &self
            .ports
            .iter()
            .find(|(n, _)| *n == name)
            .expect("a layout field")
            .1
    }

    /// Every port, by name.
    pub fn ports(&self) -> &[(&'static str, Value)] {
        &self.ports
    }

    /// A field in the row width (only its low bits matter: rows are below E).
    fn in_rows(&self, name: &str) -> Value {
        let (v, rw) = (self.port(name), self.row_w);
        v.zext(rw.max(v.width())).slice(rw - 1, 0)
    }

    /// The class (`cls::*`) of vector data register `reg` (8 bits): always D in the
    /// baseline.
    pub fn class(&self, reg: &Value) -> Value {
        if !self.packed {
            return k(reg, cls::D, cls::WIDTH);
        }
        let w = reg.width().max(NVV_BITS + 1);
        let nd = self.port("nd").zext(w);
        let ndw = &nd + &self.port("nw").zext(w);
        let r = reg.zext(w);
        let w_or_h = r.lt(&ndw).mux(&k(reg, cls::W, 2), &k(reg, cls::H, 2));
        r.lt(&nd).mux(&k(reg, cls::D, 2), &w_or_h)
    }

    /// The row of strip 0 of register `reg` of class `c`.
    pub fn first_row(&self, reg: &Value, c: &Value) -> Value {
        let rw = self.row_w;
        let r = reg.zext(rw.max(reg.width())).slice(rw - 1, 0);
        if !self.packed {
            return r;
        }
        // base_c - first_c, modulo the row width: the row is below E.
        let (nd, nw) = (self.in_rows("nd"), self.in_rows("nw"));
        let off_w = self.port("bw") - &nd;
        let off_h = &(self.port("bh") - &nd) - &nw;
        let off = c.bit(1).mux(&off_h, &c.bit(0).mux(&off_w, &k(c, 0, rw)));
        &r + &off
    }

    /// Registers of class `c` per packed row: the row stride.
    fn stride(&self, c: &Value) -> Value {
        if !self.packed {
            return at_least_one(self.port("nvv"), self.row_w);
        }
        let (nd, nw, nh) = (self.in_rows("nd"), self.in_rows("nw"), self.in_rows("nh"));
        c.bit(1).mux(&nh, &c.bit(0).mux(&nw, &nd))
    }

    /// What to add to a data row of class `c` after sequencing the strip whose low bits
    /// are `lo`: the stride at the end of a packed row (always in the baseline), else 0.
    pub fn step(&self, c: &Value, lo: &Value) -> Value {
        if !self.packed {
            return self.stride(c);
        }
        let h_end = &lo.bit(0) & &lo.bit(1);
        let ends = c.bit(1).mux(&h_end, &c.bit(0).mux(&lo.bit(0), &k(c, 1, 1)));
        ends.mux(&self.stride(c), &k(c, 0, self.row_w))
    }

    /// As `step`, for a predicate row of `prow_w` bits (four strips a row with mixed
    /// precision).
    pub fn pred_step(&self, lo: &Value, prow_w: u32) -> Value {
        let stride = at_least_one(self.port("nvp"), prow_w);
        if !self.packed {
            return stride;
        }
        (&lo.bit(0) & &lo.bit(1)).mux(&stride, &k(lo, 0, prow_w))
    }

    /// The subword of strip `s` (low bits `lo`) in a row of class `c`.
    pub fn subword(c: &Value, lo: &Value) -> Value {
        let w = cat(&[&k(lo, 0, 1), &lo.bit(0)]);
        c.bit(1).mux(lo, &c.bit(0).mux(&w, &k(lo, 0, 2)))
    }

    /// Where lane-local strip `strip` of register `reg` lives: (row, class, subword).
    pub fn place(&self, strip: &Value, reg: &Value) -> (Value, Value, Value) {
        let rw = self.row_w;
        let c = self.class(reg);
        let shift = |n: u32| strip.shr(n).zext(rw.max(strip.width())).slice(rw - 1, 0);
        let rows_in = if self.packed {
            c.bit(1).mux(&shift(2), &c.bit(0).mux(&shift(1), &shift(0)))
        } else {
            shift(0)
        };
        let row = &rows_in.mul(&self.stride(&c)).slice(rw - 1, 0) + &self.first_row(reg, &c);
        let lo = strip.zext(2.max(strip.width())).slice(1, 0);
        let sub = Self::subword(&c, &lo);
        (row, c, sub)
    }
}

/// Subword `sub` of each 64-bit slice of `data` as a register of class `c` holds it,
/// sign-extended to 64 bits (the mux before the operand latches).
pub fn unpack(data: &Value, c: &Value, sub: &Value) -> Value {
    let slices: Vec<Value> = (0..data.width() / 64)
        .map(|i| {
            let d = data.slice(64 * i + 63, 64 * i);
            let ext = |v: Value| v.as_signed().sext(64).as_unsigned();
            let word = sub.bit(0).mux(&ext(d.slice(63, 32)), &ext(d.slice(31, 0)));
            let halves: Vec<Value> = (0..4).map(|j| ext(d.slice(16 * j + 15, 16 * j))).collect();
            let half = sub.bit(1).mux(
                &sub.bit(0).mux(&halves[3], &halves[2]),
                &sub.bit(0).mux(&halves[1], &halves[0]),
            );
            c.bit(1).mux(&half, &c.bit(0).mux(&word, &d))
        })
        .collect();
    cat(&slices.iter().rev().collect::<Vec<_>>())
}

/// A write of `data` (S 64-bit elements, mask `mask` of S bits) to subword `sub` of a
/// row of class `c`: the repacked data (each element's low bits in every subword
/// position) and the write mask of 16-bit granules (4 per slice).
pub fn repack(data: &Value, mask: &Value, c: &Value, sub: &Value) -> (Value, Value) {
    let s = mask.width();
    let one = k(sub, 1, 4);
    let granules_w = sub.bit(0).mux(&k(sub, 0b1100, 4), &k(sub, 0b0011, 4));
    let granules_h = one.dshl(sub);
    let granules = c
        .bit(1)
        .mux(&granules_h, &c.bit(0).mux(&granules_w, &k(sub, 0xf, 4)));
    let (mut out, mut gmask) = (vec![], vec![]);
    for i in 0..s {
        let d = data.slice(64 * i + 63, 64 * i);
        let w = d.slice(31, 0).repeat(2);
        let h = d.slice(15, 0).repeat(4);
        out.push(c.bit(1).mux(&h, &c.bit(0).mux(&w, &d)));
        gmask.push(&mask.bit(i).repeat(4) & &granules);
    }
    let join = |v: &[Value]| cat(&v.iter().rev().collect::<Vec<_>>());
    (join(&out), join(&gmask))
}

/// Whether a `pk` field (`uop::MXP_FIELDS`) names a packed access: one covering its
/// whole row, as packed.
pub fn is_packed(pk: &Value) -> Value {
    pk.ne(&k(pk, cls::D, cls::WIDTH))
}

/// The 16-bit-granule write mask of a packed operation's row (class `pk`, W or H) from
/// its element mask (`uop::mask_bits`: subword `j`'s element `i` at bit `j * S + i`):
/// a word's two granules, a halfword's one.
pub fn packed_granules(mask: &Value, pk: &Value, s: u32) -> Value {
    let h = pk.eq(&k(pk, cls::H, cls::WIDTH));
    let slices: Vec<Value> = (0..s)
        .map(|i| {
            let bit = |j: u32| mask.bit(j * s + i);
            let words = cat(&[&bit(1), &bit(1), &bit(0), &bit(0)]);
            let halves = cat(&[&bit(3), &bit(2), &bit(1), &bit(0)]);
            h.mux(&halves, &words)
        })
        .collect();
    cat(&slices.iter().rev().collect::<Vec<_>>())
}

/// Strip `sub`'s S predicate bits of a 4S-bit packed predicate entry.
pub fn pred_unpack(entry: &Value, sub: &Value, s: u32) -> Value {
    let parts: Vec<Value> = (0..4).map(|j| entry.slice(s * j + s - 1, s * j)).collect();
    sub.bit(1).mux(
        &sub.bit(0).mux(&parts[3], &parts[2]),
        &sub.bit(0).mux(&parts[1], &parts[0]),
    )
}

/// A predicate write of `bits` under `mask` (S bits each) to strip `sub` of a packed
/// entry, or to all four strips when `all` (the clear state): (entry, write mask).
pub fn pred_repack(bits: &Value, mask: &Value, sub: &Value, all: &Value) -> (Value, Value) {
    let masks: Vec<Value> = (0..4)
        .map(|j| {
            let here = &sub.eq(&k(sub, j, 2)) | all;
            mask & &here.repeat(mask.width())
        })
        .collect();
    (bits.repeat(4), cat(&masks.iter().rev().collect::<Vec<_>>()))
}
