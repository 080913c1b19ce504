//! Timing constraints (SDC) for a generated design's top module, in the form of
//! OpenROAD-flow-scripts' own designs' `constraint.sdc` (`clk_name`, `clk_port_name`,
//! `clk_period`, `clk_io_pct`), so the same text serves OpenSTA, Yosys-based flows and ORFS:
//! a clock `clock` on port `clock` (a virtual clock when the top has no clock port), and an
//! input delay on every input but the clock and an output delay on every output, each a
//! fixed fraction of the period (`reset` is an ordinary input).

use std::fmt::Write;

/// The default clock period (ns): 200 MHz, within reach of the processor designs on
/// nangate45, a stretch on sky130hd.
pub const DEFAULT_PERIOD_NS: f64 = 5.0;

/// The default share of the period the outside world takes on each side of an I/O path
/// (20 %, as ORFS's designs set `clk_io_pct 0.2`), leaving 80 % for the design's half.
pub const DEFAULT_IO_FRACTION: f64 = 0.2;

#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SdcOptions {
    /// Clock period in ns.
    pub period_ns: f64,
    /// Input and output delay as a fraction of the period.
    pub io_fraction: f64,
}

impl Default for SdcOptions {
    fn default() -> SdcOptions {
        SdcOptions {
            period_ns: DEFAULT_PERIOD_NS,
            io_fraction: DEFAULT_IO_FRACTION,
        }
    }
}

#[derive(Debug, thiserror::Error)]
pub enum SdcError {
    #[error("clock period {0} ns is not a number of nanoseconds of at least 0.001")]
    Period(f64),
    #[error("I/O delay fraction {0} is not in [0, 1)")]
    IoFraction(f64),
}

impl SdcOptions {
    /// The options, checked: a finite period of at least 1 ps, an I/O fraction in [0, 1).
    pub fn checked(self) -> Result<SdcOptions, SdcError> {
        if !(self.period_ns.is_finite() && self.period_ns >= 0.001) {
            return Err(SdcError::Period(self.period_ns));
        }
        if !(0.0..1.0).contains(&self.io_fraction) {
            return Err(SdcError::IoFraction(self.io_fraction));
        }
        Ok(self)
    }
}

/// The SDC text for top module `top`; `clocked` says whether it has a `clock` port.
pub fn sdc(top: &str, clocked: bool, opts: &SdcOptions) -> Result<String, SdcError> {
    let opts = opts.checked()?;
    let mut s = format!(
        "# Timing constraints for {top}, written by accelgen: clock period {period} ns, \
         I/O delays {pct} % of it.\n\
         current_design {top}\n\n\
         set clk_name clock\n\
         set clk_port_name clock\n\
         set clk_period {period}\n\
         set clk_io_pct {io}\n\n",
        period = fmt_num(opts.period_ns),
        pct = fmt_num(opts.io_fraction * 100.0),
        io = fmt_num(opts.io_fraction),
    );
    if clocked {
        s.push_str(
            "set clk_port [get_ports $clk_port_name]\n\
             create_clock -name $clk_name -period $clk_period $clk_port\n\
             set non_clock_inputs [delete_from_list [all_inputs] $clk_port]\n",
        );
    } else {
        s.push_str(
            "# No clock port: a virtual clock times the paths from inputs to outputs.\n\
             create_clock -name $clk_name -period $clk_period\n\
             set non_clock_inputs [all_inputs]\n",
        );
    }
    let _ = write!(
        s,
        "\nset_input_delay [expr $clk_period * $clk_io_pct] -clock $clk_name $non_clock_inputs\n\
         set_output_delay [expr $clk_period * $clk_io_pct] -clock $clk_name [all_outputs]\n"
    );
    Ok(s)
}

/// A number rounded to a femtosecond-scale 1e-6 and in its shortest form (`5`, `2.5`).
fn fmt_num(x: f64) -> String {
    format!("{}", (x * 1e6).round() / 1e6)
}
