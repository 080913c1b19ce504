//! The estimate wrapper: a top around a design whose ports are not bound to pins (no
//! constraints file), so that a core with hundreds of I/O bits fits any package and none
//! of its logic is optimized away. Every input bit (but the clock) is a stage of one
//! shift register fed from pin `din`; every output bit is registered, as the memory or bus
//! a real SoC puts behind a port registers what it receives (a block RAM its address and
//! data), and the registered outputs go into one XOR, registered into pin `dout`; the
//! clock comes from pin `clk`. So a path out of the design ends at a flip-flop, not in the
//! XOR tree. Its cost is known: one flip-flop per input and per output bit plus one, and
//! the XOR tree (about one LUT4 per three output bits).

use std::fmt::Write;

/// The wrapper's module name (also the file name, with `.v`).
pub const TOP: &str = "accelgen_fpga_top";

/// A port of the wrapped design's top module.
#[derive(Clone, Debug, serde::Deserialize)]
pub struct Port {
    pub name: String,
    pub direction: String,
    pub width: u32,
}

/// The design's I/O bits (the clock included), as a package would have to carry them.
pub fn io_bits(ports: &[Port]) -> u64 {
    ports.iter().map(|p| u64::from(p.width)).sum()
}

/// The wrapper's Verilog around module `top` with `ports`.
pub fn verilog(top: &str, ports: &[Port]) -> String {
    let is_clock = |p: &Port| p.name == "clock" && p.direction == "input" && p.width == 1;
    let inputs: Vec<&Port> = ports
        .iter()
        .filter(|p| p.direction == "input" && !is_clock(p))
        .collect();
    let outputs: Vec<&Port> = ports.iter().filter(|p| p.direction == "output").collect();
    let in_bits: u32 = inputs.iter().map(|p| p.width).sum::<u32>().max(1);
    let out_bits: u32 = outputs.iter().map(|p| p.width).sum();
    let mut v = String::new();
    let _ = writeln!(
        v,
        "// accelgen FPGA estimate wrapper around {top}: inputs from a shift register on\n\
         // din, outputs registered and XOR-folded into dout.\n\
         module {TOP} (\n  input clk,\n  input din,\n  output reg dout\n);\n  \
         reg [{}:0] sr;\n  always @(posedge clk) sr <= {{sr[{}:0], din}};",
        in_bits - 1,
        in_bits.saturating_sub(2)
    );
    if in_bits == 1 {
        // A one-bit register: the shift is the load itself.
        v = v.replace("{sr[0:0], din}", "din");
    }
    if out_bits > 0 {
        let _ = writeln!(
            v,
            "  wire [{0}:0] outs;\n  reg [{0}:0] outs_q;\n  always @(posedge clk) outs_q <= outs;",
            out_bits - 1
        );
    }
    let mut conns = Vec::new();
    let (mut i, mut o) = (0, 0);
    for p in ports {
        let slice = |base: u32| format!("[{}:{}]", base + p.width - 1, base);
        let expr = if is_clock(p) {
            "clk".to_string()
        } else if p.direction == "input" {
            i += p.width;
            format!("sr{}", slice(i - p.width))
        } else {
            o += p.width;
            format!("outs{}", slice(o - p.width))
        };
        conns.push(format!("    .{}({expr})", p.name));
    }
    let _ = writeln!(v, "  {top} core (\n{}\n  );", conns.join(",\n"));
    let folded = if out_bits > 0 { "^outs_q" } else { "^sr" };
    let _ = writeln!(v, "  always @(posedge clk) dout <= {folded};\nendmodule");
    v
}

#[cfg(test)]
mod tests {
    use super::*;

    fn port(name: &str, direction: &str, width: u32) -> Port {
        Port {
            name: name.into(),
            direction: direction.into(),
            width,
        }
    }

    #[test]
    fn inputs_slice_the_shift_register_and_outputs_the_fold() {
        let ports = [
            port("clock", "input", 1),
            port("reset", "input", 1),
            port("a", "input", 8),
            port("y", "output", 4),
            port("z", "output", 1),
        ];
        let v = verilog("Dut", &ports);
        for line in [
            "reg [8:0] sr;",
            "sr <= {sr[7:0], din};",
            "wire [4:0] outs;",
            "reg [4:0] outs_q;",
            "outs_q <= outs;",
            ".clock(clk),",
            ".reset(sr[0:0]),",
            ".a(sr[8:1]),",
            ".y(outs[3:0]),",
            ".z(outs[4:4])",
            "dout <= ^outs_q;",
        ] {
            assert!(v.contains(line), "{line} not in\n{v}");
        }
        assert_eq!(io_bits(&ports), 15);
        let one = verilog("Dut", &[port("a", "input", 1)]);
        assert!(
            one.contains("sr <= din;") && one.contains("dout <= ^sr;"),
            "{one}"
        );
    }
}
