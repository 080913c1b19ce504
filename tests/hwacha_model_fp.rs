//! Hwacha golden model, floating point: results against the host's IEEE arithmetic
//! (round-to-nearest-even, single and double) for random operands including NaNs,
//! infinities, zeros and subnormals; rounding modes, exception flags, RISC-V's NaN,
//! min/max, conversion and classification rules on values worked out by hand; flags
//! accrued across instructions; predication and register precision; the mixed-precision
//! forms (widened sources, one rounding) on hand-worked values.

mod hwacha_model_rig;

use hwacha_model_rig::*;
use verification::hwacha::model::Field::*;
use verification::hwacha::model::{fflags, HwachaError, HwachaParams, Illegal};
use verification::rng::Rng;

const VLEN: u64 = 8;
const RNE: u64 = 0;
const RTZ: u64 = 1;
const RDN: u64 = 2;
const RUP: u64 = 3;
const RMM: u64 = 4;
const DYN: u64 = 7;
const NX: u8 = fflags::NX;
const UF: u8 = fflags::UF;
const OF: u8 = fflags::OF;
const DZ: u8 = fflags::DZ;
const NV: u8 = fflags::NV;

fn rig() -> Rig {
    let mut rig = Rig::new(HwachaParams::default());
    rig.setcfg(cfg(32, 4, 0, 0));
    assert_eq!(rig.setvl(VLEN), VLEN);
    rig
}

/// Runs `name` element-wise on vv1, vv2, vv3 into vv4 (all vector operands the
/// instruction has) and returns the results and the flags it raised.
fn run(rig: &mut Rig, name: &str, rm: u64, a: &[u64], b: &[u64], c: &[u64]) -> (Vec<u64>, u8) {
    let n = a.len() as u64;
    rig.setvl(n);
    rig.load_vv(1, a);
    rig.load_vv(2, &pad(b, n));
    rig.load_vv(3, &pad(c, n));
    let mut insn = i(name).f(Vd, 1).f(Vrd, 4);
    for (flag, field, reg) in [(Vs1, Vrs1, 1), (Vs2, Vrs2, 2), (Vs3, Vrs3, 3)] {
        if has_field(name, field) {
            insn = insn.f(flag, 1).f(field, reg);
        }
    }
    if has_field(name, Vrm) {
        insn = insn.f(Vrm, rm);
    }
    rig.hw.take_fflags();
    rig.run(&[insn.enc(), stop()]).unwrap();
    (rig.vv(4, n), rig.hw.take_fflags())
}

fn pad(v: &[u64], n: u64) -> Vec<u64> {
    let mut v = v.to_vec();
    v.resize(n as usize, 0);
    v
}

/// One operation on one set of operands.
fn one(rig: &mut Rig, name: &str, rm: u64, a: u64, b: u64, c: u64) -> (u64, u8) {
    let (v, f) = run(rig, name, rm, &[a], &[b], &[c]);
    (v[0], f)
}

fn s(x: f32) -> u64 {
    x.to_bits() as i32 as i64 as u64
}

fn d(x: f64) -> u64 {
    x.to_bits()
}

const CANONICAL_S: u64 = 0x7fc0_0000;
const CANONICAL_D: u64 = 0x7ff8_0000_0000_0000;

fn special_f32(rng: &mut Rng) -> f32 {
    const V: [u32; 14] = [
        0,
        0x8000_0000,
        0x7f80_0000,
        0xff80_0000,
        0x7fc0_0000,
        0x7fa0_0001, // signaling
        0x0000_0001,
        0x807f_ffff,
        0x0080_0000,
        0x7f7f_ffff,
        0x3f80_0000,
        0xbf80_0000,
        0x3f7f_ffff,
        0x4b80_0001,
    ];
    if rng.chance(30) {
        f32::from_bits(V[rng.below(V.len() as u64) as usize])
    } else {
        // Random exponents across the whole range, including subnormals.
        f32::from_bits(rng.next_u64() as u32)
    }
}

fn special_f64(rng: &mut Rng) -> f64 {
    const V: [u64; 12] = [
        0,
        1 << 63,
        0x7ff0_0000_0000_0000,
        0xfff0_0000_0000_0000,
        0x7ff8_0000_0000_0000,
        0x7ff4_0000_0000_0001,
        1,
        0x800f_ffff_ffff_ffff,
        0x0010_0000_0000_0000,
        0x7fef_ffff_ffff_ffff,
        0x3ff0_0000_0000_0000,
        0x3fef_ffff_ffff_ffff,
    ];
    if rng.chance(30) {
        f64::from_bits(V[rng.below(V.len() as u64) as usize])
    } else {
        f64::from_bits(rng.next_u64())
    }
}

/// Host result as the model must write it: canonical NaN for any NaN.
fn host_s(x: f32) -> u64 {
    if x.is_nan() {
        CANONICAL_S
    } else {
        s(x)
    }
}

fn host_d(x: f64) -> u64 {
    if x.is_nan() {
        CANONICAL_D
    } else {
        d(x)
    }
}

#[test]
fn round_to_nearest_matches_the_host_ieee_arithmetic() {
    let mut rig = rig();
    let mut rng = Rng::new(21);
    type Op32 = fn(f32, f32, f32) -> f32;
    type Op64 = fn(f64, f64, f64) -> f64;
    let ops32: [(&str, Op32); 8] = [
        ("vfadd.s", |a, b, _| a + b),
        ("vfsub.s", |a, b, _| a - b),
        ("vfmul.s", |a, b, _| a * b),
        ("vfdiv.s", |a, b, _| a / b),
        ("vfsqrt.s", |a, _, _| a.sqrt()),
        ("vfmadd.s", |a, b, c| a.mul_add(b, c)),
        ("vfnmadd.s", |a, b, c| -(a.mul_add(b, c))),
        ("vfmsub.s", |a, b, c| a.mul_add(b, -c)),
    ];
    let ops64: [(&str, Op64); 8] = [
        ("vfadd.d", |a, b, _| a + b),
        ("vfsub.d", |a, b, _| a - b),
        ("vfmul.d", |a, b, _| a * b),
        ("vfdiv.d", |a, b, _| a / b),
        ("vfsqrt.d", |a, _, _| a.sqrt()),
        ("vfmadd.d", |a, b, c| a.mul_add(b, c)),
        ("vfnmsub.d", |a, b, c| (-a).mul_add(b, c)),
        ("vfmsub.d", |a, b, c| a.mul_add(b, -c)),
    ];
    for _ in 0..40 {
        for (name, f) in ops32 {
            let x: Vec<f32> = (0..VLEN).map(|_| special_f32(&mut rng)).collect();
            let y: Vec<f32> = (0..VLEN).map(|_| special_f32(&mut rng)).collect();
            let z: Vec<f32> = (0..VLEN).map(|_| special_f32(&mut rng)).collect();
            let bits = |v: &[f32]| v.iter().map(|&x| s(x)).collect::<Vec<_>>();
            let (got, _) = run(&mut rig, name, RNE, &bits(&x), &bits(&y), &bits(&z));
            for e in 0..VLEN as usize {
                let want = host_s(f(x[e], y[e], z[e]));
                assert_eq!(got[e], want, "{name} {:?} {:?} {:?}", x[e], y[e], z[e]);
            }
        }
        for (name, f) in ops64 {
            let x: Vec<f64> = (0..VLEN).map(|_| special_f64(&mut rng)).collect();
            let y: Vec<f64> = (0..VLEN).map(|_| special_f64(&mut rng)).collect();
            let z: Vec<f64> = (0..VLEN).map(|_| special_f64(&mut rng)).collect();
            let bits = |v: &[f64]| v.iter().map(|&x| d(x)).collect::<Vec<_>>();
            let (got, _) = run(&mut rig, name, RNE, &bits(&x), &bits(&y), &bits(&z));
            for e in 0..VLEN as usize {
                let want = host_d(f(x[e], y[e], z[e]));
                assert_eq!(got[e], want, "{name} {:?} {:?} {:?}", x[e], y[e], z[e]);
            }
        }
        // Conversions: double <-> single (RNE), integers -> float (RNE), float -> integer
        // (the host truncates and saturates: RTZ, NaN handled below).
        let x: Vec<f64> = (0..VLEN).map(|_| special_f64(&mut rng)).collect();
        let xs: Vec<u64> = x.iter().map(|&v| d(v)).collect();
        let (got, _) = run(&mut rig, "vfcvt.s.d", RNE, &xs, &[], &[]);
        for e in 0..VLEN as usize {
            assert_eq!(got[e], host_s(x[e] as f32), "vfcvt.s.d {:?}", x[e]);
        }
        let (got, _) = run(&mut rig, "vfcvt.l.d", RTZ, &xs, &[], &[]);
        for e in 0..VLEN as usize {
            let want = if x[e].is_nan() { i64::MAX } else { x[e] as i64 };
            assert_eq!(got[e], want as u64, "vfcvt.l.d {:?}", x[e]);
        }
        let ints: Vec<u64> = (0..VLEN).map(|_| rng.next_u64() >> rng.below(64)).collect();
        let (got, _) = run(&mut rig, "vfcvt.d.l", RNE, &ints, &[], &[]);
        for e in 0..VLEN as usize {
            assert_eq!(
                got[e],
                d(ints[e] as i64 as f64),
                "vfcvt.d.l {}",
                ints[e] as i64
            );
        }
        let (got, _) = run(&mut rig, "vfcvt.s.lu", RNE, &ints, &[], &[]);
        for e in 0..VLEN as usize {
            assert_eq!(got[e], s(ints[e] as f32), "vfcvt.s.lu {}", ints[e]);
        }
        let y: Vec<f32> = (0..VLEN).map(|_| special_f32(&mut rng)).collect();
        let ys: Vec<u64> = y.iter().map(|&v| s(v)).collect();
        let (got, _) = run(&mut rig, "vfcvt.d.s", RNE, &ys, &[], &[]);
        for e in 0..VLEN as usize {
            assert_eq!(got[e], host_d(y[e] as f64), "vfcvt.d.s {:?}", y[e]);
        }
        let (got, _) = run(&mut rig, "vfcvt.wu.s", RTZ, &ys, &[], &[]);
        for e in 0..VLEN as usize {
            let want = if y[e].is_nan() { u32::MAX } else { y[e] as u32 };
            assert_eq!(got[e], want as i32 as i64 as u64, "vfcvt.wu.s {:?}", y[e]);
        }
    }
}

#[test]
fn rounding_modes() {
    let mut rig = rig();
    let one_s = s(1.0);
    let three_s = s(3.0);
    // 1/3 in single: 0x3eaaaaab to nearest (rounded up), 0x3eaaaaaa toward zero or down.
    for (rm, want) in [
        (RNE, 0x3eaa_aaab),
        (RTZ, 0x3eaa_aaaa),
        (RDN, 0x3eaa_aaaa),
        (RUP, 0x3eaa_aaab),
        (RMM, 0x3eaa_aaab),
    ] {
        assert_eq!(
            one(&mut rig, "vfdiv.s", rm, one_s, three_s, 0),
            (want, NX),
            "rm {rm}"
        );
    }
    // -1/3 rounds the other way for the directed modes.
    assert_eq!(
        one(&mut rig, "vfdiv.s", RDN, s(-1.0), three_s, 0),
        (0xffff_ffff_beaa_aaab, NX)
    );
    // sqrt(2) in double is 0x3ff6a09e667f3bcd to nearest (above the true value).
    for (rm, want) in [
        (RNE, 0x3ff6_a09e_667f_3bcd),
        (RTZ, 0x3ff6_a09e_667f_3bcc),
        (RUP, 0x3ff6_a09e_667f_3bcd),
    ] {
        assert_eq!(
            one(&mut rig, "vfsqrt.d", rm, d(2.0), 0, 0),
            (want, NX),
            "rm {rm}"
        );
    }
    assert_eq!(one(&mut rig, "vfsqrt.d", RNE, d(6.25), 0, 0), (d(2.5), 0));
    assert_eq!(
        one(&mut rig, "vfsqrt.s", RNE, s(-1.0), 0, 0),
        (CANONICAL_S, NV)
    );
    assert_eq!(one(&mut rig, "vfsqrt.s", RNE, s(-0.0), 0, 0), (s(-0.0), 0));
}

#[test]
fn exception_flags_and_tininess() {
    let mut rig = rig();
    let one_s = s(1.0);
    let three_s = s(3.0);
    // Division by zero, invalid operations, overflow.
    assert_eq!(
        one(&mut rig, "vfdiv.d", RNE, d(1.0), d(0.0), 0),
        (d(f64::INFINITY), DZ)
    );
    assert_eq!(
        one(&mut rig, "vfdiv.d", RNE, d(0.0), d(0.0), 0),
        (CANONICAL_D, NV)
    );
    assert_eq!(
        one(
            &mut rig,
            "vfsub.d",
            RNE,
            d(f64::INFINITY),
            d(f64::INFINITY),
            0
        ),
        (CANONICAL_D, NV)
    );
    let max_s = s(f32::MAX);
    assert_eq!(
        one(&mut rig, "vfmul.s", RNE, max_s, s(2.0), 0),
        (s(f32::INFINITY), OF | NX)
    );
    assert_eq!(
        one(&mut rig, "vfmul.s", RTZ, max_s, s(2.0), 0),
        (max_s, OF | NX)
    );
    assert_eq!(
        one(&mut rig, "vfmul.s", RDN, s(-f32::MAX), s(2.0), 0),
        (s(f32::NEG_INFINITY), OF | NX)
    );
    // Underflow: an exact subnormal result raises nothing; an inexact tiny one raises
    // UF and NX. (1 - 2^-24) * 2^-126 is tiny (it is exact with an unbounded exponent)
    // though it rounds to the smallest normal number: tininess after rounding.
    let min_normal = 0x0080_0000;
    assert_eq!(
        one(&mut rig, "vfmul.s", RNE, min_normal, s(0.5), 0),
        (0x0040_0000, 0)
    );
    assert_eq!(one(&mut rig, "vfmul.s", RNE, 1, s(0.5), 0), (0, UF | NX));
    assert_eq!(one(&mut rig, "vfmul.s", RUP, 1, s(0.5), 0), (1, UF | NX));
    assert_eq!(
        one(&mut rig, "vfmul.s", RNE, 0x3f7f_ffff, min_normal, 0),
        (min_normal, UF | NX)
    );
    // The same band in double precision, and just above it: (1 - 2^-54) * 2^-1022 is a
    // tie that rounds (unbounded) to 2^-1022 itself, so it is not tiny.
    let min_normal_d = d(2f64.powi(-1022));
    assert_eq!(
        one(
            &mut rig,
            "vfmul.d",
            RNE,
            d(1.0 - 2f64.powi(-53)),
            min_normal_d,
            0
        ),
        (min_normal_d, UF | NX)
    );
    let above = (
        d(1.0 - 2f64.powi(-27)),
        d((1.0 + 2f64.powi(-27)) * 2f64.powi(-1022)),
    );
    assert_eq!(
        one(&mut rig, "vfmul.d", RNE, above.0, above.1, 0),
        (min_normal_d, NX)
    );
    // Half precision: 1 + 2^-11 is a tie between 1 and 1 + 2^-10.
    let h = |x: u64| x as u16 as i16 as i64 as u64;
    assert_eq!(
        one(&mut rig, "vfadd.h", RNE, 0x3c00, 0x1000, 0),
        (h(0x3c00), NX)
    );
    assert_eq!(
        one(&mut rig, "vfadd.h", RUP, 0x3c00, 0x1000, 0),
        (h(0x3c01), NX)
    );
    assert_eq!(
        one(&mut rig, "vfadd.h", RMM, 0x3c00, 0x1000, 0),
        (h(0x3c01), NX)
    );
    assert_eq!(
        one(&mut rig, "vfmul.h", RNE, 0x7bff, 0x4000, 0),
        (h(0x7c00), OF | NX)
    );
    assert_eq!(one(&mut rig, "vfsqrt.h", RNE, 0x4400, 0, 0), (h(0x4000), 0));
    // Fused multiply-add rounds once: (1 + 2^-12)^2 - 1 = 2^-11 + 2^-24 exactly (a
    // separate multiply would round the square to 1 + 2^-11 first).
    let a = s(1.0 + 2f32.powi(-12));
    assert_eq!(
        one(&mut rig, "vfmsub.s", RNE, a, a, one_s),
        (s(2f32.powi(-11) + 2f32.powi(-24)), 0)
    );
    // Infinity times zero is invalid even with a quiet-NaN addend.
    assert_eq!(
        one(&mut rig, "vfmadd.s", RNE, s(f32::INFINITY), 0, CANONICAL_S),
        (CANONICAL_S, NV)
    );
    // The dynamic rounding mode (rm = 7) is frm.
    rig.hw.set_frm(RUP as u32).unwrap();
    assert_eq!(
        one(&mut rig, "vfdiv.s", DYN, s(-1.0), three_s, 0),
        (0xffff_ffff_beaa_aaaa, NX)
    );
    rig.hw.set_frm(RNE as u32).unwrap();
    assert_eq!(
        rig.hw.set_frm(5),
        Err(HwachaError::ReservedRoundingMode { rm: 5 })
    );
    // Reserved static rounding modes are illegal.
    let bits = i("vfadd.d").f(Vrm, 5).enc();
    assert_eq!(
        rig.hw.decode(bits).err(),
        Some(Illegal::ReservedRoundingMode { rm: 5 })
    );
}

#[test]
fn nan_min_max_sign_class_compare_and_conversion_rules() {
    let mut rig = rig();
    let snan_s = 0x7fa0_0001;
    let qnan_payload = 0x7fc1_2345;
    // Any NaN result is canonical, whatever the inputs' payloads.
    assert_eq!(
        one(&mut rig, "vfadd.s", RNE, qnan_payload, s(1.0), 0),
        (CANONICAL_S, 0)
    );
    assert_eq!(
        one(&mut rig, "vfadd.s", RNE, snan_s, s(1.0), 0),
        (CANONICAL_S, NV)
    );
    assert_eq!(
        one(&mut rig, "vfcvt.d.s", RNE, snan_s, 0, 0),
        (CANONICAL_D, NV)
    );
    assert_eq!(
        one(&mut rig, "vfcvt.d.s", RNE, qnan_payload, 0, 0),
        (CANONICAL_D, 0)
    );
    // fmin/fmax: the non-NaN operand, -0 below +0, NV only for signaling NaNs.
    let (pz, nz) = (s(0.0), s(-0.0));
    assert_eq!(one(&mut rig, "vfmin.s", RNE, pz, nz, 0), (nz, 0));
    assert_eq!(one(&mut rig, "vfmax.s", RNE, nz, pz, 0), (pz, 0));
    assert_eq!(
        one(&mut rig, "vfmin.s", RNE, qnan_payload, s(2.0), 0),
        (s(2.0), 0)
    );
    assert_eq!(
        one(&mut rig, "vfmax.s", RNE, s(2.0), snan_s, 0),
        (s(2.0), NV)
    );
    assert_eq!(
        one(&mut rig, "vfmax.s", RNE, qnan_payload, snan_s, 0),
        (CANONICAL_S, NV)
    );
    assert_eq!(
        one(&mut rig, "vfmin.d", RNE, d(-3.0), d(2.0), 0),
        (d(-3.0), 0)
    );
    // Sign injection is a bit operation: NaN payloads pass, results sign-extended.
    assert_eq!(
        one(&mut rig, "vfsgnjn.s", RNE, qnan_payload, pz, 0),
        (0xffff_ffff_ffc1_2345, 0)
    );
    assert_eq!(
        one(&mut rig, "vfsgnj.d", RNE, d(3.0), d(-1.0), 0),
        (d(-3.0), 0)
    );
    assert_eq!(
        one(&mut rig, "vfsgnjx.d", RNE, d(-3.0), d(-1.0), 0),
        (d(3.0), 0)
    );
    // fclass.
    for (x, bit) in [
        (0xff80_0000, 0),
        (s(-1.0), 1),
        (0x8000_0001, 2),
        (nz, 3),
        (pz, 4),
        (0x0000_0001, 5),
        (s(1.0), 6),
        (0x7f80_0000, 7),
        (snan_s, 8),
        (qnan_payload, 9),
    ] {
        assert_eq!(
            one(&mut rig, "vfclass.s", RNE, x, 0, 0),
            (1 << bit, 0),
            "{x:#x}"
        );
    }
    // Conversions to integers saturate; NaN gives the largest value.
    let sx = |x: i64| x as u64;
    for (name, x, want, flags) in [
        ("vfcvt.w.s", CANONICAL_S, sx(i32::MAX as i64), NV),
        ("vfcvt.w.s", 0xff80_0000, sx(i32::MIN as i64), NV),
        ("vfcvt.w.s", s(3e9), sx(i32::MAX as i64), NV),
        ("vfcvt.wu.s", s(-1.0), 0, NV),
        (
            "vfcvt.wu.s",
            s(3e9),
            3_000_000_000u32 as i32 as i64 as u64,
            0,
        ),
        ("vfcvt.wu.s", s(-0.25), 0, NX),
        ("vfcvt.lu.s", s(f32::INFINITY), u64::MAX, NV),
        ("vfcvt.l.s", s(-2.5), sx(-2), NX),
    ] {
        assert_eq!(
            one(&mut rig, name, RNE, x, 0, 0),
            (want, flags),
            "{name} {x:#x}"
        );
    }
    assert_eq!(one(&mut rig, "vfcvt.l.d", RMM, d(2.5), 0, 0), (3, NX));
    assert_eq!(one(&mut rig, "vfcvt.l.d", RDN, d(-2.5), 0, 0), (sx(-3), NX));
    assert_eq!(one(&mut rig, "vfcvt.w.d", RUP, d(2.1), 0, 0), (3, NX));
    assert_eq!(
        one(&mut rig, "vfcvt.h.w", RNE, sx(-2), 0, 0),
        (0xffff_ffff_ffff_c000, 0)
    );
    assert_eq!(
        one(&mut rig, "vfcvt.h.lu", RNE, u64::MAX, 0, 0),
        (0x7c00, OF | NX)
    );
    assert_eq!(
        one(&mut rig, "vfcvt.s.h", RNE, 0x3555, 0, 0),
        (s(0.333_251_95), 0)
    );
    assert_eq!(
        one(&mut rig, "vfcvt.h.s", RNE, s(1.0 / 3.0), 0, 0),
        (0x3555, NX)
    );
    assert_eq!(
        one(&mut rig, "vfcvt.h.d", RNE, d(1e-10), 0, 0),
        (0, UF | NX)
    );
}

#[test]
fn compares_write_predicates() {
    let mut rig = rig();
    let qnan = CANONICAL_D;
    let snan = 0x7ff4_0000_0000_0001;
    let a = [d(1.0), d(-0.0), qnan, d(2.0), snan, d(-1.0), d(3.0), d(0.5)];
    let b = [
        d(1.0),
        d(0.0),
        d(1.0),
        d(1.0),
        d(1.0),
        d(1.0),
        qnan,
        d(0.25),
    ];
    rig.load_vv(1, &a);
    rig.load_vv(2, &b);
    let cases: [(&str, [bool; 8], u8); 3] = [
        (
            "vcmpfeq.d",
            [true, true, false, false, false, false, false, false],
            NV,
        ),
        (
            "vcmpflt.d",
            [false, false, false, false, false, true, false, false],
            NV,
        ),
        (
            "vcmpfle.d",
            [true, true, false, false, false, true, false, false],
            NV,
        ),
    ];
    for (name, want, flags) in cases {
        let insn = i(name).f(Vs1, 1).f(Vs2, 1).f(Vprd, 2).f(Vrs1, 1).f(Vrs2, 2);
        rig.hw.take_fflags();
        rig.run(&[insn.enc(), stop()]).unwrap();
        assert_eq!(rig.vp(2, VLEN), want.to_vec(), "{name}");
        assert_eq!(rig.hw.take_fflags(), flags, "{name}");
    }
    // feq on quiet NaNs alone raises nothing.
    rig.load_vv(1, &[qnan; 8]);
    let insn = i("vcmpfeq.d")
        .f(Vs1, 1)
        .f(Vs2, 1)
        .f(Vprd, 2)
        .f(Vrs1, 1)
        .f(Vrs2, 2);
    rig.run(&[insn.enc(), stop()]).unwrap();
    assert_eq!(rig.hw.take_fflags(), 0);
}

#[test]
fn predication_scalar_forms_flag_accrual_and_precision() {
    let mut rig = Rig::new(HwachaParams::default());
    // vv0-3 64-bit, vv4-7 32-bit, vv8-9 16-bit.
    rig.setcfg(cfg(4, 2, 4, 2));
    rig.setvl(4);
    let x = [s(1.0), s(2.0), s(3.0), s(4.0)];
    rig.load_vp(1, &[true, false, true, false]);
    rig.load_vv(1, &[d(0.0); 4]);
    // Singles load into 32-bit registers with vlw; vfadd.s works there.
    rig.write_u64s(SCRATCH, &[]);
    for (k, v) in x.iter().enumerate() {
        rig.mem.write(DATA + 4 * k as u64, 4, *v);
    }
    rig.vmca(1, DATA);
    rig.vmcs(3, s(0.5));
    let code = [
        i("vlsegw").f(Vrd, 4).f(Vars1, 1).enc(),
        // vv5 = vv4 + vs3 under vp1; vv5 starts at 0.
        i("vfadd.s")
            .f(Vd, 1)
            .f(Vs1, 1)
            .f(Vrd, 5)
            .f(Vrs1, 4)
            .f(Vrs2, 3)
            .f(Vpred, 1)
            .enc(),
        // Scalar: vs4 = vs3 / vs0 (division by zero) and vs5 = vs3 * vs3.
        i("vfdiv.s").f(Vrd, 4).f(Vrs1, 3).f(Vrs2, 0).enc(),
        i("vfmul.s").f(Vrd, 5).f(Vrs1, 3).f(Vrs2, 3).enc(),
        stop(),
    ];
    rig.hw.take_fflags();
    rig.run(&code).unwrap();
    assert_eq!(rig.vv(5, 4), vec![s(1.5), 0, s(3.5), 0]);
    assert_eq!(rig.hw.state().vs(4), s(f32::INFINITY));
    assert_eq!(rig.hw.state().vs(5), s(0.25));
    // Flags accrue over the block (and until taken).
    assert_eq!(rig.hw.state().fflags, DZ);
    let inexact = i("vfdiv.s").f(Vrd, 6).f(Vrs1, 3).f(Vrs2, 7).enc();
    rig.vmcs(7, s(3.0));
    rig.run(&[inexact, stop()]).unwrap();
    assert_eq!(rig.hw.take_fflags(), DZ | NX);
    // A double operation on a 32-bit register, a single one on a 16-bit register.
    for (bits, reg, reg_bits, needed) in [
        (i("vfadd.d").f(Vd, 1).f(Vrd, 4).enc(), 4, 32, 64),
        (
            i("vfsqrt.s").f(Vd, 1).f(Vs1, 1).f(Vrd, 1).f(Vrs1, 8).enc(),
            8,
            16,
            32,
        ),
        (i("vfcvt.d.s").f(Vd, 1).f(Vrd, 5).enc(), 5, 32, 64),
    ] {
        assert_eq!(
            rig.hw.decode(bits).err(),
            Some(Illegal::Precision {
                reg,
                reg_bits,
                needed
            })
        );
    }
    // Half precision in a 16-bit register.
    assert_eq!(
        rig.hw.decode(i("vfadd.h").f(Vd, 1).f(Vrd, 9).enc()).err(),
        None
    );
    // A scalar floating-point instruction must not be predicated.
    assert_eq!(
        rig.hw
            .decode(i("vfadd.d").f(Vrd, 1).f(Vpred, 1).enc())
            .err(),
        Some(Illegal::PredicatedScalar {
            pred: 1,
            negate: false
        })
    );
}

#[test]
fn mixed_precision_widens_narrow_sources_and_rounds_once() {
    // Our reading of vf<op>.<D>.<S>: S sources (S-bit registers suffice), widened exactly,
    // one rounding in D, a D result. vv0-1 64-bit, vv2-3 32-bit, vv4-6 16-bit.
    let mut rig = Rig::new(HwachaParams::default());
    rig.setcfg(cfg(2, 1, 2, 3));
    rig.setvl(1);
    let halves = [0x3c01, 0x3c01, 0xbc00, 0x7bff];
    let singles = [0x3f80_0001, 0x7fa0_0001];
    for (k, h) in halves.iter().enumerate() {
        rig.mem.write(DATA + 2 * k as u64, 2, *h);
    }
    for (k, w) in singles.iter().enumerate() {
        rig.mem.write(DATA + 0x100 + 4 * k as u64, 4, *w);
    }
    rig.vmca(1, DATA);
    rig.vmca(2, DATA + 4);
    rig.vmca(3, DATA + 6);
    rig.vmca(4, DATA + 0x100);
    rig.vmca(5, DATA + 0x104);
    rig.vmcs(1, s(1.0));
    let vv = |name: &str, rd: u64, sources: &[u64]| {
        let mut insn = i(name).f(Vd, 1).f(Vrd, rd);
        for (k, &reg) in sources.iter().enumerate() {
            let (flag, field) = [(Vs1, Vrs1), (Vs2, Vrs2), (Vs3, Vrs3)][k];
            insn = insn.f(flag, 1).f(field, reg);
        }
        insn
    };
    let code = [
        // vv4 = vv5 = 1 + 2^-10, vv6 = -1 (halves); vv2 = 1 + 2^-23 (single).
        i("vlsegh").f(Vrd, 4).f(Vars1, 1).enc(),
        i("vlsegh").f(Vrd, 5).f(Vars1, 1).enc(),
        i("vlsegh").f(Vrd, 6).f(Vars1, 2).enc(),
        i("vlsegw").f(Vrd, 2).f(Vars1, 4).enc(),
        // (1 + 2^-10)^2 - 1 = 2^-9 + 2^-20 exactly in double (in half it would round).
        vv("vfmadd.d.h", 0, &[4, 5, 6]).enc(),
        // (1 + 2^-23)^2 = 1 + 2^-22 + 2^-46 exactly in double.
        vv("vfmul.d.s", 1, &[2, 2]).enc(),
        stop(),
    ];
    rig.hw.take_fflags();
    rig.run(&code).unwrap();
    assert_eq!(rig.vv(0, 1), [0x3f60_0200_0000_0000]);
    assert_eq!(rig.vv(1, 1), [0x3ff0_0000_4000_0040]);
    assert_eq!(rig.hw.take_fflags(), 0);
    // 65504 + 65504 overflows half precision but is exact in single.
    let code = [
        i("vlsegh").f(Vrd, 4).f(Vars1, 3).enc(),
        vv("vfadd.s.h", 3, &[4, 4]).enc(),
        stop(),
    ];
    rig.run(&code).unwrap();
    assert_eq!(rig.vv(3, 1), [s(131_008.0)]);
    assert_eq!(rig.hw.take_fflags(), 0);
    // A signaling-NaN source (here vv2, a single) raises NV as its widening does; the
    // shared source is the low half of vs1.
    let code = [
        i("vlsegw").f(Vrd, 2).f(Vars1, 5).enc(),
        i("vfsub.d.s")
            .f(Vd, 1)
            .f(Vrd, 0)
            .f(Vs1, 1)
            .f(Vrs1, 2)
            .f(Vrs2, 1)
            .enc(),
        stop(),
    ];
    rig.run(&code).unwrap();
    assert_eq!(rig.vv(0, 1), [CANONICAL_D]);
    assert_eq!(rig.hw.take_fflags(), NV);
    // Sources need S-bit registers, the destination a D-bit one (thesis 7.2).
    for (insn, reg, reg_bits, needed) in [
        (vv("vfadd.d.s", 0, &[4, 2]), 4, 16, 32),
        (vv("vfadd.d.h", 2, &[4, 5]), 2, 32, 64),
        (vv("vfmadd.d.h", 3, &[4, 5, 6]), 3, 32, 64),
    ] {
        assert_eq!(
            rig.hw.decode(insn.enc()).err(),
            Some(Illegal::Precision {
                reg,
                reg_bits,
                needed
            })
        );
    }
    assert_eq!(rig.hw.decode(vv("vfmul.s.h", 3, &[4, 5]).enc()).err(), None);
}

/// Half-precision bits as f64 (exact).
fn from_half(h: u16) -> f64 {
    let sign = if h & 0x8000 != 0 { -1.0 } else { 1.0 };
    let e = (h >> 10 & 31) as i32;
    let m = (h & 0x3ff) as f64;
    sign * match e {
        0 => m * 2f64.powi(-24),
        31 if m == 0.0 => f64::INFINITY,
        31 => f64::NAN,
        _ => (1024.0 + m) * 2f64.powi(e - 25),
    }
}

/// f64 to half precision, rounding to nearest even (NaN as the canonical NaN).
fn to_half(x: f64) -> u16 {
    if x.is_nan() {
        return 0x7e00;
    }
    let sign = if x.is_sign_negative() { 0x8000 } else { 0 };
    let a = x.abs();
    if a < 2f64.powi(-14) {
        // Subnormal (or the smallest normal after rounding): units of 2^-24.
        return sign | (a * 2f64.powi(24)).round_ties_even() as u16;
    }
    if a.is_infinite() {
        return sign | 0x7c00;
    }
    let e = ((a.to_bits() >> 52) as i32) - 1023;
    let m = (a * 2f64.powi(10 - e)).round_ties_even();
    let (m, e) = if m == 2048.0 { (1024.0, e + 1) } else { (m, e) };
    if e > 15 {
        return sign | 0x7c00;
    }
    sign | ((e + 15) as u16) << 10 | (m as u16 - 1024)
}

#[test]
fn half_precision_matches_double_arithmetic_rounded_once() {
    // For 11-bit operands, add/sub/mul/div/sqrt computed in double (53 >= 2 * 11 + 2
    // bits) and then rounded to half are correctly rounded: an independent reference.
    let mut rig = rig();
    let mut rng = Rng::new(31);
    let h = |x: u16| x as i16 as i64 as u64;
    type Op = fn(f64, f64) -> f64;
    let ops: [(&str, Op); 5] = [
        ("vfadd.h", |a, b| a + b),
        ("vfsub.h", |a, b| a - b),
        ("vfmul.h", |a, b| a * b),
        ("vfdiv.h", |a, b| a / b),
        ("vfsqrt.h", |a, _| a.sqrt()),
    ];
    for _ in 0..100 {
        let x: Vec<u16> = (0..VLEN).map(|_| rng.next_u64() as u16).collect();
        let y: Vec<u16> = (0..VLEN).map(|_| rng.next_u64() as u16).collect();
        let xs: Vec<u64> = x.iter().map(|&v| h(v)).collect();
        let ys: Vec<u64> = y.iter().map(|&v| h(v)).collect();
        for (name, f) in ops {
            let (got, _) = run(&mut rig, name, RNE, &xs, &ys, &[]);
            for e in 0..VLEN as usize {
                let want = to_half(f(from_half(x[e]), from_half(y[e])));
                assert_eq!(got[e], h(want), "{name} {:#06x} {:#06x}", x[e], y[e]);
            }
        }
        let (got, _) = run(&mut rig, "vfcvt.d.h", RNE, &xs, &[], &[]);
        for e in 0..VLEN as usize {
            assert_eq!(got[e], host_d(from_half(x[e])), "vfcvt.d.h {:#06x}", x[e]);
        }
        // Exponents from 2^-30 to 2^19: subnormal, normal and overflowing halves.
        let wide: Vec<f64> = (0..VLEN)
            .map(|_| {
                let exp = 1023 - 30 + rng.below(50);
                f64::from_bits(rng.next_u64() & 0x800f_ffff_ffff_ffff | exp << 52)
            })
            .collect();
        let ws: Vec<u64> = wide.iter().map(|&v| d(v)).collect();
        let (got, _) = run(&mut rig, "vfcvt.h.d", RNE, &ws, &[], &[]);
        for e in 0..VLEN as usize {
            assert_eq!(got[e], h(to_half(wide[e])), "vfcvt.h.d {:e}", wide[e]);
        }
    }
}
