//! The fakeram model: a macro's size, pin placement and timing from its bits, words and
//! ports, per technology, in the manner of bsg_fakeram (which sizes and times its macros
//! with CACTI and places every signal pin on one edge at a fixed pitch).
//!
//! Size. The bit array is `rows x cols` cells with `rows = depth / mux` and
//! `cols = width * mux`, the column mux (1, 2, 4 or 8) chosen to bring the array closest to
//! square. A cell is the technology's 6T cell, widened by half a cell per extra port (its
//! bit-line pair) and made 30 % taller per extra port (its word line): a 1R1W cell is
//! 1.5 x 1.3 = 1.95 times the 6T cell, as 8T/dual-port cells are about twice a 6T cell.
//! Every port adds a row decoder on the left (a fixed part plus a part per address bit) and
//! sense amplifiers / write drivers below (a fixed height). The height is then raised, if
//! needed, to fit every signal pin on the left edge at the pin pitch, and both sides are
//! rounded up to the placement grid (site width, row height), so macros tile the rows.
//!
//! Timing. Clock to Q is `cq_base + cq_per_doubling * log2(bits)` plus the output drive's
//! `drive_ns_per_pf` times the load; setup and hold are constants; every input presents
//! `pin_cap_pf` (the clock `clock_cap_pf`). Leakage is per bit.
//!
//! The constants (approximations, for floorplanning and first-order timing only; the cell
//! sizes are published figures, the periphery and timing constants are this model's round
//! numbers, chosen so that a 0.5 to 32 kbit macro comes out at 2 to 7 times its bits' plain
//! 6T area, periphery weighing most in the smallest, as in compiled SRAMs):
//! - nangate45: the 45 nm 6T cell of Intel's 45 nm process, 0.346 um^2 (Mistry et al.,
//!   IEDM 2007), taken as 0.70 x 0.495 um (FreePDK45 itself has no SRAM cell; bsg_fakeram
//!   sizes ORFS's `fakeram45_*` macros with CACTI at 45 nm instead); clock to Q 0.1 ns plus
//!   20 ps per doubling of the bits (0.28 ns at 512 bits, 0.4 ns at 32 kbit), setup 60 ps,
//!   hold 30 ps, 2 fF per input; pins on `metal3` (horizontal, 0.14 um track pitch) every
//!   two tracks; power stripes `VDD`/`VSS` on `metal4`; placement grid 0.19 x 1.4 um (the
//!   Nangate `FreePDK45_38x28_10R_NP_162NW_34O` site).
//! - sky130hd: SkyWater's foundry 6T cell `sky130_fd_bd_sram__sram_sp_cell`, about
//!   1.2 x 1.58 um = 1.9 um^2; clock to Q 0.5 ns plus 90 ps per doubling (1.3 ns at 512
//!   bits, 1.85 ns at 32 kbit; OpenRAM's sky130 macros such as the 1 kB
//!   `sky130_sram_1kbyte_1rw1r_32x256_8` are specified at a few ns), setup 250 ps, hold
//!   80 ps, 5 fF per input; pins on `met3` (horizontal, 0.68 um pitch) on every track;
//!   power stripes `VPWR`/`VGND` on `met4`; placement grid 0.46 x 2.72 um (site `unithd`).

use super::{MacroShape, PinDir, Tech};

/// Per-technology constants of the model (lengths in nm, times in ns, capacitance in pF).
pub(super) struct TechParams {
    pub cell_w_nm: f64,
    pub cell_h_nm: f64,
    /// Row decoder width per port: fixed part and part per address bit.
    pub dec_base_nm: f64,
    pub dec_per_bit_nm: f64,
    /// Sense amplifier / write driver height per port.
    pub periph_h_nm: f64,
    pub site_w_nm: u64,
    pub row_h_nm: u64,
    /// Signal pins: layer, pitch along the left edge, width (in y) and length (in x).
    pub pin_layer: &'static str,
    pub pin_pitch_nm: u64,
    pub pin_w_nm: u64,
    pub pin_len_nm: u64,
    /// Layers fully blocked over the body (the pin layer is blocked but for the pin strip).
    pub obs_layers: &'static [&'static str],
    /// Power stripes: layer, width and pitch (VDD and VSS alternate).
    pub power_layer: &'static str,
    pub power_w_nm: u64,
    pub power_pitch_nm: u64,
    pub cq_base_ns: f64,
    pub cq_per_doubling_ns: f64,
    pub drive_ns_per_pf: f64,
    pub setup_ns: f64,
    pub hold_ns: f64,
    pub pin_cap_pf: f64,
    pub clock_cap_pf: f64,
    pub leakage_nw_per_bit: f64,
    /// Nominal supply voltage of the technology's standard cells.
    pub voltage: f64,
}

pub(super) fn params(tech: Tech) -> &'static TechParams {
    match tech {
        Tech::Nangate45 => &NANGATE45,
        Tech::Sky130hd => &SKY130HD,
    }
}

const NANGATE45: TechParams = TechParams {
    cell_w_nm: 700.0,
    cell_h_nm: 495.0,
    dec_base_nm: 4_000.0,
    dec_per_bit_nm: 600.0,
    periph_h_nm: 6_000.0,
    site_w_nm: 190,
    row_h_nm: 1_400,
    pin_layer: "metal3",
    pin_pitch_nm: 280,
    pin_w_nm: 70,
    pin_len_nm: 280,
    obs_layers: &["metal1", "metal2"],
    power_layer: "metal4",
    power_w_nm: 280,
    power_pitch_nm: 5_600,
    cq_base_ns: 0.10,
    cq_per_doubling_ns: 0.020,
    drive_ns_per_pf: 1.0,
    setup_ns: 0.06,
    hold_ns: 0.03,
    pin_cap_pf: 0.002,
    clock_cap_pf: 0.010,
    leakage_nw_per_bit: 0.5,
    voltage: 1.1,
};

const SKY130HD: TechParams = TechParams {
    cell_w_nm: 1_200.0,
    cell_h_nm: 1_580.0,
    dec_base_nm: 12_000.0,
    dec_per_bit_nm: 1_800.0,
    periph_h_nm: 18_000.0,
    site_w_nm: 460,
    row_h_nm: 2_720,
    pin_layer: "met3",
    pin_pitch_nm: 680,
    pin_w_nm: 300,
    pin_len_nm: 1_000,
    obs_layers: &["met1", "met2"],
    power_layer: "met4",
    power_w_nm: 1_600,
    power_pitch_nm: 20_000,
    cq_base_ns: 0.50,
    cq_per_doubling_ns: 0.090,
    drive_ns_per_pf: 2.5,
    setup_ns: 0.25,
    hold_ns: 0.08,
    pin_cap_pf: 0.005,
    clock_cap_pf: 0.020,
    leakage_nw_per_bit: 0.05,
    voltage: 1.8,
};

/// A macro's outline and signal pin positions, in integer nanometres.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Geometry {
    pub width_nm: u64,
    pub height_nm: u64,
    /// The column mux the array was folded with.
    pub mux: u64,
    /// Every signal pin bit, from the bottom of the left edge up in declaration order.
    pub pins: Vec<PinBit>,
}

/// One bit of a signal pin on the left edge of a macro.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PinBit {
    /// `clock`, `R0_en`, `R0_addr[3]`, ...
    pub name: String,
    pub dir: PinDir,
    /// The y of the pin's centre.
    pub y_nm: u64,
}

impl Geometry {
    /// The macro's outline, from the model.
    pub fn of(shape: &MacroShape, tech: Tech) -> Geometry {
        let p = params(tech);
        let ports = shape.ports.len() as f64;
        let extra = ports - 1.0;
        let (cell_w, cell_h) = (
            p.cell_w_nm * (1.0 + 0.5 * extra),
            p.cell_h_nm * (1.0 + 0.3 * extra),
        );
        let mux = column_mux(shape, cell_w, cell_h);
        let rows = shape.depth.div_ceil(mux);
        let cols = u64::from(shape.width) * mux;
        let row_bits = (64 - (rows.max(2) - 1).leading_zeros()) as f64;
        let width = cols as f64 * cell_w + ports * (p.dec_base_nm + p.dec_per_bit_nm * row_bits);
        let bits = pin_bits(shape);
        let pins_h = (bits.len() as u64 + 1) * p.pin_pitch_nm;
        let height = (rows as f64 * cell_h + ports * p.periph_h_nm).max(pins_h as f64);
        let width_nm = round_up(width.ceil() as u64, p.site_w_nm);
        let height_nm = round_up(height.ceil() as u64, p.row_h_nm);
        let pins = bits
            .into_iter()
            .zip(1..)
            .map(|((name, dir), k)| PinBit {
                name,
                dir,
                y_nm: k * p.pin_pitch_nm,
            })
            .collect();
        Geometry {
            width_nm,
            height_nm,
            mux,
            pins,
        }
    }

    /// Width times height, the area both views state.
    pub fn area_um2(&self) -> f64 {
        (self.width_nm * self.height_nm) as f64 / 1e6
    }
}

/// The column mux (1, 2, 4 or 8, no more than the depth) bringing the array closest to
/// square; the smaller one on a tie.
fn column_mux(shape: &MacroShape, cell_w: f64, cell_h: f64) -> u64 {
    let skew = |m: u64| {
        let w = (u64::from(shape.width) * m) as f64 * cell_w;
        let h = shape.depth.div_ceil(m) as f64 * cell_h;
        (w / h).ln().abs()
    };
    [1u64, 2, 4, 8]
        .into_iter()
        .filter(|&m| m <= shape.depth)
        .min_by(|&a, &b| skew(a).total_cmp(&skew(b)).then(a.cmp(&b)))
        .unwrap_or(1)
}

fn round_up(x: u64, grid: u64) -> u64 {
    x.div_ceil(grid).max(1) * grid
}

/// Every signal pin bit and its direction in declaration order, buses bit 0 first.
fn pin_bits(shape: &MacroShape) -> Vec<(String, PinDir)> {
    shape
        .pins()
        .into_iter()
        .flat_map(|pin| {
            (0..pin.width).map(move |i| match pin.width {
                1 => (pin.name.clone(), pin.dir),
                _ => (format!("{}[{i}]", pin.name), pin.dir),
            })
        })
        .collect()
}

/// A macro's timing and power figures.
#[derive(Clone, Debug, PartialEq)]
pub struct Timing {
    /// Clock to Q into no load.
    pub clk_to_q_ns: f64,
    /// Extra output delay per pF of load.
    pub drive_ns_per_pf: f64,
    pub setup_ns: f64,
    pub hold_ns: f64,
    pub pin_cap_pf: f64,
    pub clock_cap_pf: f64,
    pub leakage_nw: f64,
}

impl Timing {
    pub fn of(shape: &MacroShape, tech: Tech) -> Timing {
        let p = params(tech);
        let bits = shape.bits() as f64;
        Timing {
            clk_to_q_ns: p.cq_base_ns + p.cq_per_doubling_ns * bits.log2(),
            drive_ns_per_pf: p.drive_ns_per_pf,
            setup_ns: p.setup_ns,
            hold_ns: p.hold_ns,
            pin_cap_pf: p.pin_cap_pf,
            clock_cap_pf: p.clock_cap_pf,
            leakage_nw: p.leakage_nw_per_bit * bits,
        }
    }
}
