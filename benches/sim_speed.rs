//! IR simulator speed vs. Verilator on the same design: cycles/s of each and their ratio.
//! Both run the same pseudo-random stimulus; their output checksums must agree.

mod common;

use common::{top, ByName};
use hdl::Design;

fn ir_sim(design: &Design, cycles: u64) -> (f64, u64) {
    common::run(&mut ByName(hdl::sim::Sim::new(design)), cycles)
}

/// Verilator at -O3 with the C++ at -O2, as a plain generated main.
fn verilator(design: &Design, cycles: u64) -> Option<(f64, u64)> {
    common::plain_main(
        design,
        cycles,
        &["-O3", "-j", "2", "-Wno-fatal", "-CFLAGS", "-O2"],
        1,
    )
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
