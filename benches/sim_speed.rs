//! IR simulator speed vs. Verilator on the same design: cycles/s of each and their ratio.
//! Both run the same pseudo-random stimulus; their output checksums must agree.

use askama::Template;
use hdl::{Design, MemStyle, ModuleBuilder};
use std::process::Command;
use std::rc::Rc;
use std::time::Instant;

/// A lane: a 4-stage pipeline of multiply-add, 128-bit mixing and a register-file read.
fn lane() -> Rc<hdl::Module> {
    let mut m = ModuleBuilder::new("Lane");
    let a = m.input("a", 64);
    let b = m.input("b", 64);
    let addr = m.input("addr", 6);
    let we = m.input("we", 1);
    let y = m.output("y", 64);
    let s1 = m.reg("s1", 128, 0u64);
    m.connect(&s1, &a.mul(&b));
    let s2 = m.reg("s2", 64, 0u64);
    let mixed = &s1.slice(127, 64) ^ &s1.slice(63, 0);
    m.connect(&s2, &(&mixed + &a.dshr(&addr.zext(64))));
    let rf = m.mem("rf", 64, 64, MemStyle::Inferred);
    m.when(&we, |m| m.write(&rf, &addr, &s2));
    let one = m.lit(1, 1);
    let rd = m.read_sync(&rf, &addr, &one);
    let s3 = m.reg("s3", 64, 0u64);
    m.connect(&s3, &(&rd.as_signed().shr(3).as_unsigned() ^ &s2));
    m.connect(&y, &s3);
    m.finish().expect("lane elaborates")
}

fn top(lanes: u32) -> Design {
    let lane = lane();
    let mut m = ModuleBuilder::new("BenchTop");
    let a = m.input("a", 64);
    let b = m.input("b", 64);
    let addr = m.input("addr", 6);
    let we = m.input("we", 1);
    let y = m.output("y", 64);
    let mut acc = m.lit(0, 64);
    for i in 0..lanes {
        let u = m.instance(&format!("lane{i}"), &lane);
        let offset = m.lit(i as u64, 64);
        m.connect(&u.port("a"), &(&a + &offset));
        m.connect(&u.port("b"), &b);
        m.connect(&u.port("addr"), &addr);
        m.connect(&u.port("we"), &we);
        acc = &acc ^ &u.port("y");
    }
    m.connect(&y, &acc);
    Design::new(&m.finish().expect("top elaborates"))
}

#[derive(Template)]
#[template(path = "verilator_bench_main.cpp", escape = "none")]
struct BenchMain {
    top: String,
    inputs: Vec<(String, String)>,
    output: String,
}

const INPUTS: [(&str, u64); 4] = [("a", u64::MAX), ("b", u64::MAX), ("addr", 63), ("we", 1)];

fn ir_sim(design: &Design, cycles: u64) -> (f64, u64) {
    let mut s = hdl::sim::Sim::new(design);
    s.poke_u64("reset", 1).unwrap();
    s.step();
    s.poke_u64("reset", 0).unwrap();
    let (mut x, mut sum) = (1u64, 0u64);
    let t0 = Instant::now();
    for _ in 0..cycles {
        x = x
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        for (i, (name, mask)) in INPUTS.iter().enumerate() {
            s.poke_u64(name, (x >> i) & mask).unwrap();
        }
        sum = sum.wrapping_add(s.peek_u64("y").unwrap());
        s.step();
    }
    (cycles as f64 / t0.elapsed().as_secs_f64(), sum)
}

fn verilator(design: &Design, cycles: u64) -> Option<(f64, u64)> {
    let dir = tempfile::tempdir().ok()?;
    let emitted = hdl::emit::emit(design, &Default::default());
    let vpath = dir.path().join("design.v");
    std::fs::write(&vpath, emitted.single_file()).ok()?;
    let main = BenchMain {
        top: emitted.top.clone(),
        inputs: INPUTS
            .iter()
            .map(|(n, m)| (n.to_string(), m.to_string()))
            .collect(),
        output: "y".into(),
    };
    std::fs::write(dir.path().join("main.cpp"), main.render().ok()?).ok()?;
    let status = Command::new("verilator")
        .current_dir(dir.path())
        .args([
            "--cc",
            "--exe",
            "--build",
            "-O3",
            "-j",
            "2",
            "-Wno-fatal",
            "--top-module",
            &emitted.top,
        ])
        .args(["-CFLAGS", "-O2", "design.v", "main.cpp", "-o", "bench"])
        .output()
        .ok()?;
    if !status.status.success() {
        eprintln!(
            "verilator failed:\n{}",
            String::from_utf8_lossy(&status.stderr)
        );
        return None;
    }
    let out = Command::new(dir.path().join("obj_dir/bench"))
        .arg(cycles.to_string())
        .output()
        .ok()?;
    let text = String::from_utf8_lossy(&out.stdout);
    let mut it = text.split_whitespace();
    Some((it.next()?.parse().ok()?, it.next()?.parse().ok()?))
}

fn main() {
    println!("IR simulator vs. Verilator (-O3), same design and stimulus");
    println!(
        "{:>6} {:>14} {:>14} {:>10}",
        "lanes", "IR cycles/s", "Vltr cycles/s", "Vltr/IR"
    );
    for lanes in [1u32, 4, 16] {
        let design = top(lanes);
        let cycles = 200_000 / lanes as u64;
        let (ir, ir_sum) = ir_sim(&design, cycles);
        match verilator(&design, cycles) {
            Some((v, v_sum)) => {
                assert_eq!(
                    ir_sum, v_sum,
                    "IR simulator and Verilator disagree on the output checksum"
                );
                println!("{lanes:>6} {ir:>14.0} {v:>14.0} {:>10.1}", v / ir);
            }
            None => println!("{lanes:>6} {ir:>14.0} {:>14} {:>10}", "n/a", "n/a"),
        }
    }
}
