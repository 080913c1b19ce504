//! The hand-off files `accelgen generate` adds to a design's Verilog: the top's SDC,
//! fakeram Liberty and LEF views of every SRAM macro for each technology, and on request
//! an OpenROAD-flow-scripts design directory and a FuseSoC core (see `asic_flow`'s `sdc`,
//! `fakeram`, `orfs` and `fusesoc`).

use asic_flow::fakeram::{self, MacroShape, Tech};
use asic_flow::fusesoc::{self, CoreDesign, TopPort};
use asic_flow::orfs::{self, OrfsDesign};
use asic_flow::sdc::{self, SdcOptions};
use generators::output::Rendered;

/// Which hand-offs to write.
pub struct Handoffs {
    pub sdc: SdcOptions,
    /// The ORFS platform of an `orfs/` design directory, if one is wanted.
    pub orfs: Option<Tech>,
    pub fusesoc: bool,
}

/// The hand-off files for rendered design `r`, as paths relative to the output directory.
pub fn files(r: &Rendered, h: &Handoffs) -> anyhow::Result<Vec<(String, String)>> {
    let clocked = r.top_ports.iter().any(|p| p.name == "clock");
    let sdc_text = sdc::sdc(r.top, clocked, &h.sdc)?;
    let mut files = vec![(format!("{}.sdc", r.top), sdc_text.clone())];
    let shapes: Vec<MacroShape> = serde_json::from_value(serde_json::to_value(r.macros)?)?;
    for tech in Tech::ALL {
        for m in &shapes {
            let path = |ext| fakeram::view_path(&m.name, tech, ext);
            files.push((path("lib"), fakeram::liberty(m, tech)));
            files.push((path("lef"), fakeram::lef(m, tech)));
        }
    }
    if let Some(platform) = h.orfs {
        let macros: Vec<&str> = shapes.iter().map(|m| m.name.as_str()).collect();
        let design = OrfsDesign {
            platform,
            design: r.design,
            top: r.top,
            verilog: r.verilog,
            macros: &macros,
        };
        files.extend(orfs::files(&design, &sdc_text));
    }
    if h.fusesoc {
        let ports: Vec<TopPort> = r
            .top_ports
            .iter()
            .map(|p| TopPort {
                name: &p.name,
                input: p.direction == "input",
                width: p.width,
            })
            .collect();
        files.extend(fusesoc::files(&CoreDesign {
            design: r.design,
            top: r.top,
            ports: &ports,
            verilog: r.verilog,
        }));
    }
    Ok(files)
}
