//! SRAM macros: memories emitted as instances of a macro whose name encodes its shape,
//! with a behavioural model and a machine-readable description for a memory compiler.

use crate::ir::{addr_width, Memory};
use serde::Serialize;
use std::fmt::Write;

#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct SramPort {
    /// `read` (synchronous, one cycle) or `write`.
    pub kind: &'static str,
    /// Write ports: data bits per mask bit (the word width when unmasked).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub mask_gran: Option<u32>,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct SramMacro {
    pub name: String,
    pub depth: u64,
    pub width: u32,
    pub ports: Vec<SramPort>,
}

impl SramMacro {
    pub fn for_memory(mem: &Memory) -> SramMacro {
        let mut ports: Vec<SramPort> = mem
            .reads
            .iter()
            .map(|_| SramPort {
                kind: "read",
                mask_gran: None,
            })
            .collect();
        let mut name = format!(
            "sram_{}x{}_{}r{}w",
            mem.depth,
            mem.width,
            mem.reads.len(),
            mem.writes.len()
        );
        for w in &mem.writes {
            let gran = if w.mask.is_some() {
                w.mask_gran
            } else {
                mem.width
            };
            ports.push(SramPort {
                kind: "write",
                mask_gran: Some(gran),
            });
            if gran != mem.width {
                let _ = write!(name, "_m{gran}");
            }
        }
        SramMacro {
            name,
            depth: mem.depth,
            width: mem.width,
            ports,
        }
    }

    /// A behavioural Verilog model: registered read data (undefined until the first
    /// read, like a real macro), writes in port order.
    pub fn model(&self) -> String {
        let aw = addr_width(self.depth);
        let r = |w: u32| {
            if w == 1 {
                String::new()
            } else {
                format!("[{}:0] ", w - 1)
            }
        };
        let mut ports = vec!["input clock".to_string()];
        let (mut ri, mut wi) = (0, 0);
        let mut body = String::new();
        for p in &self.ports {
            if p.kind == "read" {
                ports.push(format!("input R{ri}_en"));
                ports.push(format!("input {}R{ri}_addr", r(aw)));
                ports.push(format!("output reg {}R{ri}_data", r(self.width)));
                let _ = writeln!(
                    body,
                    "  always @(posedge clock) if (R{ri}_en) R{ri}_data <= _ram[R{ri}_addr];"
                );
                ri += 1;
            }
        }
        let _ = writeln!(body, "  always @(posedge clock) begin");
        for p in &self.ports {
            if p.kind != "write" {
                continue;
            }
            let gran = p.mask_gran.unwrap_or(self.width);
            ports.push(format!("input W{wi}_en"));
            ports.push(format!("input {}W{wi}_addr", r(aw)));
            ports.push(format!("input {}W{wi}_data", r(self.width)));
            if gran == self.width {
                let _ = writeln!(body, "    if (W{wi}_en) _ram[W{wi}_addr] <= W{wi}_data;");
            } else {
                let groups = self.width / gran;
                ports.push(format!("input {}W{wi}_mask", r(groups)));
                for g in 0..groups {
                    let (hi, lo) = ((g + 1) * gran - 1, g * gran);
                    let sel = if groups == 1 {
                        format!("W{wi}_mask")
                    } else {
                        format!("W{wi}_mask[{g}]")
                    };
                    let _ = writeln!(body, "    if (W{wi}_en & {sel}) _ram[W{wi}_addr][{hi}:{lo}] <= W{wi}_data[{hi}:{lo}];");
                }
            }
            wi += 1;
        }
        let _ = writeln!(body, "  end");
        let mut out = format!("module {}(\n  {}\n);\n", self.name, ports.join(",\n  "));
        let _ = writeln!(out, "  reg {}_ram [0:{}];", r(self.width), self.depth - 1);
        out.push_str(&body);
        out.push_str("endmodule\n");
        out
    }
}
