//! The affine vector cache's blocks (`generators::fgsimt::avc`, seed 002) against the
//! golden model (`verification::fgsimt::avc`):
//! - the encode and decode units at 32 threads under Verilator, bit-exact with the
//!   golden encoder and decoder on spec 002's directed vectors (zero, uniform float
//!   bits, every stride code and the first one out of range, odd multiples of the
//!   stride, stride 3, a single thread, an inactive thread 0, wraparound, generic words
//!   in inactive threads, one mismatching thread, non-dense masks, masks without an
//!   aligned pair) and on random ones (affine of every exponent 0-8, aligned and not,
//!   uniform, perturbed, generic; full, dense, sparse, single-thread and empty masks),
//!   the decoder's vector equal to the input on every active thread where affine;
//! - at 1, 2, 4 and 8 threads on the IR simulator, 8 with every mask;
//! - every shape lint clean.

use generators::fgsimt::avc::decode::decoder;
use generators::fgsimt::avc::encode::encoder;
use hdl::sim::Sim;
use hdl::{Bits, Design, ModuleBuilder};
use verification::fgsimt::avc::codec::{encode, Encoded, SIGMA_MAX};
use verification::rng::Rng;
use verification::verilator::{Model, Options};

mod avc_rig;
mod lint_rig;

use avc_rig::{all, pack, unpack};

/// Poking and peeking ports of the IR simulator or a Verilator model.
trait Ports {
    fn set(&mut self, port: &str, value: &Bits);
    fn get(&mut self, port: &str) -> Bits;
}

impl Ports for Sim {
    fn set(&mut self, port: &str, value: &Bits) {
        self.poke(port, value).unwrap()
    }
    fn get(&mut self, port: &str) -> Bits {
        self.peek(port).unwrap()
    }
}

impl Ports for Model {
    fn set(&mut self, port: &str, value: &Bits) {
        self.poke(port, value).unwrap()
    }
    fn get(&mut self, port: &str) -> Bits {
        self.peek(port).unwrap()
    }
}

/// What the random and directed cases reached.
#[derive(Default)]
struct Coverage {
    codes: [u32; 8],
    generic: u32,
}

/// One vector through encoder `e` (ports `<e>data`, `<e>mask`, ...) and, with its
/// candidate, decoder `d`: both bit-exact with the golden model.
fn check(dut: &mut impl Ports, (e, d): (&str, &str), data: &[u32], mask: u32, cov: &mut Coverage) {
    let n = data.len() as u32;
    dut.set(&format!("{e}data"), &pack(data));
    dut.set(
        &format!("{e}mask"),
        &Bits::from_u64(n, (mask & all(n)) as u64),
    );
    let what = format!("{n} threads, mask {mask:#x}, data {data:x?}");
    let golden = encode(data, mask);
    let affine = dut.get(&format!("{e}affine")).to_u64() == 1;
    let base = dut.get(&format!("{e}base")).to_u64() as u32;
    let code = dut.get(&format!("{e}code")).to_u64() as u8;
    match golden {
        Some(g) => {
            assert!(affine, "{what}: the RTL says generic, the model {g:?}");
            assert_eq!(Encoded { base, code }, g, "{what}");
            cov.codes[code as usize] += 1;
        }
        None => {
            assert!(
                !affine,
                "{what}: the RTL says affine ({base:#x}, {code}), the model generic"
            );
            cov.generic += 1;
        }
    }
    // The decoder on the encoder's candidate (whatever it is).
    dut.set(&format!("{d}base"), &Bits::from_u64(32, base as u64));
    dut.set(&format!("{d}code"), &Bits::from_u64(3, code as u64));
    let decoded = unpack(&dut.get(&format!("{d}data")), n);
    assert_eq!(
        decoded,
        Encoded { base, code }.decode(n),
        "{what}: decoding ({base:#x}, {code})"
    );
    if affine {
        for i in (0..n).filter(|i| mask >> i & 1 == 1) {
            assert_eq!(decoded[i as usize], data[i as usize], "{what}: thread {i}");
        }
    }
}

/// Spec 002 section 9.1's directed vectors for `n` threads (at least 8).
fn directed(n: u32) -> Vec<(Vec<u32>, u32)> {
    let affine = |base: u32, sigma: u32| -> Vec<u32> {
        (0..n).map(|i| base.wrapping_add(i << sigma)).collect()
    };
    let full = all(n);
    let mut v = vec![
        (vec![0; n as usize], full),
        (vec![0x3f80_0000; n as usize], full),
        (vec![0xbf80_0000; n as usize], 0b1010),
        ((0..n).map(|i| 4 + 4 * i).collect(), full),
        ((0..n).map(|i| 3 * i).collect(), full),
        ((0..n).map(|i| 1 + 2 * i).collect(), full),
        ((0..n).map(|i| 100u32.wrapping_sub(i)).collect(), full),
        (affine(0xffff_fff0, 4), full),
        (affine(0xffff_ffc0, 6), full),
    ];
    for sigma in 0..=SIGMA_MAX + 2 {
        v.push((affine(0x1000, sigma), full));
    }
    let mut garbage = affine(0x40, 2);
    garbage[0] = 0xdead_beef;
    garbage[5] = 0x1234_5678;
    v.extend([
        (garbage.clone(), full & !0b10_0001),
        (garbage.clone(), full),
        (garbage.clone(), 0b1000_0000),
        (garbage.clone(), 0b0000_0110),
        (garbage.clone(), 0b1100_0010),
        (affine(0x40, 2), 0b1000_0011),
        (affine(0x40, 2), 0b0100_1001),
        (affine(0x40, 2), 0),
    ]);
    let mut one_off = affine(0x2000, 3);
    one_off[n as usize - 1] ^= 1 << 9;
    v.push((one_off, full));
    v
}

/// A random vector and mask for `n` threads.
fn random(rng: &mut Rng, n: u32) -> (Vec<u32>, u32) {
    let sigma = rng.below(SIGMA_MAX as u64 + 3) as u32;
    let beta = rng.next_u64() as u32;
    let base = if rng.chance(80) {
        beta.wrapping_shl(sigma)
    } else {
        beta
    };
    let mut data: Vec<u32> = match rng.below(10) {
        0..=5 => (0..n).map(|i| base.wrapping_add(i << sigma)).collect(),
        6 => vec![0; n as usize],
        7 => vec![base; n as usize],
        _ => (0..n).map(|_| rng.next_u64() as u32).collect(),
    };
    if rng.chance(15) {
        let i = rng.below(n as u64) as usize;
        data[i] ^= 1 << rng.below(32);
    }
    let full = all(n);
    let mask = match rng.below(8) {
        0..=2 => full,
        3 => {
            let lo = rng.below(n as u64) as u32;
            let len = 1 + rng.below((n - lo) as u64) as u32;
            all(len) << lo
        }
        4 => 1 << rng.below(n as u64),
        5 => 0,
        _ => rng.next_u64() as u32 & full,
    };
    (data, mask)
}

fn run(dut: &mut impl Ports, ports: (&str, &str), n: u32, cases: u32, seed: u64) -> Coverage {
    let mut cov = Coverage::default();
    for (data, mask) in directed(n.max(8)).into_iter().filter(|_| n >= 8) {
        check(dut, ports, &data, mask, &mut cov);
    }
    let mut rng = Rng::new(seed);
    for _ in 0..cases {
        let (data, mask) = random(&mut rng, n);
        check(dut, ports, &data, mask, &mut cov);
    }
    cov
}

#[test]
fn the_codec_matches_the_model_under_verilator() {
    let mut m = ModuleBuilder::new("AvcCodec");
    for (name, block) in [("e_", encoder(32).unwrap()), ("d_", decoder(32).unwrap())] {
        let inst = m.instance(name.trim_end_matches('_'), &block);
        hdl::helpers::expose(&mut m, &inst, |p| Some(format!("{name}{p}")));
    }
    let top = m.finish().unwrap();
    let mut dut = Model::of_design(&Design::new(&top), &Options::quick_build()).unwrap();
    let cov = run(&mut dut, ("e_", "d_"), 32, 100_000, 1);
    // Every stride code, and generic vectors, were seen.
    assert!(cov.codes.iter().all(|&c| c > 100), "codes {:?}", cov.codes);
    assert!(cov.generic > 10_000, "{} generic", cov.generic);
}

#[test]
fn small_warps_match_the_model_on_the_ir_simulator() {
    for n in [1, 2, 4, 8] {
        let mut m = ModuleBuilder::new("AvcCodec");
        for (name, block) in [("e_", encoder(n).unwrap()), ("d_", decoder(n).unwrap())] {
            let inst = m.instance(name.trim_end_matches('_'), &block);
            hdl::helpers::expose(&mut m, &inst, |p| Some(format!("{name}{p}")));
        }
        let mut sim = Sim::new(&Design::new(&m.finish().unwrap()));
        let cov = run(&mut sim, ("e_", "d_"), n, 5_000, n as u64);
        assert!(cov.generic > 0 && cov.codes[0] > 0, "{n}: {:?}", cov.codes);
        if n == 8 {
            // Every mask of an affine vector of each exponent, and with one thread off.
            let mut cov = Coverage::default();
            for sigma in 0..=SIGMA_MAX + 1 {
                let data: Vec<u32> = (0..8).map(|i| (0x100u32 << sigma) + (i << sigma)).collect();
                let mut bad = data.clone();
                bad[3] ^= 0x8000;
                for mask in 0..256 {
                    check(&mut sim, ("e_", "d_"), &data, mask, &mut cov);
                    check(&mut sim, ("e_", "d_"), &bad, mask, &mut cov);
                }
            }
            assert!(cov.codes.iter().all(|&c| c > 0), "codes {:?}", cov.codes);
        }
    }
}

#[test]
fn every_shape_is_lint_clean() {
    let mut blocks: Vec<_> = [1, 2, 8, 32].iter().map(|&n| encoder(n).unwrap()).collect();
    blocks.extend([1, 8].iter().map(|&n| decoder(n).unwrap()));
    lint_rig::lint_blocks("fgsimt avc", &blocks);
}
