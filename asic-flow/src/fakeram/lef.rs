//! The LEF view of a fakeram macro: a `CLASS BLOCK` macro of the model's size, every signal
//! pin bit a small rectangle on the technology's horizontal pin layer along the left edge
//! (bottom up in declaration order, at the model's pitch), power and ground stripes across
//! the full height on the layer above, and obstructions over the body on the layers below
//! and on the pin layer beside the pin strip.

use super::model::{params, Geometry, TechParams};
use super::{MacroShape, PinDir, Tech};
use std::fmt::Write;

/// The LEF text of `shape`'s macro in `tech`.
pub fn lef(shape: &MacroShape, tech: Tech) -> String {
    let p = params(tech);
    let geo = Geometry::of(shape, tech);
    let name = &shape.name;
    let (w, h) = (geo.width_nm, geo.height_nm);
    let mut s = format!(
        "# Fakeram model of SRAM macro {name} for {tech}, written by accelgen.\n\
         VERSION 5.8 ;\nBUSBITCHARS \"[]\" ;\nDIVIDERCHAR \"/\" ;\n\n\
         MACRO {name}\n  CLASS BLOCK ;\n  ORIGIN 0 0 ;\n  FOREIGN {name} 0 0 ;\n  \
         SIZE {} BY {} ;\n  SYMMETRY X Y R90 ;\n",
        um(w),
        um(h)
    );
    for bit in &geo.pins {
        let dir = match bit.dir {
            PinDir::Input => "INPUT",
            PinDir::Output => "OUTPUT",
        };
        let half = p.pin_w_nm / 2;
        let rect = [0, bit.y_nm - half, p.pin_len_nm, bit.y_nm + half];
        s.push_str(&pin(&bit.name, dir, "SIGNAL", p.pin_layer, &[rect]));
    }
    // LEF names a pin once: each supply is one pin with all its stripes.
    let stripes: Vec<[u64; 4]> = stripes(p, w)
        .into_iter()
        .map(|x| [x, 0, x + p.power_w_nm, h])
        .collect();
    let (power, ground) = supply_names(tech);
    let alternate =
        |parity| -> Vec<[u64; 4]> { stripes.iter().copied().skip(parity).step_by(2).collect() };
    s.push_str(&pin(power, "INOUT", "POWER", p.power_layer, &alternate(0)));
    s.push_str(&pin(
        ground,
        "INOUT",
        "GROUND",
        p.power_layer,
        &alternate(1),
    ));
    s.push_str("  OBS\n");
    let z = um(0);
    for layer in p.obs_layers {
        let _ = writeln!(
            s,
            "    LAYER {layer} ;\n      RECT {z} {z} {} {} ;",
            um(w),
            um(h)
        );
    }
    let _ = writeln!(
        s,
        "    LAYER {} ;\n      RECT {} {z} {} {} ;",
        p.pin_layer,
        um(p.pin_len_nm + p.pin_pitch_nm),
        um(w),
        um(h)
    );
    let _ = write!(s, "  END\nEND {name}\n\nEND LIBRARY\n");
    s
}

/// The supply pin names of the technology's standard cells (which ORFS's power grid
/// scripts connect).
fn supply_names(tech: Tech) -> (&'static str, &'static str) {
    match tech {
        Tech::Nangate45 => ("VDD", "VSS"),
        Tech::Sky130hd => ("VPWR", "VGND"),
    }
}

/// The left x of every power stripe, power and ground alternating, at least one of each:
/// right of the pin strip, at half the stripe pitch (less on a narrow macro).
fn stripes(p: &TechParams, width: u64) -> Vec<u64> {
    let x0 = 2 * p.pin_len_nm + p.pin_pitch_nm;
    let room = width.saturating_sub(x0 + 2 * p.power_w_nm);
    let step = (p.power_pitch_nm / 2)
        .min(room / 10 * 10)
        .max(p.power_w_nm * 2);
    let count = (room / step + 1).max(2);
    (0..count).map(|k| x0 + k * step).collect()
}

fn pin(name: &str, dir: &str, usage: &str, layer: &str, rects: &[[u64; 4]]) -> String {
    let mut s = format!(
        "  PIN {name}\n    DIRECTION {dir} ;\n    USE {usage} ;\n    PORT\n      LAYER {layer} ;\n"
    );
    for r in rects {
        let _ = writeln!(
            s,
            "        RECT {} {} {} {} ;",
            um(r[0]),
            um(r[1]),
            um(r[2]),
            um(r[3])
        );
    }
    let _ = write!(s, "    END\n  END {name}\n");
    s
}

/// Nanometres as microns with three decimals.
fn um(nm: u64) -> String {
    format!("{}.{:03}", nm / 1000, nm % 1000)
}
