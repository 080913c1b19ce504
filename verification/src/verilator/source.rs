//! The sources of a model: the designs' Verilog under a generated top module, and the C++
//! shim that exposes the model through a C ABI.

use super::{Error, Part, PortSpec, TraceFormat};
use askama::Template;
use hdl::Dir;
use std::collections::BTreeSet;

/// The generated top module; its C++ class is `V` followed by this.
pub const TOP: &str = "accelgen_model";
/// Verilator's prefix of the generated C++ and makefile (its default, `V` and the top).
pub const PREFIX: &str = "Vaccelgen_model";

/// Bumped whenever the shim's exported functions change, so that a stale library from
/// the cache is never called with the wrong signatures.
pub const ABI_VERSION: u32 = 3;

pub struct Source {
    pub verilog: String,
    pub shim: String,
    /// The model's ports: every part's, prefixed, in order; port `i` is `p{i}` in C++.
    pub ports: Vec<PortSpec>,
}

#[derive(Template)]
#[template(path = "verilator_model.v", escape = "none")]
struct TopModule<'a> {
    module: &'a str,
    ports: Vec<String>,
    parts: Vec<Instance>,
}

struct Instance {
    module: String,
    pins: Vec<String>,
}

#[derive(Template)]
#[template(path = "verilator_shim.cpp", escape = "none")]
struct Shim<'a> {
    module: &'a str,
    ports: Vec<ShimPort>,
    clocked: bool,
    trace: Option<TraceFormat>,
    /// The model's `--threads`: its context gets exactly as many.
    threads: u32,
    abi_version: u32,
}

struct ShimPort {
    width: u32,
    /// Verilator's C++ type for a port of this width.
    ctype: String,
}

fn ctype(width: u32) -> String {
    match width {
        0..=8 => "CData".into(),
        9..=16 => "SData".into(),
        17..=32 => "IData".into(),
        33..=64 => "QData".into(),
        _ => format!("VlWide<{}>", width.div_ceil(32)),
    }
}

fn range(width: u32) -> String {
    if width == 1 {
        String::new()
    } else {
        format!("[{}:0] ", width - 1)
    }
}

pub fn generate(parts: &[Part], trace: Option<TraceFormat>, threads: u32) -> Result<Source, Error> {
    let clocked = parts.iter().any(|p| p.interface.clock.is_some());
    let mut ports: Vec<PortSpec> = Vec::new();
    let mut names = BTreeSet::new();
    let mut top_ports = Vec::new();
    if clocked {
        top_ports.push("input clk".to_string());
    }
    let mut instances = Vec::new();
    let mut texts: Vec<&str> = Vec::new();
    for part in parts {
        let iface = &part.interface;
        if iface.module == TOP {
            return Err(Error::ReservedModule(TOP.into()));
        }
        let mut pins = Vec::new();
        if let Some(clock) = &iface.clock {
            pins.push(format!(".{clock}(clk)"));
        }
        for p in &iface.ports {
            let name = format!("{}{}", part.prefix, p.name);
            if p.width == 0 {
                return Err(Error::ZeroWidth(name));
            }
            if !names.insert(name.clone()) {
                return Err(Error::DuplicatePort(name));
            }
            let i = ports.len();
            let dir = match p.dir {
                Dir::In => "input ",
                Dir::Out => "output",
            };
            top_ports.push(format!("{dir} {}p{i}", range(p.width)));
            pins.push(format!(".{}(p{i})", p.name));
            ports.push(PortSpec {
                name,
                dir: p.dir,
                width: p.width,
            });
        }
        instances.push(Instance {
            module: iface.module.clone(),
            pins,
        });
        if !texts.contains(&part.verilog) {
            texts.push(part.verilog);
        }
    }
    let top = TopModule {
        module: TOP,
        ports: top_ports,
        parts: instances,
    };
    let mut verilog = texts.join("\n");
    verilog.push('\n');
    verilog.push_str(&render(&top));
    let shim = render(&Shim {
        module: TOP,
        ports: ports
            .iter()
            .map(|p| ShimPort {
                width: p.width,
                ctype: ctype(p.width),
            })
            .collect(),
        clocked,
        trace,
        threads,
        abi_version: ABI_VERSION,
    });
    Ok(Source {
        verilog,
        shim,
        ports,
    })
}

fn render(t: &impl Template) -> String {
    // The templates only interpolate strings and integers, which cannot fail to render.
    t.render().expect("model templates render")
}
