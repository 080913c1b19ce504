//! How the lane's floating-point units (Figure 8.6's FMA0/FMA1, FConv and FCmp on the
//! operand crossbar) meet the crossbar and the banks: each 64-bit slice of a bank entry
//! is one element, a narrow format's operand its low bits (registers hold narrow
//! values sign-extended, and NaN-boxing is not checked, as the golden model reads
//! them) and its result sign-extended to 64 bits (the golden model's register value of
//! a result); a slice's operation starts only when its element is written (the
//! crossbar's mask), so that its flags count only then.

use super::uop::{result, xbar};
use crate::hwacha::params::HwachaParams;
use hdl::{cat, Bits, Bundle, Dir, Inst, ModuleBuilder, ResetValue, Value};

/// The unit's ports: `xbar` (its VFU's crossbar port, valid only for this unit's
/// operations), and `flags` out (the OR of the finished elements' exception flags,
/// RISC-V fflags order, in the cycle their results leave).
pub struct Port {
    pub xbar: Bundle,
    pub flags: Value,
}

impl Port {
    pub fn new(m: &mut ModuleBuilder, p: &HwachaParams) -> Port {
        Port {
            xbar: m.io("xbar", Dir::In, &xbar(p)),
            flags: m.output("flags", 5),
        }
    }

    /// Crossbar field `name`.
    pub fn get(&self, name: &str) -> Value {
        self.xbar.bits().get(name).value().clone()
    }

    /// Slice `s` of operand `name` (`a`, `b`, `c`).
    pub fn operand(&self, name: &str, s: u32) -> Value {
        self.get(name).slice(64 * s + 63, 64 * s)
    }

    /// Whether slice `s`'s element starts an operation this cycle.
    pub fn starts(&self, s: u32) -> Value {
        self.starts_packed(s, 0)
    }

    /// Whether subword `j` of slice `s` starts an operation this cycle (a packed
    /// operation's, `uop::mask_bits`).
    pub fn starts_packed(&self, s: u32, j: u32) -> Value {
        let slices = self.get("a").width() / 64;
        self.xbar.valid() & &self.get("mask").bit(j * slices + s)
    }

    /// Whether the operation's `fmt` is `code`.
    pub fn fmt_is(&self, code: u64) -> Value {
        let f = self.get("fmt");
        f.eq(&f.konst(Bits::from_u64(2, code)))
    }
}

/// `v`'s low `bits` bits sign-extended to 64.
pub fn sext(v: &Value, bits: u32) -> Value {
    v.slice(bits - 1, 0).as_signed().sext(64).as_unsigned()
}

/// A slice's finished operation: its `out_valid`, 64-bit result and flags.
#[derive(Clone)]
pub struct Done {
    pub valid: Value,
    pub data: Value,
    pub flags: Value,
}

impl Done {
    /// The outputs of `inst` (a library unit), the result sign-extended from `bits`.
    pub fn of(inst: &Inst, bits: u32) -> Done {
        Done {
            valid: inst.port("out_valid"),
            data: sext(&inst.port("result"), bits),
            flags: inst.port("flags"),
        }
    }
}

/// Drives result bundle `out` (`uop::result`) from the slices' finished operations
/// (slice 0 first; an operation's slices finish together): data where valid, the mask
/// their valid bits (subword 0's, `uop::mask_bits`). Returns the OR of their flags.
pub fn drive_result(m: &mut ModuleBuilder, out: &Bundle, slices: &[Done]) -> Value {
    let data: Vec<Value> = slices.iter().map(|d| d.data.clone()).collect();
    let valid: Vec<Value> = slices.iter().map(|d| d.valid.clone()).collect();
    m.connect(
        out.get("data").value(),
        &cat(&data.iter().rev().collect::<Vec<_>>()),
    );
    let mask = out.get("mask").value();
    m.connect(
        mask,
        &cat(&valid.iter().rev().collect::<Vec<_>>()).zext(mask.width()),
    );
    any_flags(slices)
}

/// A slice's further lanes of a packed operation (`uop::mask_bits`' subwords 1..), and
/// lane 0's result in the packed row's form, which the slice holds in place of the
/// register value when a further lane finishes.
pub struct PackedLanes {
    pub lane0: Value,
    pub lanes: Vec<Done>,
}

/// Drives a unit's result for packed operations over `drive_result`'s: a slice with a
/// further lane finishing holds every lane's raw result (a packed row's slice); the mask
/// gains the lanes' bits (subword `j`'s at `j * S + s`).
pub fn drive_packed(m: &mut ModuleBuilder, out: &Bundle, slices: &[Done], packed: &[PackedLanes]) {
    let s = slices.len() as u32;
    let data: Vec<Value> = slices
        .iter()
        .zip(packed)
        .map(|(d, l)| {
            let any = l
                .lanes
                .iter()
                .fold(d.valid.konst(Bits::zero(1)), |a, x| &a | &x.valid);
            let mut parts: Vec<&Value> = l.lanes.iter().rev().map(|x| &x.data).collect();
            parts.push(&l.lane0);
            any.mux(&cat(&parts), &d.data)
        })
        .collect();
    m.connect(
        out.get("data").value(),
        &cat(&data.iter().rev().collect::<Vec<_>>()),
    );
    let mask = out.get("mask").value();
    let bits: Vec<Value> = (0..mask.width())
        .map(|b| {
            let (j, i) = ((b / s) as usize, (b % s) as usize);
            match j {
                0 => slices[i].valid.clone(),
                _ => packed[i]
                    .lanes
                    .get(j - 1)
                    .map_or(mask.konst(Bits::zero(1)), |x| x.valid.clone()),
            }
        })
        .collect();
    m.connect(mask, &cat(&bits.iter().rev().collect::<Vec<_>>()));
}

/// The OR of the flags of the finished operations among `done` (not empty).
pub fn any_flags(done: &[Done]) -> Value {
    let none = done[0].flags.konst(Bits::zero(5));
    done.iter()
        .fold(none, |acc, d| &acc | &(&d.valid.repeat(5) & &d.flags))
}

/// A result output `name` of the unit.
pub fn result_out(m: &mut ModuleBuilder, p: &HwachaParams, name: &str) -> Bundle {
    m.io(name, Dir::Out, &result(p))
}

/// `v` delayed by `n` registers named `<name>_<i>`, without reset: what travels beside
/// a unit's pipe (an operation's kind, a widening's flags) is read only with the
/// operation's valid result.
pub fn delay(m: &mut ModuleBuilder, name: &str, v: &Value, n: u32) -> Value {
    (0..n).fold(v.clone(), |prev, i| {
        let r = m.reg(&format!("{name}_{i}"), v.width(), ResetValue::None);
        m.connect(&r, &prev);
        r
    })
}
