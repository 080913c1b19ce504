//! Driving a fixed-latency floating-point unit (the ports of `generators::fpu`'s
//! conventions: `in_valid`, `rm`, `op`, operands; `out_valid`, `result`, `flags`) with
//! one operation a cycle, through the IR simulator or a Verilator model alike.

use verification::simulator::Simulator;

/// One operation: the `op` select, the rounding mode and the operands.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Vector {
    pub op: u64,
    pub rm: u64,
    pub operands: [u64; 3],
}

/// Runs `vectors` back to back on the unit whose ports are `prefix` + the conventional
/// names, operands on `operand_ports`, and returns each result and flags, read exactly
/// `latency` cycles after the operation went in (asserting `out_valid` then, and clear
/// once the unit has drained).
pub fn run<S: Simulator>(
    sim: &mut S,
    prefix: &str,
    operand_ports: &[&str],
    latency: u32,
    vectors: &[Vector],
) -> Vec<(u64, u8)> {
    let port = |name: &str| format!("{prefix}{name}");
    // Units without registers have no reset port.
    let _ = sim.poke_u64(&port("reset"), 0);
    let lat = latency as usize;
    let mut out = Vec::with_capacity(vectors.len());
    for t in 0..vectors.len() + lat + 1 {
        let v = vectors.get(t);
        sim.poke_u64(&port("in_valid"), v.is_some() as u64).unwrap();
        if let Some(v) = v {
            sim.poke_u64(&port("op"), v.op).unwrap();
            sim.poke_u64(&port("rm"), v.rm).unwrap();
            for (name, x) in operand_ports.iter().zip(v.operands) {
                sim.poke_u64(&port(name), x).unwrap();
            }
        }
        if t >= lat {
            let valid = sim.peek_u64(&port("out_valid")).unwrap();
            if t - lat < vectors.len() {
                assert_eq!(valid, 1, "out_valid of operation {}", t - lat);
                let result = sim.peek_u64(&port("result")).unwrap();
                let flags = sim.peek_u64(&port("flags")).unwrap() as u8;
                out.push((result, flags));
            } else {
                assert_eq!(valid, 0, "out_valid after the last operation");
            }
        }
        sim.step();
    }
    out
}

/// Whether the long runs (`ACCELGEN_LONG=1`) are on.
pub fn long() -> bool {
    std::env::var_os("ACCELGEN_LONG").is_some()
}
