//! The Liberty view of a fakeram macro: one library named after the macro holding one cell
//! with the model's area and leakage, `clock` as its clock pin, setup and hold arcs from
//! `clock` on every other input and clock-to-Q arcs (delay and output slew linear in the
//! load, from a two-point table) on every output. Units: ns, pF, nW.

use super::model::{params, Geometry, Timing};
use super::{MacroShape, PinDir, Tech};
use std::collections::BTreeSet;
use std::fmt::Write;

/// Loads (pF) of the two-point clock-to-Q tables.
const LOADS_PF: [f64; 2] = [0.001, 0.1];

/// The Liberty text of `shape`'s macro in `tech`.
pub fn liberty(shape: &MacroShape, tech: Tech) -> String {
    let p = params(tech);
    let geo = Geometry::of(shape, tech);
    let t = Timing::of(shape, tech);
    let name = &shape.name;
    let mut s = String::new();
    let _ = write!(
        s,
        "/* Fakeram model of SRAM macro {name} for {tech}, written by accelgen: \
         {}x{} bits, {} ports, column mux {}. */\n\
         library ({name}) {{\n\
         \x20 technology (cmos);\n\
         \x20 delay_model : table_lookup;\n\
         \x20 time_unit : \"1ns\";\n\
         \x20 voltage_unit : \"1V\";\n\
         \x20 current_unit : \"1mA\";\n\
         \x20 leakage_power_unit : \"1nW\";\n\
         \x20 pulling_resistance_unit : \"1kohm\";\n\
         \x20 capacitive_load_unit (1, pf);\n\
         \x20 nom_process : 1.0;\n\
         \x20 nom_temperature : 25.0;\n\
         \x20 nom_voltage : {v:.2};\n\
         \x20 operating_conditions (typical) {{\n\
         \x20   process : 1.0;\n\
         \x20   temperature : 25.0;\n\
         \x20   voltage : {v:.2};\n\
         \x20 }}\n\
         \x20 default_operating_conditions : typical;\n\
         \x20 input_threshold_pct_rise : 50.0;\n\
         \x20 input_threshold_pct_fall : 50.0;\n\
         \x20 output_threshold_pct_rise : 50.0;\n\
         \x20 output_threshold_pct_fall : 50.0;\n\
         \x20 slew_lower_threshold_pct_rise : 20.0;\n\
         \x20 slew_lower_threshold_pct_fall : 20.0;\n\
         \x20 slew_upper_threshold_pct_rise : 80.0;\n\
         \x20 slew_upper_threshold_pct_fall : 80.0;\n\
         \x20 slew_derate_from_library : 1.0;\n\
         \x20 default_max_transition : 1.0;\n\
         \x20 default_fanout_load : 1.0;\n\
         \x20 lu_table_template (fakeram_load) {{\n\
         \x20   variable_1 : total_output_net_capacitance;\n\
         \x20   index_1 (\"{}\");\n\
         \x20 }}\n",
        shape.depth,
        shape.width,
        shape.ports.len(),
        geo.mux,
        list(&LOADS_PF),
        v = p.voltage,
    );
    let widths: BTreeSet<u32> = shape.pins().iter().map(|p| p.width).collect();
    for w in widths.into_iter().filter(|&w| w > 1) {
        let _ = write!(
            s,
            "  type (bus_{w}) {{\n    base_type : array;\n    data_type : bit;\n    \
             bit_width : {w};\n    bit_from : {};\n    bit_to : 0;\n    downto : true;\n  }}\n",
            w - 1
        );
    }
    let _ = write!(
        s,
        "  cell ({name}) {{\n    area : {:.6};\n    interface_timing : true;\n    \
         dont_use : true;\n    dont_touch : true;\n    cell_leakage_power : {:.3};\n",
        geo.area_um2(),
        t.leakage_nw
    );
    for pin in shape.pins() {
        s.push_str(&pin_group(&pin.name, pin.dir, pin.width, &t));
    }
    s.push_str("  }\n}\n");
    s
}

/// One pin or bus group with its timing arcs.
fn pin_group(name: &str, dir: PinDir, width: u32, t: &Timing) -> String {
    let mut s = if width > 1 {
        format!("    bus ({name}) {{\n      bus_type : bus_{width};\n")
    } else {
        format!("    pin ({name}) {{\n")
    };
    if name == "clock" {
        let _ = write!(
            s,
            "      direction : input;\n      capacitance : {:.4};\n      clock : true;\n",
            t.clock_cap_pf
        );
    } else if dir == PinDir::Input {
        let _ = write!(
            s,
            "      direction : input;\n      capacitance : {:.4};\n{}{}",
            t.pin_cap_pf,
            constraint("setup_rising", t.setup_ns),
            constraint("hold_rising", t.hold_ns)
        );
    } else {
        let delay: Vec<f64> = LOADS_PF
            .iter()
            .map(|l| t.clk_to_q_ns + t.drive_ns_per_pf * l)
            .collect();
        // Output slew: a tenth of the access time plus twice the RC of the drive.
        let slew: Vec<f64> = LOADS_PF
            .iter()
            .map(|l| 0.1 * t.clk_to_q_ns + 2.0 * t.drive_ns_per_pf * l)
            .collect();
        let _ = write!(
            s,
            "      direction : output;\n      max_capacitance : {:.4};\n      timing () {{\n        \
             related_pin : \"clock\";\n        timing_type : rising_edge;\n        \
             timing_sense : non_unate;\n{}{}{}{}      }}\n",
            LOADS_PF[1],
            table("cell_rise", &delay),
            table("cell_fall", &delay),
            table("rise_transition", &slew),
            table("fall_transition", &slew)
        );
    }
    s.push_str("    }\n");
    s
}

fn constraint(kind: &str, ns: f64) -> String {
    format!(
        "      timing () {{\n        related_pin : \"clock\";\n        timing_type : {kind};\n        \
         rise_constraint (scalar) {{\n          values (\"{ns:.4}\");\n        }}\n        \
         fall_constraint (scalar) {{\n          values (\"{ns:.4}\");\n        }}\n      }}\n"
    )
}

fn table(kind: &str, values: &[f64]) -> String {
    format!(
        "        {kind} (fakeram_load) {{\n          values (\"{}\");\n        }}\n",
        list(values)
    )
}

fn list(values: &[f64]) -> String {
    values
        .iter()
        .map(|v| format!("{v:.4}"))
        .collect::<Vec<_>>()
        .join(", ")
}
