//! The rounding block shared by every floating-point unit (`generators::fpu::round`),
//! proven on the narrowing conversions it implements alone: a binary64 value unpacked and
//! rounded to binary32 and binary16 must equal Berkeley SoftFloat's f64_to_f32 and
//! f64_to_f16 (RISC-V specialization) in value and flags, in every rounding mode, and
//! rounding to binary64 itself must give the value back exactly. The operands are
//! SoftFloat-independent: doubles whose exponents sweep the narrow formats' subnormal,
//! normal and overflow ranges with fractions that tie, carry out and lie one ulp off.
//! Run in the IR simulator; the emitted Verilog of every unit using the block is run in
//! Verilator by that unit's tests.

mod fp_rig;

use fp_rig::*;
use generators::fpu::{round, unpack, RoundIn, DOUBLE, HALF, SINGLE};
use hdl::sim::Sim;
use hdl::{Design, ModuleBuilder};
use verification::rng::Rng;

fn design() -> Design {
    let mut m = ModuleBuilder::new("RoundTest");
    let x = m.input("x", 64);
    let rm = m.input("rm", 3);
    let u = unpack(DOUBLE, &x);
    let input = RoundIn {
        sign: u.sign.clone(),
        exp: u.exp.clone(),
        sig: u.sig.clone(),
        sticky: u.is_zero.konst(hdl::Bits::zero(1)),
    };
    for (name, fmt) in [("h", HALF), ("s", SINGLE), ("d", DOUBLE)] {
        let r = round(fmt, &input, &rm);
        let out = m.output(name, fmt.width());
        m.connect(&out, &r.bits);
        let flags = m.output(&format!("{name}_flags"), 5);
        m.connect(&flags, &r.flags);
    }
    Design::new(&m.finish().unwrap())
}

/// A finite double near the binary16/binary32 ranges' boundaries or anywhere.
fn operand(rng: &mut Rng) -> u64 {
    if rng.chance(10) {
        return special(rng, Fmt::D);
    }
    // Unbiased exponents from below binary16's smallest subnormal (-24) and binary32's
    // (-149) to above their largest finite (15, 127).
    let e = *rng.pick(&[
        -170i64, -152, -149, -126, -40, -25, -24, -14, 0, 14, 15, 16, 126, 127, 128,
    ]);
    let e = e + rng.below(7) as i64 - 3;
    let frac = match rng.below(5) {
        0 => rng.next_u64(),
        // Ties and near-ties at every rounding position.
        1 => {
            let pos = rng.below(52);
            (1u64 << pos).wrapping_add(rng.below(3)).wrapping_sub(1)
                | ((rng.next_u64() << (pos + 1).min(63)) * u64::from(pos < 51))
        }
        // Runs of ones that carry out when rounded up.
        2 => u64::MAX << rng.below(52),
        3 => u64::MAX >> rng.below(64),
        _ => 0,
    } & ((1 << 52) - 1);
    Fmt::D.pack(rng.chance(50), (e + 1023) as u64, frac)
}

fn is_finite(x: u64) -> bool {
    (x >> 52) & 0x7ff != 0x7ff
}

#[test]
fn rounding_a_double_to_each_format_matches_softfloat() {
    let mut sim = Sim::new(&design());
    let mut rng = Rng::new(0x0520_07d1);
    let long = std::env::var("ACCELGEN_LONG").is_ok_and(|v| v == "1");
    let mut values: Vec<u64> = corners(Fmt::D)
        .into_iter()
        .filter(|&x| is_finite(x))
        .collect();
    values.extend((0..if long { 400_000 } else { 8_000 }).map(|_| operand(&mut rng)));
    values.retain(|&x| is_finite(x));
    let mut mismatches = Vec::new();
    for rm in 0..5u32 {
        let tuples: Vec<[u64; 3]> = values.iter().map(|&x| [x, 0, 0]).collect();
        let to_h = reference(
            &Operation {
                op: Op::Convert,
                dst: Fmt::H,
                src: Fmt::D,
            },
            rm,
            &tuples,
        );
        let to_s = reference(
            &Operation {
                op: Op::Convert,
                dst: Fmt::S,
                src: Fmt::D,
            },
            rm,
            &tuples,
        );
        sim.poke_u64("rm", rm as u64).unwrap();
        for (k, &x) in values.iter().enumerate() {
            sim.poke_u64("x", x).unwrap();
            let got = |sim: &mut Sim, n: &str| {
                (
                    sim.peek_u64(n).unwrap(),
                    sim.peek_u64(&format!("{n}_flags")).unwrap() as u8,
                )
            };
            for (name, want) in [("h", to_h[k]), ("s", to_s[k]), ("d", (x, 0))] {
                let have = got(&mut sim, name);
                if have != want && mismatches.len() < 20 {
                    mismatches.push(format!(
                        "rm {rm} {x:#018x} to {name}: expected {:#x} {}, got {:#x} {}",
                        want.0,
                        flag_names(want.1),
                        have.0,
                        flag_names(have.1)
                    ));
                }
            }
        }
    }
    assert!(mismatches.is_empty(), "{}", mismatches.join("\n"));
}
