//! Priority and one-hot helpers built from the core operators.

use crate::bits::Bits;
use crate::builder::{cat, mux, Value};
use crate::ir::addr_width;

/// Index of the lowest set bit of `v` (0 when none is set), `addr_width(v.width())` bits.
#[track_caller]
pub fn priority_encode(v: &Value) -> Value {
    let w = addr_width(v.width() as u64);
    let mut out = v.konst(Bits::zero(w));
    for i in (0..v.width()).rev() {
        out = mux(&v.bit(i), &v.konst(Bits::from_u64(w, i as u64)), &out);
    }
    out
}

/// The value paired with the first true condition, or `default`.
#[track_caller]
pub fn priority_mux(cases: &[(Value, Value)], default: &Value) -> Value {
    cases
        .iter()
        .rev()
        .fold(default.clone(), |acc, (c, v)| mux(c, v, &acc))
}

/// AND-OR selection by a one-hot `sel` (bit i selects `values[i]`); zero when `sel` is 0.
#[track_caller]
pub fn onehot_mux(sel: &Value, values: &[Value]) -> Value {
    assert_eq!(
        sel.width() as usize,
        values.len(),
        "one select bit per value"
    );
    let terms: Vec<Value> = values
        .iter()
        .enumerate()
        .map(|(i, v)| &sel.bit(i as u32).repeat(v.width()) & &v.as_unsigned())
        .collect();
    let first = terms[0].clone();
    terms[1..].iter().fold(first, |acc, t| &acc | t)
}

/// `n`-bit one-hot decoding of `index` (all zero when `index >= n`).
#[track_caller]
pub fn onehot_decode(index: &Value, n: u32) -> Value {
    let index = index.as_unsigned();
    let bits: Vec<Value> = (0..n)
        .rev()
        .map(|i| index.eq(&index.konst(Bits::from_u64(index.width(), i as u64))))
        .collect();
    let refs: Vec<&Value> = bits.iter().collect();
    cat(&refs)
}

/// Index of the set bit of a one-hot `v` (the OR of the indices of all set bits).
#[track_caller]
pub fn onehot_encode(v: &Value) -> Value {
    let w = addr_width(v.width() as u64);
    let zero = v.konst(Bits::zero(w));
    (0..v.width()).fold(zero.clone(), |acc, i| {
        &acc | &mux(&v.bit(i), &v.konst(Bits::from_u64(w, i as u64)), &zero)
    })
}

/// The lowest set bit of `v` as a one-hot value (`v & -v`).
#[track_caller]
pub fn lowest_one(v: &Value) -> Value {
    let u = v.as_unsigned();
    &u & &u.neg()
}

/// Number of set bits, `addr_width(width + 1)` bits.
#[track_caller]
pub fn popcount(v: &Value) -> Value {
    let w = addr_width(v.width() as u64 + 1);
    (0..v.width()).fold(v.konst(Bits::zero(w)), |acc, i| &acc + &v.bit(i).zext(w))
}

/// [`popcount`] as a balanced tree of adders (depth log2 of the width, where
/// `popcount`'s chain is as deep as the width): for counts on a critical path.
pub fn popcount_tree(v: &Value) -> Value {
    let w = addr_width(v.width() as u64 + 1);
    let mut level: Vec<Value> = (0..v.width()).map(|i| v.bit(i).zext(w)).collect();
    while level.len() > 1 {
        level = level
            .chunks(2)
            .map(|c| c[1..].iter().fold(c[0].clone(), |a, b| &a + b))
            .collect();
    }
    level.pop().unwrap_or_else(|| v.konst(Bits::zero(w)))
}

/// Each position's count of ones before it in `bits` (`out[i]` = the ones of
/// `bits[..i]`, `width` bits): a Kogge-Stone scan, log2 of the length adders deep and
/// about `len * log2(len)` of them, with no chain through the positions.
pub fn prefix_counts(bits: &[Value], width: u32) -> Vec<Value> {
    let Some(first) = bits.first() else {
        return Vec::new();
    };
    let mut x: Vec<Value> = std::iter::once(first.konst(Bits::zero(width)))
        .chain(bits[..bits.len() - 1].iter().map(|b| b.zext(width)))
        .collect();
    let mut d = 1;
    while d < x.len() {
        x = (0..x.len())
            .map(|i| match i >= d {
                true => &x[i] + &x[i - d],
                false => x[i].clone(),
            })
            .collect();
        d *= 2;
    }
    x
}

/// Brings the ports of child `inst` that `rename` names (a port's name to its name in
/// `m`, or `None` to leave it) out as ports of `m`: an input drives the child's input,
/// an output shows the child's output. A bundle of the child whose every port is
/// renamed as the bundle is (a prefix, say) stays a bundle of `m`, for `Inst::io`.
pub fn expose(
    m: &mut crate::builder::ModuleBuilder,
    inst: &crate::builder::Inst,
    rename: impl Fn(&str) -> Option<String>,
) {
    let module = inst.module().clone();
    for port in &module.body.ports {
        let Some(name) = rename(&port.name) else {
            continue;
        };
        let width = module.signal(port.sig).width;
        let child = inst.port(&port.name);
        match port.dir {
            crate::ir::Dir::In => {
                let top = m.input(&name, width);
                m.connect(&child, &top);
            }
            crate::ir::Dir::Out => {
                let top = m.output(&name, width);
                m.connect(&top, &child);
            }
        }
    }
    for b in &module.body.bundles {
        let Some(name) = rename(&b.name) else {
            continue;
        };
        let kept = b.shape.leaves(&b.name).iter().all(|(leaf, ..)| {
            rename(leaf).is_some_and(|n| n.strip_prefix(&name) == leaf.strip_prefix(&b.name))
        });
        if kept {
            m.register_bundle(crate::ir::PortBundle { name, ..b.clone() });
        }
    }
}
